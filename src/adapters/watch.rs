//! Waking up when a folder changes (inotify through `notify`). Callers still re-check the facts
//! on every wake-up and on a slow timer, so a missed event only costs latency.
//!
//! Only changes wake a waiter: files created, written, renamed or removed. Opening, reading and
//! closing a file are inotify events too, and a waiter that woke on them woke on its own reads of
//! the events log, read it again, and so spun (55–80% of a core per `wait`).

use crate::core::errors::{Error, Result};
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// A live watch on one folder.
pub struct FolderWatch {
    /// Always `Some` until dropped (then retired, see [`KEPT_OPEN`]).
    watcher: Option<notify::RecommendedWatcher>,
    dir: PathBuf,
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
            watcher: Some(watcher),
            dir: dir.to_path_buf(),
            rx,
        })
    }

    /// Watches `dir` as well (not recursively): a change in either wakes [`FolderWatch::wait`].
    pub fn also(&mut self, dir: &Path) -> Result<()> {
        match self.watcher.as_mut() {
            Some(w) => w
                .watch(dir, RecursiveMode::NonRecursive)
                .map_err(|e| watch_error(dir, e)),
            None => Ok(()),
        }
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

/// Retired watchers kept open: closing an inotify instance makes the closing thread wait for
/// the kernel to reap its marks (~15 ms: a jiffy and an SRCU grace period), and a process
/// waits for that thread before it exits, so every `wait` took ~15 ms between printing its
/// outcome and exiting. Left open, the instance is released by the exit itself, off the
/// exiting process's path (measured: hook → `wait` exited p50 15 ms before, 3.6 ms after).
/// Bounded, so a long-lived server (`umbel mcp`, `run`) keeps at most this many around.
const KEPT_OPEN: usize = 4;

static RETIRED: std::sync::Mutex<Vec<notify::RecommendedWatcher>> =
    std::sync::Mutex::new(Vec::new());

impl Drop for FolderWatch {
    fn drop(&mut self) {
        let Some(mut watcher) = self.watcher.take() else {
            return;
        };
        let _ = watcher.unwatch(&self.dir);
        let oldest = match RETIRED.lock() {
            Ok(mut retired) => {
                retired.push(watcher);
                (retired.len() > KEPT_OPEN).then(|| retired.remove(0))
            }
            Err(_) => Some(watcher),
        };
        drop(oldest);
    }
}

/// Whether an event can change what a waiter reads (not an open, a read or a close).
pub(crate) fn is_change(kind: &notify::EventKind) -> bool {
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

pub(crate) fn watch_error(dir: &Path, e: notify::Error) -> Error {
    Error::io("cannot watch", dir, std::io::Error::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inotify_fds() -> usize {
        std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .flatten()
            .filter(|e| {
                std::fs::read_link(e.path()).is_ok_and(|l| l.to_string_lossy().contains("inotify"))
            })
            .count()
    }

    #[test]
    fn retired_watches_stay_open_but_bounded() {
        let dir = tempfile::tempdir().unwrap();
        for _ in 0..20 {
            drop(FolderWatch::new(dir.path()).unwrap());
        }
        // Kept open for a fast exit, never more than KEPT_OPEN (a long-lived server leaks none).
        // The older ones close in their own event-loop threads, a moment after the drop.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while inotify_fds() > KEPT_OPEN && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(inotify_fds() <= KEPT_OPEN, "{} inotify fds", inotify_fds());
        assert!(inotify_fds() >= 1, "the last ones are kept open");
    }

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
