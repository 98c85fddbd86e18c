//! A workflow step's `file:` output when its worker runs on another host: the file is there,
//! so the host's umbel reads it (`output-file`, a verb only `remote-exec` knows) inside the
//! worker's folder, at most [`MAX_OUTPUT_FILE`] bytes, and sends it back as text.

use super::super::Ctx;
use super::super::worker::Worker;
use super::forward::Request;
use super::verbs::{call, read_back};
use crate::adapters::files;
use crate::adapters::host::canonicalize;
use crate::core::errors::{Error, Result};
use crate::core::remote::RemoteRecord;
use crate::core::workflow::model::MAX_OUTPUT_FILE;
use serde::{Deserialize, Serialize};
use std::path::Path;

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

/// On the host: the text of `path` in worker `name`'s folder. A path that leads outside it
/// (absolute, `..`, a symbolic link) is refused; so is one that is not UTF-8 text.
pub fn read_here(ctx: &Ctx, name: &str, path: &str) -> Result<OutputFile> {
    let worker = Worker::load(ctx, name)?;
    let folder = &worker.meta.cwd;
    let outside = || {
        Error::usage(format!(
            "`file:{path}` leads outside worker `{name}`'s folder {} on its host: a remote worker's file outputs are read inside its folder",
            folder.display()
        ))
    };
    if Path::new(path).is_absolute() {
        return Err(outside());
    }
    let real = |p: &Path| canonicalize(p).map_err(|e| Error::io("cannot read", p, e));
    // The resolved path is the one read: a link swapped in between cannot lead out.
    let wanted = real(&folder.join(path))?;
    if !wanted.starts_with(real(folder)?) {
        return Err(outside());
    }
    let bytes = files::read_regular_capped(&wanted, MAX_OUTPUT_FILE)
        .map_err(|e| Error::io("cannot read", wanted.clone(), e))?;
    // As `read_to_string` says it.
    let text = String::from_utf8(bytes).map_err(|_| {
        let e = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        );
        Error::io("cannot read", wanted.clone(), e)
    })?;
    Ok(OutputFile { text })
}
