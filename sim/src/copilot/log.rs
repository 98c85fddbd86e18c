//! The session log, `session-state/<id>/events.jsonl`: one event a line, each
//! `{type, data, id, timestamp, parentId}` with `parentId` the line before's `id`
//! (recorded: `copilot-1.0.102-events.jsonl`).
//!
//! Events are made as drafts (`{type, data, timestamp}`) and get their `id` and `parentId`
//! when written, so a draft held back (`late_transcript_ms`) still chains in file order. A
//! session started without `--session-id` keeps its first events until its first prompt, when
//! its folder is made. `-p --output-format json` prints events too ([`Log::echo`]): the
//! persisted kinds in [`ECHOED`] and the ephemeral ones that never reach the file.

use std::path::{Path, PathBuf};

use crate::ids::IdGen;
use crate::json::Obj;
use crate::obj;

/// The persisted kinds `-p --output-format json` prints (recorded: `print-json-tool.jsonl`,
/// `print-json-error.jsonl`; no `session.start`, `hook.*`, `system.message`,
/// `session.usage_record` or `permission.*` there).
pub const ECHOED: &[&str] = &[
    "user.message",
    "assistant.turn_start",
    "assistant.message",
    "tool.execution_start",
    "tool.execution_complete",
    "assistant.turn_end",
    "session.error",
    "abort",
];

/// A session's `events.jsonl`.
#[derive(Debug, Default)]
pub struct Log {
    /// The file.
    pub path: PathBuf,
    /// The last event's id (the next one's `parentId`).
    last: Option<String>,
    /// Events made before the folder exists (written with the first prompt).
    held: Option<Vec<Obj>>,
    /// `-p --output-format json`: events to print, not printed yet.
    pub echo: Option<Vec<Obj>>,
    /// How many events the file holds.
    pub count: usize,
}

/// Where a log stood: what [`Log::rewind`] takes it back to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mark {
    /// Events in the file.
    count: usize,
    /// Events held while the folder waits.
    held: usize,
    /// The last event's id.
    last: Option<String>,
}

/// A draft event: kind, data, ISO timestamp.
pub fn draft(kind: &str, data: Obj, timestamp: String) -> Obj {
    obj! { "type" => kind, "data" => data, "timestamp" => timestamp }
}

impl Log {
    /// The log at `path`; `hold`: its folder waits for the first prompt.
    pub fn new(path: PathBuf, hold: bool) -> Log {
        Log {
            path,
            held: hold.then(Vec::new),
            ..Log::default()
        }
    }

    /// The log of a session that goes on: its last event's id and its size.
    pub fn reopen(path: PathBuf) -> Result<Log, String> {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let last = text.lines().rev().find_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            v.get("id")?.as_str().map(str::to_string)
        });
        Ok(Log {
            count: text.lines().count(),
            path,
            last,
            ..Log::default()
        })
    }

    /// The session's folder is made: the held events go in.
    pub fn open(&mut self, fatal: &mut Option<String>) {
        if let Some(held) = self.held.take() {
            held.iter().for_each(|e| self.append(e, fatal));
        }
    }

    /// Writes `draft` with its `id` and `parentId` (held while the folder waits), and queues
    /// it for printing when it is a kind `-p` json prints.
    pub fn write(&mut self, ids: &mut IdGen, draft: &Obj, fatal: &mut Option<String>) {
        let id = ids.uuid();
        let event = obj! {
            "type" => draft.str("type"),
            "data" => draft.0.get("data").cloned(),
            "id" => id.as_str(),
            "timestamp" => draft.str("timestamp"),
            "parentId" => self.last.replace(id.clone()),
        };
        if let Some(echo) = self.echo.as_mut()
            && ECHOED.contains(&event.str("type").as_str())
        {
            echo.push(event.clone());
        }
        match self.held.as_mut() {
            Some(held) => held.push(event),
            None => self.append(&event, fatal),
        }
    }

    /// An ephemeral event: printed by `-p --output-format json`, never written.
    pub fn ephemeral(&mut self, ids: &mut IdGen, kind: &str, data: Obj, timestamp: String) {
        let Some(echo) = self.echo.as_mut() else {
            return;
        };
        echo.push(obj! {
            "type" => kind,
            "data" => data,
            "ephemeral" => true,
            "id" => ids.uuid(),
            "timestamp" => timestamp,
            "parentId" => self.last.clone(),
        });
    }

    fn append(&mut self, event: &Obj, fatal: &mut Option<String>) {
        if crate::engine::host::append(&self.path, event, fatal) {
            self.count += 1;
        }
    }

    /// Where the log stands now.
    pub fn mark(&self) -> Mark {
        Mark {
            count: self.count,
            held: self.held.as_ref().map_or(0, Vec::len),
            last: self.last.clone(),
        }
    }

    /// Takes the log back to `mark`: the file is rewritten with the events it held then, every
    /// later one dropped, and the next event chains to the last one kept. Returns the kinds of
    /// the events dropped, in file order.
    pub fn rewind(&mut self, mark: &Mark, fatal: &mut Option<String>) -> Vec<String> {
        let kind = |e: &serde_json::Value| e["type"].as_str().unwrap_or("").to_string();
        let mut dropped = Vec::new();
        if self.count > mark.count {
            match std::fs::read_to_string(&self.path) {
                Ok(text) => {
                    let lines: Vec<&str> = text.lines().collect();
                    let (kept, gone) = lines.split_at(mark.count.min(lines.len()));
                    dropped.extend(
                        gone.iter()
                            .filter_map(|l| serde_json::from_str(l).ok())
                            .map(|e| kind(&e)),
                    );
                    let body: String = kept.iter().map(|l| format!("{l}\n")).collect();
                    if let Err(e) = std::fs::write(&self.path, body) {
                        fatal.get_or_insert(format!("cannot write {}: {e}", self.path.display()));
                    }
                }
                Err(e) => {
                    fatal.get_or_insert(format!("cannot read {}: {e}", self.path.display()));
                }
            }
            self.count = mark.count;
        }
        if let Some(held) = self.held.as_mut() {
            let gone = held.split_off(mark.held.min(held.len()));
            dropped.extend(gone.iter().map(|e| e.str("type")));
        }
        self.last = mark.last.clone();
        dropped
    }

    /// The events to print since the last look.
    pub fn take_echo(&mut self) -> Vec<Obj> {
        self.echo.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The file's size in bytes (0 when it is not there).
    pub fn size(&self) -> u64 {
        std::fs::metadata(Path::new(&self.path)).map_or(0, |m| m.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_events_chain_and_reach_the_file_when_it_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s/events.jsonl");
        let mut log = Log::new(path.clone(), true);
        let (mut ids, mut fatal) = (IdGen::new(1, "s"), None);
        log.write(&mut ids, &draft("a", Obj::new(), "t1".into()), &mut fatal);
        assert!(!path.exists());
        log.open(&mut fatal);
        log.write(&mut ids, &draft("b", Obj::new(), "t2".into()), &mut fatal);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[1]["parentId"], lines[0]["id"]);
        assert_eq!(lines[0]["parentId"], serde_json::Value::Null);
        let again = Log::reopen(path).unwrap();
        assert_eq!(again.count, 2);
        assert_eq!(again.last.as_deref(), lines[1]["id"].as_str());
    }

    #[test]
    fn rewind_drops_the_events_after_the_mark_and_chains_on_from_the_last_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s/events.jsonl");
        let mut log = Log::new(path.clone(), true);
        let (mut ids, mut fatal) = (IdGen::new(1, "s"), None);
        let mut put = |log: &mut Log, kind: &str| {
            log.write(&mut ids, &draft(kind, Obj::new(), "t".into()), &mut fatal);
        };
        put(&mut log, "session.start");
        let held = log.mark();
        put(&mut log, "held.gone");
        assert_eq!(log.rewind(&held, &mut None), ["held.gone"]);
        log.open(&mut None);
        let mark = log.mark();
        put(&mut log, "user.message");
        put(&mut log, "assistant.turn_start");
        let gone = log.rewind(&mark, &mut None);
        assert_eq!(gone, ["user.message", "assistant.turn_start"]);
        assert_eq!(log.count, 1);
        put(&mut log, "user.message");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["session.start", "user.message"]);
        assert_eq!(lines[1]["parentId"], lines[0]["id"]);
        assert!(fatal.is_none());
    }
}
