//! `status` and `ls`: what each worker is doing, from its meta, its events and one tmux
//! round-trip for the whole fleet.

use super::Ctx;
use super::send::SENT_FILE;
use super::worker::Worker;
use crate::adapters::tmux::Pane;
use crate::core::args::StatusArgs;
use crate::core::errors::{Error, Result};
use crate::core::events::unreadable_lines;
use crate::core::fleet::TurnSpan;
use crate::core::name::WorkerName;
use crate::core::providers::{payload_session_id, str_field};
use crate::core::status::{
    ListedState, Unreadable, WarmStatus, WorkerState, WorkerStatus, derive_state, screen_reason,
    turn_origin,
};
use crate::core::wait::{ClassifiedEvent, Liveness, end};
use std::collections::HashMap;

/// What a worker's pane says that no hook does: it waits for a person (the reason) — a
/// dialog, a sign-in screen, a modal over an idle prompt — or, when busy, it dropped the turn
/// and is back at its prompt (`Ready`).
pub fn screen_says(
    worker: &Worker,
    events: &[ClassifiedEvent],
    state: WorkerState,
    screen: &str,
) -> Option<(WorkerState, Option<&'static str>)> {
    if state == WorkerState::Busy && worker.prompt_put_back(events, screen) {
        return Some((WorkerState::Ready, None));
    }
    let reason = screen_reason(&worker.provider().startup_screen(screen))?;
    Some((WorkerState::NeedsInput, Some(reason)))
}

/// The status of one worker, or of all.
pub fn status(ctx: &Ctx, args: &StatusArgs) -> Result<Vec<WorkerStatus>> {
    let names = match &args.name {
        Some(raw) => vec![WorkerName::parse(raw)?],
        None => ctx.state.list()?,
    };
    let panes = ctx.tmux.panes()?;
    let mut found = Vec::new();
    let mut rows = Vec::new();
    for name in names {
        match look(ctx, &name, &panes) {
            Ok(seen) => found.push(seen),
            // One unreadable meta.json must not hide the worker, nor the rest of the fleet.
            Err(Error::Corrupt { path, message }) => {
                let alive = panes
                    .get(&name.tmux_session())
                    .is_some_and(|p| p.liveness == Liveness::Alive);
                rows.push(corrupt_row(ctx, &name, &path, &message, alive));
            }
            Err(e) if args.name.is_some() => return Err(e),
            Err(_) => continue,
        }
    }
    // No hook says a modal opened over an idle prompt, the CLI fell back to its sign-in screen
    // or a dialog mid-turn, or dropped the turn (claude, Esc before any answer): only the pane
    // does. One tmux call reads the screens of every ready or busy worker.
    let looked: Vec<&str> = found
        .iter()
        .filter(|seen| reads_screen(seen.state))
        .map(|seen| seen.worker.session())
        .collect();
    let screens = ctx.tmux.capture_many(&looked)?;
    rows.extend(found.into_iter().map(|seen| row(ctx, seen, &screens)));
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(rows)
}

/// One worker as its hooks and its pane say it is.
pub struct Seen {
    pub worker: Worker,
    /// The end of its event log (back to its last turn's start), the payloads of the newest
    /// [`super::worker::RECENT`] read.
    pub events: Vec<ClassifiedEvent>,
    pub liveness: Liveness,
    /// What its hooks alone say (`derive_state`).
    pub hooks_said: WorkerState,
    /// The state before its screen is read: the hooks', unless the transcript ended the turn.
    pub state: WorkerState,
    input: Option<(&'static str, Option<serde_json::Value>)>,
}

/// Loads `name` and derives its state from its recent events and its pane.
pub fn look(ctx: &Ctx, name: &WorkerName, panes: &HashMap<String, Pane>) -> Result<Seen> {
    let worker = Worker::load(ctx, name.as_str())?;
    let liveness = panes
        .get(worker.session())
        .map_or(Liveness::Gone, |p| p.liveness.clone());
    look_at(ctx, worker, liveness)
}

/// Derives a loaded worker's state from its recent events and its pane's `liveness`, as
/// `status` does before it reads the screen.
pub fn look_at(ctx: &Ctx, worker: Worker, liveness: Liveness) -> Result<Seen> {
    let events = worker.recent_events(ctx)?;
    let (hooks_said, input) = derive_state(&worker.meta, &events, &liveness);
    let mut state = hooks_said;
    if state == WorkerState::Busy && worker.ended_in_transcript(ctx, &events, 0).is_some() {
        state = WorkerState::Ready;
    }
    Ok(Seen {
        worker,
        events,
        liveness,
        hooks_said,
        state,
        input,
    })
}

/// Whether `status` reads the screen of a worker in `state` (a ready or busy one: no hook
/// reports a dialog over an idle prompt, a sign-in screen or a dropped turn).
pub fn reads_screen(state: WorkerState) -> bool {
    matches!(state, WorkerState::Ready | WorkerState::Busy)
}

/// The status row of a worker, its screen (if read) taken into account.
// long: one line per field of the row, each read where it lives
pub fn row(ctx: &Ctx, seen: Seen, screens: &HashMap<String, String>) -> WorkerStatus {
    let Seen {
        worker,
        events,
        liveness,
        mut state,
        mut input,
        ..
    } = seen;
    if let Some(screen) = screens.get(worker.session())
        && state == WorkerState::Busy
        && worker.ended_past_lost_hooks(ctx, &events, screen)
    {
        state = WorkerState::Ready;
    } else if let Some(screen) = screens.get(worker.session())
        && let Some((seen, reason)) = screen_says(&worker, &events, state, screen)
    {
        state = seen;
        input = reason.map(|r| (r, None));
    }
    let (parked_at, resume_with) = park_facts(ctx, &worker, &events, &mut state);
    let exit = exit_of(ctx, &worker.name, &liveness);
    let last_event_at = events.last().map(|e| (e.record.at_ns / 1_000_000) as u64);
    let turn = TurnSpan::of(&events);
    let (needs_input, pending_tool) = match input {
        Some((reason, tool)) => (Some(reason.to_string()), tool),
        None => (None, None),
    };
    let approval_id = (state == WorkerState::NeedsInput)
        .then(|| crate::core::approvals::pending(&events).map(|a| a.id()))
        .flatten();
    let (session_id, transcript) = own_ids(ctx, &worker, &events);
    let worktree = worker
        .meta
        .worktree
        .as_ref()
        .map(|wt| super::worktree::look(ctx, wt));
    let budget = super::budget::state(ctx, &worker);
    let meta = worker.meta;
    WorkerStatus {
        name: meta.name,
        host: None,
        provider: meta.provider.as_str().to_string(),
        model: meta.model,
        state: state.into(),
        problem: None,
        degraded: degraded(&events),
        needs_input,
        pending_tool,
        approval_id,
        cwd: meta.cwd.to_string_lossy().into_owned(),
        created_at: meta.created_at,
        last_event_at,
        turn_started_at: turn.started_ms,
        turn_ended_at: turn.ended_ms,
        origin: (state == WorkerState::Busy)
            .then(|| turn_origin(&events, ctx.state.read_json(&worker.name, SENT_FILE)))
            .flatten()
            .map(str::to_string),
        position: end(&events),
        exit,
        session_id: session_id.unwrap_or(meta.session_id),
        transcript_path: transcript.or_else(|| {
            meta.transcript_path
                .map(|p| p.to_string_lossy().into_owned())
        }),
        parked_at,
        resume_with,
        warm: warm_of(ctx, &worker.name),
        worktree,
        budget,
    }
}

/// When a parked worker was parked, and the command that brings back a dead one that can be
/// resumed; a worker killed while parked is dead (its tombstone says so).
fn park_facts(
    ctx: &Ctx,
    worker: &Worker,
    events: &[ClassifiedEvent],
    state: &mut WorkerState,
) -> (Option<u64>, Option<String>) {
    if *state == WorkerState::Parked && ctx.state.read_dead(&worker.name).is_some() {
        *state = WorkerState::Dead;
    }
    let parked_at = (*state == WorkerState::Parked)
        .then(|| {
            events
                .iter()
                .rev()
                .find(|e| e.record.kind == crate::core::events::PARKED_EVENT)
        })
        .flatten()
        .map(|e| (e.record.at_ns / 1_000_000) as u64);
    let resume_with = (*state == WorkerState::Dead
        && super::revival::resumable(ctx, worker).is_ok())
    .then(|| format!("umbel resume {}", worker.name));
    (parked_at, resume_with)
}

/// How the worker's process ended: launch.sh's record, else tmux's, else the tombstone's.
fn exit_of(
    ctx: &Ctx,
    name: &WorkerName,
    liveness: &Liveness,
) -> Option<crate::core::outcome::ExitStatus> {
    ctx.state.read_exit(name).or(match liveness {
        Liveness::Dead(status) => Some(status.clone()),
        _ => ctx.state.read_dead(name).and_then(|d| d.exit),
    })
}

/// The time a warm worker (`-p --warm`) still waits for its `-p`.
fn warm_of(ctx: &Ctx, name: &WorkerName) -> Option<WarmStatus> {
    ctx.state.warm_mark(name).map(|mark| WarmStatus {
        ready_at: mark.ready_at,
        expires_at: mark.expires_at(),
    })
}

/// What `degraded` says when some event-log lines could not be read.
fn degraded(events: &[crate::core::wait::ClassifiedEvent]) -> Option<String> {
    match unreadable_lines(events.iter().map(|e| &e.record)) {
        0 => None,
        1 => Some("1 unreadable line in its event log was skipped".into()),
        n => Some(format!(
            "{n} unreadable lines in its event log were skipped"
        )),
    }
}

/// The row of a worker whose meta.json cannot be read: only its name and its tmux session
/// (`umbel-<name>`) are known, which is all `kill` needs.
fn corrupt_row(
    ctx: &Ctx,
    name: &WorkerName,
    path: &std::path::Path,
    message: &str,
    alive: bool,
) -> WorkerStatus {
    let session = name.tmux_session();
    let pane = if alive { "is still running" } else { "is gone" };
    WorkerStatus {
        problem: Some(format!(
            "{} is unreadable ({message}); its tmux session {session} {pane}; `umbel kill {name}` ends it",
            path.display()
        )),
        position: ctx.state.log_len(name).unwrap_or(0),
        ..WorkerStatus::bare(
            name.as_str(),
            "unknown",
            ListedState::Unreadable(Unreadable::Corrupt),
        )
    }
}

/// The session id and transcript the CLI itself reported in its newest recent hook payload
/// (codex picks its own session id; umbel's is only a placeholder until its first hook), as
/// `read` reports them.
fn own_ids(
    ctx: &Ctx,
    worker: &Worker,
    events: &[crate::core::wait::ClassifiedEvent],
) -> (Option<String>, Option<String>) {
    let field = |payload: &serde_json::Value, key: &str| {
        str_field(payload, key)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    events
        .iter()
        .rev()
        .filter_map(|e| e.record.payload.as_deref())
        .filter_map(|file| ctx.state.read_payload(&worker.name, file))
        .find_map(|p| {
            let id = payload_session_id(&p)?.to_string();
            Some((Some(id), field(&p, "transcript_path")))
        })
        .unwrap_or((None, None))
}
