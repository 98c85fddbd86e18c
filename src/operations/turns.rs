//! `read --turn/--all/--since-turn`, `actions` and `diff`: verbs that look at the whole
//! conversation, parsed from the worker's transcript, streamed oldest first, by
//! [`crate::core::turns::TurnReader`].

use super::Ctx;
use super::worker::{TRANSCRIPT_LAG, Worker};
use crate::adapters::transcript::ForwardLines;
use crate::core::args::{ActionsArgs, DiffArgs, ReadArgs};
use crate::core::diff::{AnswerDiff, diff_answers};
use crate::core::errors::{Error, Result};
use crate::core::providers::{EventClass, ProviderModule};
use crate::core::status::transcript_start;
use crate::core::turns::{ToolAction, Turn, TurnReader};
use crate::core::wait::ClassifiedEvent;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::{Duration, Instant};

/// Which turns `read` was asked for; `None` when no turn flag was given (the last answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    One(usize),
    All,
    Since(usize),
}

/// The turn flags of `read`, checked for conflicts (MCP and YAML callers bypass clap's).
pub fn selection(args: &ReadArgs) -> Result<Option<Selection>> {
    let given = [args.turn.is_some(), args.all, args.since_turn.is_some()];
    if given.iter().filter(|g| **g).count() > 1 {
        return Err(Error::usage(
            "`--turn`, `--all` and `--since-turn` exclude each other; give one",
        ));
    }
    Ok(match (args.turn, args.all, args.since_turn) {
        (Some(n), _, _) => Some(Selection::One(n)),
        (_, true, _) => Some(Selection::All),
        (_, _, Some(n)) => Some(Selection::Since(n)),
        _ => None,
    })
}

/// The turns of the worker's current transcript, oldest first: every turn, or (with `limit`) the
/// first `limit` only, read no further than their end. The CLI may write a turn's last records
/// after its end-of-turn hook (claude does, a few hundred ms later): a last turn the transcript
/// does not finish yet takes the answer the hook carried, as plain `read` does.
pub fn turns_of(ctx: &Ctx, worker: &Worker, limit: Option<usize>) -> Result<Vec<Turn>> {
    // There is no turn 0: its error names how many there are, which takes reading them all.
    let limit = limit.filter(|n| *n > 0);
    let (ended, last_ended) = ended_turns(ctx, worker)?;
    let deadline = Instant::now() + TRANSCRIPT_LAG;
    let streamed = loop {
        let streamed = match worker.transcript_path(ctx) {
            Some(path) => stream_turns(worker.provider(), &path, limit)?,
            None => Streamed::default(),
        };
        // The hooks say more turns ended than the transcript holds, or that the last one ended
        // though the transcript has no answer for it: the CLI has not written it yet (claude
        // writes the turn a moment after its Stop hook, qwen 0.23 the answer up to ~1.5 s
        // after). Give it that moment.
        let unanswered = last_ended && streamed.turns.last().is_some_and(|t| !t.ended);
        let lagging = !streamed.stopped_early && (streamed.turns.len() < ended || unanswered);
        if !lagging || Instant::now() >= deadline {
            break streamed;
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    let mut turns = streamed.turns;
    if !streamed.stopped_early
        && let Some(last) = turns.last_mut().filter(|t| !t.ended)
        && let Ok(answer) = worker.answer(ctx)
        && answer.source == "hook"
    {
        last.answer = Some(answer.text);
        last.ended = true;
        last.is_error = answer.is_error;
    }
    Ok(turns)
}

/// How many turns the hooks say ended normally in the current transcript
/// ([`transcript_start`]), and whether the newest turn event is a normal end (not a submit, not
/// a failure).
fn ended_turns(ctx: &Ctx, worker: &Worker) -> Result<(usize, bool)> {
    let provider = worker.provider();
    let events: Vec<ClassifiedEvent> = (ctx.state.read_log(&worker.name)?.into_iter())
        .map(|record| {
            let class = provider.class_of(&record.kind, None);
            ClassifiedEvent { record, class }
        })
        .collect();
    let last_ended = EventClass::last_turn_ended(events.iter().map(|e| &e.class));
    let count = events[transcript_start(&events)..]
        .iter()
        .filter(|e| e.class == EventClass::TurnEnded)
        .count();
    Ok((count, last_ended))
}

/// What streaming a transcript gave.
#[derive(Debug, Default)]
struct Streamed {
    turns: Vec<Turn>,
    /// The turns asked for were complete before the end of the file (so the last turn read is
    /// not the conversation's last).
    stopped_early: bool,
    /// Bytes read from the file.
    #[cfg(test)]
    bytes_read: u64,
}

/// Streams the transcript at `path`, oldest line first, through a [`TurnReader`].
fn stream_turns(
    provider: &dyn ProviderModule,
    path: &Path,
    limit: Option<usize>,
) -> Result<Streamed> {
    let mut lines = ForwardLines::open(path)?;
    let mut reader = TurnReader::new(provider, limit);
    let mut stopped_early = false;
    while let Some(line) = lines.next_line()? {
        if !reader.push(line) {
            stopped_early = true;
            break;
        }
    }
    Ok(Streamed {
        turns: reader.finish(),
        stopped_early,
        #[cfg(test)]
        bytes_read: lines.bytes_read(),
    })
}

/// A worker that was never prompted (or whose transcript is not written yet).
fn no_turns(worker: &Worker) -> Error {
    Error::NoAnswer {
        name: worker.name.to_string(),
    }
}

/// Turn `number` (1-based) or the typed error naming `flag`.
fn pick<'a>(turns: &'a [Turn], number: usize, flag: &'static str, name: &str) -> Result<&'a Turn> {
    number
        .checked_sub(1)
        .and_then(|i| turns.get(i))
        .ok_or_else(|| Error::TurnOutOfRange {
            flag,
            number,
            name: name.to_string(),
            turns: turns.len(),
        })
}

/// The turns `read` selected.
pub fn read_turns(ctx: &Ctx, worker: &Worker, selection: Selection) -> Result<Vec<Turn>> {
    let limit = match selection {
        Selection::One(n) => Some(n),
        Selection::All | Selection::Since(_) => None,
    };
    let turns = turns_of(ctx, worker, limit)?;
    let name = worker.name.as_str();
    Ok(match selection {
        Selection::One(n) => vec![pick(&turns, n, "--turn", name)?.clone()],
        Selection::All => turns,
        Selection::Since(n) if n > turns.len() => {
            return Err(Error::TurnOutOfRange {
                flag: "--since-turn",
                number: n,
                name: name.to_string(),
                turns: turns.len(),
            });
        }
        Selection::Since(n) => turns.into_iter().skip(n).collect(),
    })
}

/// What `actions` reports.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnActions {
    pub name: String,
    pub turn: usize,
    pub prompt: Option<String>,
    pub ended: bool,
    pub actions: Vec<ToolAction>,
}

/// The tools of the last turn (running or not), or of `--turn N`.
pub fn actions(ctx: &Ctx, worker: &Worker, args: &ActionsArgs) -> Result<TurnActions> {
    let turns = turns_of(ctx, worker, args.turn)?;
    if turns.is_empty() && args.turn.is_none() {
        return Err(no_turns(worker));
    }
    let number = args.turn.unwrap_or(turns.len());
    let turn = pick(&turns, number, "--turn", worker.name.as_str())?;
    Ok(TurnActions {
        name: worker.name.to_string(),
        turn: turn.turn,
        prompt: turn.prompt.clone(),
        ended: turn.ended,
        actions: turn.actions.clone(),
    })
}

/// What `diff` reports.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnDiff {
    pub name: String,
    pub from: usize,
    pub to: usize,
    #[serde(flatten)]
    pub diff: AnswerDiff,
}

/// The unified diff of two turns' answers (default: the one before the last, and the last).
pub fn diff(ctx: &Ctx, worker: &Worker, args: &DiffArgs) -> Result<TurnDiff> {
    let name = worker.name.as_str();
    // Both turns given: read no further than the later one.
    let limit = match (args.from, args.to) {
        (Some(0), _) => None,
        (from, to) => to.map(|to| to.max(from.unwrap_or(0))),
    };
    let turns = turns_of(ctx, worker, limit)?;
    if turns.is_empty() && args.to.is_none() {
        return Err(no_turns(worker));
    }
    let to = args.to.unwrap_or(turns.len());
    let to_turn = pick(&turns, to, "--to", name)?;
    let from = match args.from {
        Some(n) => n,
        None if to > 1 => to - 1,
        None => {
            return Err(Error::usage(format!(
                "worker `{name}` has no turn before turn {to} to compare with; give `--from`"
            )));
        }
    };
    let from_turn = pick(&turns, from, "--from", name)?;
    let text = |t: &Turn| t.answer.clone().unwrap_or_default();
    Ok(TurnDiff {
        name: name.to_string(),
        from,
        to,
        diff: diff_answers(&text(from_turn), &text(to_turn), from, to),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::providers::Provider;
    use crate::core::test_data::CLAUDE_SESSION;

    /// A long claude transcript (the recorded session 40 times, 6 MB) in a temp folder.
    fn long_transcript() -> (tempfile::TempDir, std::path::PathBuf, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.jsonl");
        let text = CLAUDE_SESSION.repeat(40);
        std::fs::write(&path, &text).unwrap();
        (dir, path, text)
    }

    #[test]
    fn the_first_turn_reads_only_the_first_turns_bytes() {
        let (_dir, path, text) = long_transcript();
        let claude = Provider::Claude.module();
        let all = stream_turns(claude, &path, None).unwrap();
        assert!(!all.stopped_early);
        assert_eq!(all.bytes_read, text.len() as u64);
        assert_eq!(all.turns.len(), 200);
        let first = stream_turns(claude, &path, Some(1)).unwrap();
        assert!(first.stopped_early);
        assert_eq!(first.turns, all.turns[..1]);
        // Turn 1 ends where turn 2's prompt starts; one read-ahead buffer more at most.
        let turn_two = text.find("Please RUN_TOOL now").unwrap() as u64;
        let read_ahead = 64 * 1024;
        assert!(
            first.bytes_read <= turn_two + read_ahead,
            "read {} bytes of {}",
            first.bytes_read,
            text.len()
        );
    }

    #[test]
    fn a_missing_transcript_has_no_turns() {
        let dir = tempfile::tempdir().unwrap();
        let none = stream_turns(Provider::Codex.module(), &dir.path().join("gone"), None).unwrap();
        assert!(none.turns.is_empty() && none.bytes_read == 0);
    }
}
