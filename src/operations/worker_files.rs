//! A file a worker wrote, read for a workflow step's `file:` output: inside the worker's folder
//! (its cwd) and nowhere else, at most [`MAX_OUTPUT_FILE`] bytes of UTF-8 text. One rule for
//! every worker: the local runner reads a local worker's file with it, a host's umbel a remote
//! worker's (`output-file`, `remote/output_file.rs`).

use crate::adapters::files;
use crate::adapters::host::canonicalize;
use crate::core::errors::{Error, Result};
use crate::core::workflow::model::MAX_OUTPUT_FILE;
use std::path::Path;

/// The text of `path` (relative to `folder`, worker `name`'s folder; `where_` says where that
/// is, e.g. " on its host", for the message). A path that leads outside the folder (absolute,
/// `..`, a symbolic link anywhere on the way) is refused with a usage error naming it; one
/// that cannot be read, is not a regular file or is not UTF-8 is an I/O error.
pub fn read_inside(name: &str, folder: &Path, path: &str, where_: &str) -> Result<String> {
    let outside = || {
        Error::usage(format!(
            "`file:{path}` leads outside worker `{name}`'s folder {}{where_}: a step's file outputs are read inside its worker's folder",
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
    String::from_utf8(bytes).map_err(|_| {
        let e = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        );
        Error::io("cannot read", wanted, e)
    })
}
