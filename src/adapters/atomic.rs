//! Replacing a file whole: a reader sees the old content or the new, never a mix, and a record
//! a reboot must find is synced to disk. Every file umbel writes under the state root goes
//! through here.

use crate::core::errors::{Error, Result};
use serde::Serialize;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes `value` as pretty JSON through [`write_atomic`] (mode 0600).
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    write_atomic(path, &json_bytes(path, value)?, 0o600)
}

/// `value` as pretty JSON (the file it is for names the failure). A value that cannot be
/// encoded is a failure to write that file, not a corrupt file (nothing on disk is wrong).
fn json_bytes<T: Serialize>(path: &Path, value: &T) -> Result<Vec<u8>> {
    serde_json::to_vec_pretty(value).map_err(|e| {
        let why = std::io::Error::other(format!("cannot encode it as JSON: {e}"));
        Error::io("cannot write", path, why)
    })
}

/// Replaces the file at `path` with `bytes` (mode `mode`) so a reader sees the old content or
/// the new, never a mix: a temporary file beside it — a random name, created exclusively (no
/// link planted there is followed) with `mode` from the start — then a rename. No fsync: the
/// rename alone makes the new content appear whole while the machine runs ([`write_durable`]
/// for the records that must outlive a power loss).
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    replace(path, bytes, mode, false)
}

/// [`write_atomic`], and the file and its folder synced to disk: for the records a reboot
/// must find whole (meta.json, launch.json, run.json: resume after a reboot and `run --resume`
/// read them), where an unsynced rename can come back as an empty file after a power loss.
pub fn write_durable(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    replace(path, bytes, mode, true)
}

fn replace(path: &Path, bytes: &[u8], mode: u32, durable: bool) -> Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let written = (|| {
        let mut tmp = tempfile::Builder::new()
            .prefix(&format!(".{file_name}."))
            .suffix(".tmp")
            .permissions(fs::Permissions::from_mode(mode))
            .tempfile_in(dir)?;
        tmp.write_all(bytes)?;
        if durable {
            tmp.as_file().sync_all()?;
        }
        tmp.persist(path).map_err(|e| e.error)?;
        if durable {
            fs::File::open(dir)?.sync_all()?;
        }
        Ok::<(), std::io::Error>(())
    })();
    written.map_err(|e| Error::io("cannot write", path, e))
}

/// Writes `value` as pretty JSON through [`write_durable`] (mode 0600).
pub fn write_json_durable<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    write_durable(path, &json_bytes(path, value)?, 0o600)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_cannot_be_encoded_is_a_failed_write_not_a_corrupt_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("x.json");
        // JSON keys are strings: a map keyed by pairs has no JSON form.
        let value = std::collections::BTreeMap::from([((1, 2), 3)]);
        let err = write_json_atomic(&path, &value).expect_err("no JSON form");
        assert_eq!(err.code(), "io", "{err}");
        assert!(err.to_string().contains("cannot write"), "{err}");
        assert!(!path.exists());
    }
}
