//! A workflow step's `file:` output when its worker runs on another host: the file is there,
//! so the host's umbel reads it (`output-file`, a verb only `remote-exec` knows) inside the
//! worker's folder (as a local worker's is read: `operations/worker_files.rs`), and sends it
//! back as text.

use super::super::Ctx;
use super::super::worker::Worker;
use super::super::worker_files;
use super::forward::Request;
use super::verbs::{call, read_back};
use crate::core::errors::Result;
use crate::core::remote::RemoteRecord;
use serde::{Deserialize, Serialize};

/// The verb's name in a forwarded request (`output-file NAME PATH`); not a command-line verb.
pub const VERB: &str = "output-file";

/// What the host sends back.
#[derive(Debug, Serialize, Deserialize)]
pub struct OutputFile {
    pub text: String,
}

/// Here: the text of `path` (relative to the worker's folder on its host).
pub fn fetch(ctx: &Ctx, at: &RemoteRecord, path: &str) -> Result<String> {
    let request = Request {
        argv: vec![VERB.to_string(), at.name.clone(), path.to_string()],
        ..Request::default()
    };
    let found: OutputFile = read_back(&at.host, call(ctx, &at.host, request)?)?;
    Ok(found.text)
}

/// On the host: the text of `path` in worker `name`'s folder, read as a local worker's is
/// ([`worker_files::read_inside`]: a path leading outside the folder is refused).
pub fn read_here(ctx: &Ctx, name: &str, path: &str) -> Result<OutputFile> {
    let worker = Worker::load(ctx, name)?;
    let text = worker_files::read_inside(name, &worker.meta.cwd, path, " on its host")?;
    Ok(OutputFile { text })
}
