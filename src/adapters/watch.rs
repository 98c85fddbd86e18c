//! Waking up when a folder changes (inotify through `notify`). Callers still re-check the facts
//! on every wake-up and on a slow timer, so a missed event only costs latency.
//!
//! Only changes wake a waiter: files created, written, renamed or removed. Opening, reading and
//! closing a file are inotify events too, and a waiter that woke on them woke on its own reads of
//! the events log, read it again, and so spun (55–80% of a core per `wait`).
//!
//! Out of inotify instances or watches (`fs.inotify.max_user_instances`, 128 by default and
//! shared with every editor of the user; `max_user_watches`), a watch polls instead: the waiter
//! wakes every [`POLL`] and looks, slower but not broken (`doctor` names the limit).

use crate::core::errors::{Error, Result};
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

/// How often a watch that could not get inotify wakes its waiter to look.
const POLL: Duration = Duration::from_millis(100);

/// A live watch on one folder.
pub struct FolderWatch {
    /// `None` when inotify was out of instances or watches (the watch polls), or once dropped
    /// (then retired, see [`KEPT_OPEN`]).
    watcher: Option<notify::RecommendedWatcher>,
    dir: PathBuf,
    rx: Receiver<()>,
    /// Wakes [`FolderWatch::wait`] as a change would ([`FolderWatch::waker`]).
    tx: Sender<()>,
}

impl FolderWatch {
    /// Starts watching `dir` (not recursively); polls when inotify's limits are used up.
    pub fn new(dir: &Path) -> Result<Self> {
        let (tx, rx) = channel();
        let watcher = match watcher_on(dir, tx.clone()) {
            Ok(watcher) => Some(watcher),
            Err(e) if out_of_inotify(&e) => None,
            Err(e) => return Err(watch_error(dir, e)),
        };
        Ok(FolderWatch {
            watcher,
            dir: dir.to_path_buf(),
            rx,
            tx,
        })
    }

    /// A handle that wakes [`FolderWatch::wait`] from another thread, as a change would (a
    /// waiter told to stop looking).
    pub fn waker(&self) -> Sender<()> {
        self.tx.clone()
    }

    /// Watches `dir` as well (not recursively): a change in either wakes [`FolderWatch::wait`].
    /// Out of inotify watches for it, the whole watch polls.
    pub fn also(&mut self, dir: &Path) -> Result<()> {
        let Some(w) = self.watcher.as_mut() else {
            return Ok(());
        };
        match w.watch(dir, RecursiveMode::NonRecursive) {
            Ok(()) => Ok(()),
            Err(e) if out_of_inotify(&e) => {
                self.watcher = None;
                Ok(())
            }
            Err(e) => Err(watch_error(dir, e)),
        }
    }

    /// Whether this watch polls (inotify's limits were used up).
    pub fn polls(&self) -> bool {
        self.watcher.is_none()
    }

    /// Blocks until something changed or `timeout` passed; drains queued wake-ups.
    /// Returns whether anything changed.
    pub fn wait(&self, timeout: Duration) -> bool {
        if self.polls() {
            std::thread::sleep(timeout.min(POLL));
            return true;
        }
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

/// The user's inotify limits as the kernel says them: `fs.inotify.max_user_instances` and
/// `fs.inotify.max_user_watches` (`None` where /proc does not tell).
pub fn inotify_limits() -> (Option<u64>, Option<u64>) {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/fs/inotify/{name}"))
            .ok()
            .and_then(|text| text.trim().parse().ok())
    };
    (read("max_user_instances"), read("max_user_watches"))
}

/// An inotify watcher on `dir` sending a wake-up on every change.
fn watcher_on(
    dir: &Path,
    tx: std::sync::mpsc::Sender<()>,
) -> notify::Result<notify::RecommendedWatcher> {
    if refused_for_a_test() {
        return Err(notify::Error::io(std::io::Error::from_raw_os_error(
            rustix::io::Errno::MFILE.raw_os_error(),
        )));
    }
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|e| is_change(&e.kind)) {
            let _ = tx.send(());
        }
    })?;
    watcher.watch(dir, RecursiveMode::NonRecursive)?;
    Ok(watcher)
}

/// `UMBEL_DEBUG_NO_INOTIFY=1` (debug builds only): every watch is refused as when the user's
/// inotify instances are used up, so a test sees the polling fallback.
fn refused_for_a_test() -> bool {
    cfg!(debug_assertions) && std::env::var_os("UMBEL_DEBUG_NO_INOTIFY").is_some_and(|v| v == "1")
}

/// Whether `e` is inotify's per-user limits used up (instances: EMFILE; watches: ENOSPC;
/// the system's file table: ENFILE), rather than a folder that cannot be watched.
pub(crate) fn out_of_inotify(e: &notify::Error) -> bool {
    use rustix::io::Errno;
    match &e.kind {
        notify::ErrorKind::MaxFilesWatch => true,
        notify::ErrorKind::Io(io) => [Errno::MFILE, Errno::NFILE, Errno::NOSPC]
            .iter()
            .any(|errno| io.raw_os_error() == Some(errno.raw_os_error())),
        _ => false,
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
