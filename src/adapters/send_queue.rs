//! The tickets of queued `send`s (`send --queue`): one file per waiting sender in the worker's
//! `queue/` folder, named `<nanoseconds>-<pid>-<n>` so the names sort in arrival order, each held
//! under an advisory lock by its sender for as long as it waits. The head (the first name) is the
//! one that delivers next. A sender that was killed leaves its file but not its lock (the kernel
//! drops it with the process), so the others skip and remove it; one that is dropped (delivered,
//! failed, or cancelled by a signal) removes its own.

use crate::core::errors::{Error, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Tickets taken by this process so far.
static TAKEN: AtomicU64 = AtomicU64::new(0);

/// A waiting sender's place in the queue; removed when dropped.
#[derive(Debug)]
pub struct Ticket {
    dir: PathBuf,
    name: String,
    _file: fs::File,
}

impl Ticket {
    /// Joins the queue in `dir` (created if needed). The file is locked under a hidden name
    /// first and then renamed, so no other sender ever sees it unlocked and takes it for stale.
    pub fn take(dir: &Path) -> Result<Ticket> {
        fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let pid = std::process::id();
        // Two tickets of one process (an MCP server's parallel calls) differ by the counter.
        let n = TAKEN.fetch_add(1, Ordering::Relaxed);
        let name = format!("{nanos:020}-{pid:010}-{n}");
        let hidden = dir.join(format!(".{name}"));
        let file = fs::File::create(&hidden).map_err(|e| Error::io("cannot create", &hidden, e))?;
        file.lock()
            .map_err(|e| Error::io("cannot lock", &hidden, e))?;
        let path = dir.join(&name);
        fs::rename(&hidden, &path).map_err(|e| Error::io("cannot rename", &hidden, e))?;
        Ok(Ticket {
            dir: dir.to_path_buf(),
            name,
            _file: file,
        })
    }

    /// The folder the tickets are in (to watch it).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether no live sender arrived before this one. Tickets ahead whose sender is gone (their
    /// lock is free) are removed on the way. Only regular files are tickets: anything else in
    /// the folder (a FIFO, a folder, a link) is passed by, and a ticket is opened non-blocking
    /// and without following a link, so nothing there can hold a sender.
    pub fn is_head(&self) -> Result<bool> {
        let entries =
            fs::read_dir(&self.dir).map_err(|e| Error::io("cannot read", &self.dir, e))?;
        let mut ahead: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.') && *n < self.name)
            .collect();
        ahead.sort();
        for name in ahead {
            let path = self.dir.join(&name);
            let Ok(file) = open_ticket(&path) else {
                continue; // removed meanwhile, or not a ticket
            };
            match file.try_lock() {
                Ok(()) => {
                    // Its sender is gone (killed before it could remove it).
                    let _ = fs::remove_file(&path);
                }
                Err(fs::TryLockError::WouldBlock) => return Ok(false),
                Err(fs::TryLockError::Error(e)) => return Err(Error::io("cannot lock", path, e)),
            }
        }
        Ok(true)
    }
}

/// Opens a ticket ahead to try its lock: non-blocking, never through a link, a regular file
/// only (the folder may have changed since it was listed).
fn open_ticket(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a ticket",
        ));
    }
    Ok(file)
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let _ = fs::remove_file(self.dir.join(&self.name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickets_are_served_in_arrival_order_and_a_dead_senders_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let first = Ticket::take(dir.path()).unwrap();
        let second = Ticket::take(dir.path()).unwrap();
        assert!(first.is_head().unwrap());
        assert!(!second.is_head().unwrap());
        drop(first);
        assert!(second.is_head().unwrap());
        // A killed sender's file: present, but nobody holds its lock.
        let third = Ticket::take(dir.path()).unwrap();
        fs::write(dir.path().join("00000000000000000001-0000000001"), "").unwrap();
        assert!(second.is_head().unwrap());
        assert!(!dir.path().join("00000000000000000001-0000000001").exists());
        assert!(!third.is_head().unwrap());
        drop(second);
        drop(third);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
