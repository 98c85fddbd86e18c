//! Following a worker's transcript as it grows, record by record, for `-p --output-format
//! stream-json` and `umbel acp`: only what was appended after the tail started (this turn),
//! complete lines only; woken by the transcript's folder changing where inotify can watch it.

use super::Ctx;
use super::worker::Worker;
use crate::adapters::files;
use crate::adapters::watch::FolderWatch;
use crate::core::meta::Meta;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

/// The part of a transcript not read yet.
pub struct TranscriptTail {
    worker: Option<Worker>,
    path: Option<PathBuf>,
    offset: u64,
    /// The transcript's folder, watched once its path is known ([`TranscriptTail::watch`]).
    watch: Option<FolderWatch>,
    partial: Vec<u8>,
}

impl TranscriptTail {
    /// Starts at the transcript's current end (its start when it does not exist yet).
    pub fn start(ctx: &Ctx, meta: &Meta) -> Self {
        let mut tail = TranscriptTail {
            worker: Worker::from_meta(meta.clone()).ok(),
            path: None,
            offset: 0,
            partial: Vec::new(),
            watch: None,
        };
        tail.resolve(ctx);
        if let Some(path) = &tail.path {
            tail.offset = files::len(path);
        }
        tail
    }

    fn resolve(&mut self, ctx: &Ctx) {
        if self.path.is_none() {
            self.path = self.worker.as_ref().and_then(|w| w.transcript_path(ctx));
        }
    }

    /// Watches the transcript's folder, once its path is known; a handle that wakes
    /// [`TranscriptTail::wait_for_change`] (`None` until the path is known).
    pub fn watch(&mut self, ctx: &Ctx) -> Option<Sender<()>> {
        self.watched(ctx).map(FolderWatch::waker)
    }

    /// Waits, at most `timeout`, until the transcript's folder changed (or a waker woke it);
    /// sleeps `timeout` while the folder is not watched.
    pub fn wait_for_change(&mut self, ctx: &Ctx, timeout: Duration) {
        match self.watched(ctx) {
            Some(watch) => {
                watch.wait(timeout);
            }
            None => std::thread::sleep(timeout),
        }
    }

    /// The watch on the transcript's folder, started once its path is known.
    fn watched(&mut self, ctx: &Ctx) -> Option<&FolderWatch> {
        self.resolve(ctx);
        if self.watch.is_none() {
            let dir = self.path.as_deref().and_then(Path::parent)?;
            // A folder that cannot be watched: the waits sleep instead.
            self.watch = FolderWatch::new(dir).ok();
        }
        self.watch.as_ref()
    }

    /// The records appended since the last call; nothing when the file cannot be read yet.
    pub fn poll(&mut self, ctx: &Ctx) -> Vec<Value> {
        self.resolve(ctx);
        let Some(path) = &self.path else {
            return Vec::new();
        };
        let Some(fresh) = files::read_from(path, self.offset) else {
            return Vec::new();
        };
        self.offset += fresh.len() as u64;
        self.partial.extend_from_slice(&fresh);
        let Some(last_newline) = self.partial.iter().rposition(|b| *b == b'\n') else {
            return Vec::new();
        };
        let complete: Vec<u8> = self.partial.drain(..=last_newline).collect();
        String::from_utf8_lossy(&complete)
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }
}
