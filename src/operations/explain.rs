//! `explain`: gathers the evidence behind a worker's state — its events, its pane and screen,
//! its transcript's end — derives the state exactly as `status` does (`status::look_at`,
//! `status::row`), and hands it to `core::explain` to be put in words. `--screen` classifies a
//! saved screen alone. A remote worker is explained by its host's umbel.

use super::Ctx;
use super::remote;
use super::status::{self, Seen};
use super::worker::Worker;
use crate::adapters::files;
use crate::adapters::transcript::ReverseLines;
use crate::core::args::ExplainArgs;
use crate::core::errors::{Error, Result};
use crate::core::events::EXIT_EVENT;
use crate::core::explain::{
    CliFacts, Explanation, TRANSCRIPT_REACH, TranscriptEvidence, next_for_screen, next_for_worker,
    recent_events, screen_evidence, turn_bound,
};
use crate::core::providers::why::read_screen;
use crate::core::providers::{EventClass, Provider};
use crate::core::status::{ListedState, WorkerState, WorkerStatus};
use crate::core::wait::Liveness;
use std::collections::HashMap;
use std::path::Path;

/// The explanation `args` asks for: of a worker, or of a saved screen.
pub fn explain(ctx: &Ctx, args: &ExplainArgs) -> Result<Explanation> {
    let saved = match (&args.screen, &args.screen_text) {
        (Some(_), Some(_)) => {
            return Err(Error::usage(
                "`explain` takes `--screen FILE` or `--screen-text TEXT`, not both",
            ));
        }
        (Some(file), None) => Some(Saved::File(file)),
        (None, Some(text)) => Some(Saved::Text(text)),
        (None, None) => None,
    };
    match (&args.name, saved) {
        (Some(_), Some(_)) => Err(Error::usage(
            "`explain` takes a worker or a saved screen, not both",
        )),
        (None, None) => Err(Error::usage(
            "`explain` needs a worker, or `--screen FILE --provider claude|codex|gemini|qwen|opencode`",
        )),
        (None, Some(saved)) => {
            let provider = args.provider.ok_or_else(|| {
                Error::usage("`explain --screen` needs `--provider` (claude, codex, gemini, qwen or opencode)")
            })?;
            saved_screen(saved, provider, args.version.as_deref())
        }
        (Some(name), None) => {
            if args.provider.is_some() || args.version.is_some() {
                return Err(Error::usage(
                    "`--provider` and `--version` go with `--screen`; a worker's are in its meta",
                ));
            }
            match remote::find(ctx, name)? {
                Some(at) => remote::inspect::explain(ctx, &at),
                None => worker(ctx, &Worker::load(ctx, name)?),
            }
        }
    }
}

/// A saved screen: a file, or its text.
enum Saved<'a> {
    File(&'a Path),
    Text(&'a str),
}

/// How much of a saved screen is read: its end (a screen is a few KiB; a file of any size, or a
/// device, must not make `explain` read or echo all of it).
const SCREEN_MAX: u64 = 256 * 1024;

/// A saved screen, read as `provider` reads a pane: the last [`SCREEN_MAX`] bytes, of a regular
/// file only.
fn saved_screen(saved: Saved, provider: Provider, version: Option<&str>) -> Result<Explanation> {
    let bytes = match saved {
        Saved::File(file) => files::read_regular_tail(file, SCREEN_MAX)
            .map_err(|e| Error::io("cannot read", file, e))?,
        Saved::Text(text) => {
            let start = text.len().saturating_sub(SCREEN_MAX as usize);
            text.as_bytes()[start..].to_vec()
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let screen = screen_evidence(read_screen(provider.module(), &text), "file", &text);
    Ok(Explanation {
        name: None,
        host: None,
        cli: CliFacts::of(provider, None, version.map(str::to_string)),
        state: None,
        shown: None,
        needs_input: None,
        pending_tool: None,
        exit: None,
        derivation: Vec::new(),
        position: None,
        events: Vec::new(),
        transcript: None,
        next: next_for_screen(&screen),
        screen: Some(screen),
    })
}

/// A worker on this machine.
fn worker(ctx: &Ctx, worker: &Worker) -> Result<Explanation> {
    let liveness = worker.liveness(ctx)?;
    let seen = status::look_at(ctx, worker.clone(), liveness)?;
    let screen = screen_of(ctx, worker, &seen.liveness);
    let events = recent_events(&seen.events);
    let (row, state, derivation) = derive(ctx, worker, seen, screen.as_ref());
    let screen = screen.map(|(source, text)| {
        screen_evidence(read_screen(worker.provider(), &text), source, &text)
    });
    let transcript = row
        .transcript_path
        .as_deref()
        .map(|path| transcript(worker, path));
    let meta = &worker.meta;
    Ok(Explanation {
        name: Some(row.name.clone()),
        host: None,
        cli: CliFacts::of(
            meta.provider,
            Some(meta.bin.clone()),
            meta.cli_version.clone(),
        ),
        state: Some(state),
        shown: Some(crate::core::fleet::Shown::word(&row).to_string()),
        next: next_for_worker(
            &row.name,
            state,
            row.needs_input.as_deref(),
            (row.exit.as_ref(), row.resume_with.is_some()),
        ),
        needs_input: row.needs_input,
        pending_tool: row.pending_tool,
        exit: row.exit,
        derivation,
        position: Some(row.position),
        events,
        transcript,
        screen,
    })
}

/// The status row `status NAME` prints, its state, and how it came about: the hooks, then the
/// transcript and the screen where they changed it.
fn derive(
    ctx: &Ctx,
    worker: &Worker,
    seen: Seen,
    screen: Option<&(&'static str, String)>,
) -> (WorkerStatus, WorkerState, Vec<String>) {
    let mut derivation = vec![hooks_step(&seen)];
    if seen.state != seen.hooks_said {
        derivation.push(format!(
            "transcript: the submitted turn ended without a hook → {}",
            seen.state.as_str()
        ));
    }
    let before_screen = seen.state;
    let mut screens = HashMap::new();
    if let Some(("pane", text)) = screen.map(|(s, t)| (*s, t))
        && status::reads_screen(before_screen)
    {
        screens.insert(worker.session().to_string(), text.clone());
    }
    let row = status::row(ctx, seen, &screens);
    let state = match row.state {
        ListedState::Worker(state) => state,
        ListedState::Unreadable(_) => before_screen,
    };
    if state != before_screen
        && let Some((_, text)) = screen
    {
        let rule = read_screen(worker.provider(), text).rule;
        derivation.push(format!("screen: {rule} → {}", state.as_str()));
    }
    (row, state, derivation)
}

/// The worker's screen and where it came from: its pane while it has one (alive, or dead and
/// kept by tmux), else the last screen kept when it died.
fn screen_of(ctx: &Ctx, worker: &Worker, liveness: &Liveness) -> Option<(&'static str, String)> {
    if *liveness != Liveness::Gone
        && let Ok(text) = ctx.tmux.capture(worker.session(), false)
    {
        return Some(("pane", text));
    }
    let kept = ctx.state.read_dead(&worker.name)?.screen?;
    Some(("kept", kept))
}

/// What the hooks alone say, and the event that decided it (as `derive_state` reads them).
fn hooks_step(seen: &Seen) -> String {
    let state = seen.hooks_said.as_str();
    if let Some(exit) = seen.events.iter().find(|e| e.record.kind == EXIT_EVENT) {
        return format!(
            "hooks: the CLI's exit was logged at #{} → {state}",
            exit.record.index
        );
    }
    match &seen.liveness {
        Liveness::Dead(_) => return format!("pane: dead (tmux keeps it) → {state}"),
        Liveness::Gone => return format!("pane: its tmux session is gone → {state}"),
        Liveness::Alive => {}
    }
    if seen.hooks_said == WorkerState::Starting {
        return format!("spawn: startup has not finished (no readyAt) → {state}");
    }
    let decided = seen
        .events
        .iter()
        .rev()
        .find(|e| e.class != EventClass::Other);
    match decided {
        Some(e) => {
            let meaning = crate::core::explain::explain_event(e).meaning.as_str();
            format!(
                "hooks: #{} {} ({meaning}) → {state}",
                e.record.index, e.record.kind
            )
        }
        None => format!("hooks: no event decides yet → {state}"),
    }
}

/// The transcript at `path` and the record that ended or opened its last turn.
fn transcript(worker: &Worker, path: &str) -> TranscriptEvidence {
    let (record, problem) = match ReverseLines::open(Path::new(path)) {
        None => (
            None,
            Some("it cannot be read (not written yet?)".to_string()),
        ),
        Some(mut lines) => match turn_bound(worker.provider(), &mut lines) {
            Some(record) => (Some(record), None),
            None => (
                None,
                Some(format!(
                    "no record ends or opens a turn in its last {TRANSCRIPT_REACH} lines"
                )),
            ),
        },
    };
    TranscriptEvidence {
        path: path.to_string(),
        record,
        problem,
    }
}
