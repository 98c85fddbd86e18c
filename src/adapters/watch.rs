//! Waking up when a folder changes (inotify through `notify`). Callers still re-check the facts
//! on every wake-up and on a slow timer, so a missed event only costs latency.
//!
//! Only changes wake a waiter: files created, written, renamed or removed. Opening, reading and
//! closing a file are inotify events too, and a waiter that woke on them woke on its own reads of
//! the events log, read it again, and so spun (55–80% of a core per `wait`).

use crate::core::errors::{Error, Result};
use notify::{RecursiveMode, Watcher};
use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// A live watch on one folder.
pub struct FolderWatch {
    _watcher: notify::RecommendedWatcher,
    rx: Receiver<()>,
}

impl FolderWatch {
    /// Starts watching `dir` (not recursively).
    pub fn new(dir: &Path) -> Result<Self> {
        let (tx, rx) = channel();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if event.is_ok_and(|e| is_change(&e.kind)) {
                    let _ = tx.send(());
                }
            })
            .map_err(|e| watch_error(dir, e))?;
        watcher
            .watch(dir, RecursiveMode::NonRecursive)
            .map_err(|e| watch_error(dir, e))?;
        Ok(FolderWatch {
            _watcher: watcher,
            rx,
        })
    }

    /// Blocks until something changed or `timeout` passed; drains queued wake-ups.
    /// Returns whether anything changed.
    pub fn wait(&self, timeout: Duration) -> bool {
        match self.rx.recv_timeout(timeout) {
            Ok(()) => {
                while self.rx.try_recv().is_ok() {}
                true
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => false,
        }
    }
}

/// Whether an event can change what a waiter reads (not an open, a read or a close).
fn is_change(kind: &notify::EventKind) -> bool {
    use notify::EventKind::{Access, Any, Create, Modify, Other, Remove};
    use notify::event::{AccessKind, AccessMode};
    match kind {
        Create(_) | Remove(_) | Any | Other => true,
        Modify(notify::event::ModifyKind::Metadata(_)) => false,
        Modify(_) => true,
        // A file written and closed: its last bytes are in.
        Access(AccessKind::Close(AccessMode::Write)) => true,
        Access(_) => false,
    }
}

fn watch_error(dir: &Path, e: notify::Error) -> Error {
    Error::io("cannot watch", dir, std::io::Error::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_wakes_the_watch() {
        let dir = tempfile::tempdir().unwrap();
        let watch = FolderWatch::new(dir.path()).unwrap();
        assert!(!watch.wait(Duration::from_millis(20)));
        std::fs::write(dir.path().join("log"), "x").unwrap();
        assert!(watch.wait(Duration::from_secs(5)));
    }

    /// A waiter reads the events log after every wake-up: its reads must not wake it again.
    #[test]
    fn reading_the_folder_does_not_wake_the_watch() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        std::fs::write(&log, "x").unwrap();
        let watch = FolderWatch::new(dir.path()).unwrap();
        for _ in 0..50 {
            std::fs::read(&log).unwrap();
            let _ = std::fs::read_dir(dir.path()).unwrap().count();
        }
        assert!(!watch.wait(Duration::from_millis(200)), "50 reads woke it");
        std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"y"))
            .unwrap();
        assert!(watch.wait(Duration::from_secs(5)), "an append wakes it");
    }
}
