//! Waking up when a folder changes (inotify through `notify`). Callers still re-check the facts
//! on every wake-up and on a slow timer, so a missed event only costs latency.

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
                if event.is_ok() {
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
}
