//! `top`'s look at the fleet: `status` for every worker, plus when its last turn ran, a line
//! of what it is doing or answered, and its session's tokens and cost. A [`Fleet`] remembers
//! what it read, so a look re-reads a worker's log, answer and transcript only when they grew.

use super::Ctx;
use super::remote::anywhere::last_answer;
use super::remote::fleet::status_everywhere;
use super::wait::tool_name;
use super::worker::{Answer, Worker};
use crate::core::args::StatusArgs;
use crate::core::duration::whole_seconds;
use crate::core::errors::Result;
use crate::core::fleet::{Shown, TurnSpan, Usage, attention_order};
use crate::core::providers::{EventClass, Provider};
use crate::core::status::WorkerStatus;
use crate::core::turn_progress::phase;
use crate::core::usage_tally::UsageTally;
use std::collections::HashMap;
use std::path::PathBuf;

/// One worker as `top` shows it.
#[derive(Debug, Clone)]
pub struct FleetRow {
    pub status: WorkerStatus,
    pub shown: Shown,
    pub turn: TurnSpan,
    /// What it is doing (working), why it waits (needs-input), the last line of its answer
    /// (done), how it ended (dead).
    pub line: String,
    /// The session's tokens and cost, when its transcript records them.
    pub usage: Option<Usage>,
}

/// What was read of one worker at one log position.
#[derive(Debug, Clone)]
struct Read {
    provider: Option<Provider>,
    position: usize,
    state: &'static str,
    turn: TurnSpan,
    line: String,
}

/// The fleet as last looked at.
#[derive(Debug, Default)]
pub struct Fleet {
    read: HashMap<String, Read>,
    /// Session usage per transcript, added up as it grows.
    usage: HashMap<PathBuf, UsageTally>,
}

impl Fleet {
    /// Every worker, what needs a person first.
    pub fn look(&mut self, ctx: &Ctx) -> Result<Vec<FleetRow>> {
        let list = status_everywhere(ctx, &StatusArgs::default())?;
        self.read
            .retain(|name, _| list.iter().any(|s| &s.name == name));
        let mut rows: Vec<FleetRow> = list
            .into_iter()
            .map(|status| self.row(ctx, status))
            .collect();
        // Transcripts of workers no longer listed are forgotten.
        let listed: Vec<&str> = rows
            .iter()
            .filter_map(|r| r.status.transcript_path.as_deref())
            .collect();
        self.usage
            .retain(|path, _| listed.iter().any(|l| std::path::Path::new(l) == path));
        rows.sort_by(|a, b| {
            attention_order(
                (a.shown, a.turn.started_ms, &a.status.name),
                (b.shown, b.turn.started_ms, &b.status.name),
            )
        });
        Ok(rows)
    }

    fn row(&mut self, ctx: &Ctx, status: WorkerStatus) -> FleetRow {
        let state = status.state.as_str();
        let fresh = self
            .read
            .get(&status.name)
            .filter(|r| r.position == status.position && r.state == state)
            .cloned();
        let read = match fresh {
            Some(read) => read,
            None => {
                let read = read_worker(ctx, &status);
                self.read.insert(status.name.clone(), read.clone());
                read
            }
        };
        let usage = match (read.provider, status.transcript_path.as_deref()) {
            (Some(provider), Some(path)) => self.usage_of(provider, PathBuf::from(path)),
            _ => None,
        };
        FleetRow {
            shown: Shown::of(&status, &read.turn),
            turn: read.turn,
            line: read.line,
            usage,
            status,
        }
    }

    /// The session usage of a transcript, reading only what was appended since the last look
    /// (a transcript that shrank, rewritten, is read anew).
    fn usage_of(&mut self, provider: Provider, path: PathBuf) -> Option<Usage> {
        let tally = self
            .usage
            .entry(path.clone())
            .or_insert_with(|| UsageTally::new(provider));
        super::budget::follow(tally, provider, &path)
    }
}

/// The turn and the line of a worker whose log is at `status.position`.
fn read_worker(ctx: &Ctx, status: &WorkerStatus) -> Read {
    let mut read = Read {
        provider: None,
        position: status.position,
        state: status.state.as_str(),
        // As `status` read it from the same log (here or on the worker's host).
        turn: TurnSpan::of_status(status),
        line: String::new(),
    };
    if let Some(host) = &status.host {
        read.line = remote_line(ctx, status, host, &read.turn);
        return read;
    }
    let Ok(worker) = Worker::load(ctx, &status.name) else {
        read.line = status.problem.clone().unwrap_or_default();
        return read;
    };
    read.provider = Some(worker.meta.provider);
    read.line = match Shown::of(status, &read.turn) {
        Shown::Working => {
            // Classified by event name alone: payloads are read only for the line.
            let events = worker.events(ctx, usize::MAX).unwrap_or_default();
            let from = events
                .iter()
                .rev()
                .find(|e| e.class == EventClass::Submitted)
                .map_or(0, |e| e.record.index);
            phase(&events, from, |r| tool_name(ctx, &worker, r)).label()
        }
        Shown::NeedsInput => waiting_line(status),
        Shown::Done => worker
            .answer(ctx)
            .map(|a| answer_line(&a))
            .unwrap_or_default(),
        Shown::Dead => match (&status.exit, ctx.state.read_dead(&worker.name)) {
            (_, Some(dead)) if dead.by.as_deref() == Some("kill") => {
                "killed by `umbel kill`".into()
            }
            (Some(exit), _) => exit.describe(),
            (None, _) => "ended without a recorded status".into(),
        },
        Shown::Idle | Shown::Starting => idle_line(status, crate::adapters::host::now_ms()),
        Shown::Parked => parked_line(status, crate::adapters::host::now_ms()),
        Shown::Corrupt | Shown::Unreachable => status.problem.clone().unwrap_or_default(),
    };
    read
}

/// The line of a worker on another host, from what its host's `status` said, and for a
/// finished turn its answer's last line, read there (once a turn: rows are read again only
/// when their log moved).
fn remote_line(ctx: &Ctx, status: &WorkerStatus, host: &str, turn: &TurnSpan) -> String {
    if let Some(problem) = &status.problem {
        return problem.clone();
    }
    match Shown::of(status, turn) {
        Shown::NeedsInput => waiting_line(status),
        Shown::Dead => status
            .exit
            .as_ref()
            .map_or_else(|| "ended".to_string(), |exit| exit.describe()),
        Shown::Corrupt | Shown::Unreachable => status.problem.clone().unwrap_or_default(),
        Shown::Working => format!("working on {host}"),
        Shown::Done => last_answer(ctx, &status.name)
            .map(|a| answer_line(&a))
            .unwrap_or_else(|_| status.cwd.clone()),
        Shown::Idle | Shown::Starting => status.cwd.clone(),
        Shown::Parked => parked_line(status, crate::adapters::host::now_ms()),
    }
}

/// An idle worker's line: its folder, or for a warm one (`-p --warm`) that it waits for the
/// next `-p` of its launch and how long it still does, so it is not taken for a forgotten worker.
fn idle_line(status: &WorkerStatus, now_ms: u64) -> String {
    let Some(warm) = &status.warm else {
        return status.cwd.clone();
    };
    let left = whole_seconds(warm.expires_at.saturating_sub(now_ms));
    format!("warm: waits for the next `-p` ({left} left)")
}

/// A parked worker's line at `now_ms`: for how long, and that the next prompt resumes it.
fn parked_line(status: &WorkerStatus, now_ms: u64) -> String {
    let since = status.parked_at.map_or(String::new(), |at| {
        format!(" for {}", whole_seconds(now_ms.saturating_sub(at)))
    });
    format!("parked{since}; the next send resumes it")
}

/// Why a worker waits: the reason, and the pending tool with its first argument.
fn waiting_line(status: &WorkerStatus) -> String {
    let reason = status.needs_input.as_deref().unwrap_or("input");
    let Some(tool) = &status.pending_tool else {
        return reason.to_string();
    };
    let name = tool["name"].as_str().unwrap_or("tool");
    let argument = tool["input"]
        .as_object()
        .and_then(|input| input.values().find_map(|v| v.as_str()))
        .unwrap_or("");
    format!("{reason}: {name} {argument}")
        .trim_end()
        .to_string()
}

/// A finished turn's line: its answer's last line, or why there is none.
pub fn answer_line(answer: &Answer) -> String {
    match (answer.interrupted, last_line(&answer.text)) {
        (true, _) => "interrupted: no answer".to_string(),
        (false, line) if line.is_empty() => "(an empty answer)".to_string(),
        (false, line) => line,
    }
}

/// The last non-empty line of a text, trimmed.
fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::files;

    #[test]
    fn the_line_of_a_waiting_worker_names_its_tool() {
        let mut status = crate::core::fleet::sample_status("w", "ready");
        status.needs_input = Some("permission".into());
        assert_eq!(waiting_line(&status), "permission");
        status.pending_tool =
            Some(serde_json::json!({"name": "Bash", "input": {"command": "echo hi"}}));
        assert_eq!(waiting_line(&status), "permission: Bash echo hi");
    }

    /// Each look adds what the transcript gained (a half-written last line waits for its end)
    /// and gives the whole session's usage.
    #[test]
    fn a_growing_transcript_is_added_up_as_it_grows() {
        use crate::core::test_data::CLAUDE_SESSION;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.jsonl");
        let lines: Vec<&str> = CLAUDE_SESSION.lines().collect();
        let half = lines.len() / 2;
        let mut fleet = Fleet::default();
        let mut written = lines[..half].join("\n") + "\n";
        let torn = &lines[half][..lines[half].len() / 2];
        files::write_private(&path, &format!("{written}{torn}")).expect("write");
        let early = fleet.usage_of(Provider::Claude, path.clone());
        assert_eq!(
            early,
            Usage::of_lines(Provider::Claude, lines[..half].iter().copied())
        );
        written = lines.join("\n") + "\n";
        files::write_private(&path, &written).expect("write");
        let whole = Usage::of_lines(Provider::Claude, lines.iter().copied());
        assert_ne!(early, whole, "the second half adds tokens");
        assert_eq!(fleet.usage_of(Provider::Claude, path), whole);
    }

    #[test]
    fn a_parked_workers_line_says_for_how_long() {
        let mut status = crate::core::fleet::sample_status("p", "parked");
        assert_eq!(parked_line(&status, 0), "parked; the next send resumes it");
        status.parked_at = Some(1_000);
        assert_eq!(
            parked_line(&status, 1_000 + 25 * 60_000 + 3_000),
            "parked for 25m 3s; the next send resumes it"
        );
    }

    #[test]
    fn a_warm_workers_line_says_it_waits_for_a_print_and_how_long() {
        let mut status = crate::core::fleet::sample_status("warm-1", "ready");
        status.cwd = "/work".into();
        assert_eq!(idle_line(&status, 0), "/work");
        status.warm = Some(crate::core::status::WarmStatus {
            ready_at: 0,
            expires_at: 600_000,
        });
        assert_eq!(
            idle_line(&status, 2_000),
            "warm: waits for the next `-p` (9m 58s left)"
        );
    }

    #[test]
    fn an_interrupted_or_empty_answer_says_so_instead_of_a_blank_line() {
        let answer = |text: &str, interrupted: bool| Answer {
            name: "w".into(),
            provider: "claude".into(),
            text: text.into(),
            source: "transcript",
            is_error: interrupted,
            session_id: String::new(),
            transcript_path: None,
            structured_output: None,
            interrupted,
            partial_text: None,
        };
        assert_eq!(answer_line(&answer("", true)), "interrupted: no answer");
        assert_eq!(answer_line(&answer("  \n", false)), "(an empty answer)");
        assert_eq!(answer_line(&answer("a\nAll done.\n", false)), "All done.");
    }

    #[test]
    fn the_last_line_skips_trailing_blank_lines() {
        assert_eq!(last_line("first\n  All done.  \n\n"), "All done.");
        assert_eq!(last_line(""), "");
    }
}
