//! Plain files outside the state folder that the verbs read or write: the user's config files a
//! provider builds on, the launch files and links `spawn` puts in place, a guardrail's schema,
//! a workflow file and a step's `file:` outputs, a growing transcript's new bytes, and the
//! lock files that keep two `send`s apart. The verbs decide; these only touch the disk.

use crate::core::errors::{Error, Result};
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A file held open for its advisory lock; the kernel releases it when this is dropped or the
/// process dies.
#[derive(Debug)]
pub struct Lock {
    _file: fs::File,
}

/// Takes the lock on `path` (created if needed) without waiting: `Ok(None)` when another
/// process holds it.
pub fn try_lock(path: &Path) -> Result<Option<Lock>> {
    let file = fs::File::create(path).map_err(|e| Error::io("cannot open", path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(Lock { _file: file })),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(Error::io("cannot lock", path, e)),
    }
}

/// Takes the lock on `path` (created if needed), waiting while another process holds it — until
/// `stop` is raised (Ctrl-C, SIGTERM: [`Error::Interrupted`]) or `until` passes (`Ok(None)`).
pub fn lock_waiting(
    path: &Path,
    stop: &AtomicBool,
    until: Option<Instant>,
) -> Result<Option<Lock>> {
    loop {
        if let Some(lock) = try_lock(path)? {
            return Ok(Some(lock));
        }
        // A blocking flock(2) would not end at a signal (it is restarted): poll it instead.
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        if until.is_some_and(|until| Instant::now() >= until) {
            return Ok(None);
        }
        std::thread::sleep(LOCK_POLL);
    }
}

/// How often [`lock_waiting`] tries the lock again.
const LOCK_POLL: Duration = Duration::from_millis(25);

/// The text of each readable file of `paths`, with its path; unreadable ones are left out.
pub fn read_existing(paths: Vec<PathBuf>) -> Vec<(PathBuf, String)> {
    paths
        .into_iter()
        .filter_map(|path| fs::read_to_string(&path).ok().map(|text| (path, text)))
        .collect()
}

/// Writes `content` to `path` (mode 0600, atomically), creating its folder first.
pub fn write_private(path: &Path, content: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
    }
    super::atomic::write_atomic(path, content.as_bytes(), 0o600)
}

/// Links `link` to `target` when the target exists (creating the link's folder first).
pub fn link_if_present(link: &Path, target: &Path) -> Result<()> {
    if !target.exists() {
        return Ok(());
    }
    if let Some(dir) = link.parent() {
        fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
    }
    std::os::unix::fs::symlink(target, link).map_err(|e| Error::io("cannot link", link, e))
}

/// The whole file.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    fs::read(path)
}

/// At most the last `max` bytes of the regular file at `path`. Anything else — a FIFO, a
/// device, a folder — is refused without blocking: the file is opened non-blocking and looked
/// at before it is read.
pub fn read_regular_tail(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    file.seek(SeekFrom::Start(meta.len().saturating_sub(max)))?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// At most `max` bytes from the start of the file.
pub fn read_capped(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    fs::File::open(path)?.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// At most `max` bytes of a regular file (a FIFO or device is refused rather than waited on:
/// opening a FIFO blocks until a writer comes).
pub fn read_regular_capped(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    if !fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    read_capped(path, max)
}

/// The first file under `dir` (at most [`FIND_DEPTH`] folders down) whose name ends with
/// `suffix`.
pub fn find_by_suffix(dir: &Path, suffix: &str) -> Option<PathBuf> {
    find_below(dir, suffix, FIND_DEPTH)
}

/// How deep [`find_by_suffix`] looks (codex keeps `sessions/YYYY/MM/DD/`).
const FIND_DEPTH: usize = 8;

/// [`find_by_suffix`] at most `depth` folders down; a symbolic link to a folder is not
/// followed (a link back up would loop for ever).
fn find_below(dir: &Path, suffix: &str, depth: usize) -> Option<PathBuf> {
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if depth > 0
                && let Some(found) = find_below(&path, suffix, depth - 1)
            {
                return Some(found);
            }
        } else if path.to_string_lossy().ends_with(suffix) {
            return Some(path);
        }
    }
    None
}

/// The file's length; 0 when it cannot be read.
pub fn len(path: &Path) -> u64 {
    fs::metadata(path).map_or(0, |m| m.len())
}

/// What tells one version of a file from the next (its inode, change time and length): equal
/// stamps mean it was not replaced or written in between. `None` when it is not there.
pub fn stamp(path: &Path) -> Option<(u64, i64, i64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = fs::metadata(path).ok()?;
    Some((m.ino(), m.ctime(), m.ctime_nsec(), m.len()))
}

/// Appends `text` to the file at `path` (made private if new).
pub fn append(path: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| Error::io("cannot append to", path, e))
}

/// Everything from `offset` to the file's current end; `None` when it cannot be read.
pub fn read_from(path: &Path, offset: u64) -> Option<Vec<u8>> {
    read_from_checked(path, offset).ok()
}

/// Everything from `offset` to the file's current end, or why it cannot be read.
pub fn read_from_checked(path: &Path, offset: u64) -> std::io::Result<Vec<u8>> {
    let mut file = fs::File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut fresh = Vec::new();
    file.read_to_end(&mut fresh)?;
    Ok(fresh)
}

/// The whole file as text.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    fs::read_to_string(path)
}

/// The permission bits of `path`, and whether this process's user owns it.
pub fn mode_and_ownership(path: &Path) -> std::io::Result<(u32, bool)> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let meta = fs::metadata(path)?;
    let owned = meta.uid() == rustix::process::getuid().as_raw();
    Ok((meta.permissions().mode(), owned))
}

/// Creates and removes an empty file in `dir`: whether umbel can write there.
pub fn probe_write(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".doctor-probe.{}", std::process::id()));
    // Some bytes, not an empty file: a full disk still creates empty files (ENOSPC comes only
    // with the data), and the hooks write data.
    let written = fs::write(&probe, [0u8; 4096]);
    let removed = fs::remove_file(&probe);
    written.and(removed)
}

/// The bytes free to an unprivileged writer on the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    let stat = rustix::fs::statvfs(dir)?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link back up does not send the search round for ever (issue 45 item 10), and a file
    /// past the depth bound is not found.
    #[test]
    fn finding_by_suffix_follows_no_link_and_stops_at_its_depth() {
        let dir = tempfile::tempdir().expect("tempdir");
        let day = dir.path().join("2026/12/06");
        fs::create_dir_all(&day).expect("mkdir");
        fs::write(day.join("rollout-x-abc.jsonl"), b"{}").expect("write");
        std::os::unix::fs::symlink(dir.path(), dir.path().join("2026/loop")).expect("link");
        assert_eq!(
            find_by_suffix(dir.path(), "-abc.jsonl"),
            Some(day.join("rollout-x-abc.jsonl"))
        );
        assert_eq!(find_by_suffix(dir.path(), "-none.jsonl"), None);
        let deep = dir.path().join("a/b/c/d/e/f/g/h/i/j");
        fs::create_dir_all(&deep).expect("mkdir");
        fs::write(deep.join("deep-x.jsonl"), b"{}").expect("write");
        assert_eq!(find_by_suffix(dir.path(), "-x.jsonl"), None);
    }
}
