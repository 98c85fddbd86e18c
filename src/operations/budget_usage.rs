//! What a worker used, for its budget and the shared ones: tokens and cost from its CLI's own
//! transcript (as `top` adds them up, read incrementally as it grows), prompts from its event
//! log; and the `budget` / `budget-warning` events, each logged once per limit value.

use super::Ctx;
use super::worker::Worker;
use crate::adapters::files;
use crate::core::args::SpawnArgs;
use crate::core::budget::{Limits, Reached, Used};
use crate::core::errors::Result;
use crate::core::events::{BUDGET_EVENT, BUDGET_WARNING_EVENT};
use crate::core::name::WorkerName;
use crate::core::usage_tally::UsageTally;

/// The worker's file holding its limits.
pub const BUDGET_FILE: &str = "budget.json";
/// The worker's file holding its `--max-turns` (model requests per prompt, held by umbel).
const TURN_LIMIT_FILE: &str = "max-turns.json";
/// The worker's file holding its transcript's length as its last prompt was sent (a worker
/// with a `--max-turns` only): that turn's records are the ones after it.
const TURN_START_FILE: &str = "turn-start.json";
/// The worker's files holding the limit last reported reached, and last warned of: each is
/// reported once per limit value.
const REACHED_FILE: &str = "budget-reached.json";
const WARNED_FILE: &str = "budget-warned.json";

/// The worker's limits (none set: the default, no limit).
pub fn limits(ctx: &Ctx, worker: &Worker) -> Result<Limits> {
    Ok(ctx
        .state
        .read_record(&worker.name, BUDGET_FILE)?
        .unwrap_or_default())
}

/// Writes a new worker's limits: its budget and its `--max-turns`, those given.
pub fn put_spawn_limits(ctx: &Ctx, name: &WorkerName, args: &SpawnArgs) -> Result<()> {
    if !args.budget.is_empty() {
        ctx.state.write_record(name, BUDGET_FILE, &args.budget)?;
    }
    if let Some(max) = args.max_turns {
        ctx.state.write_record(name, TURN_LIMIT_FILE, &max)?;
    }
    Ok(())
}

/// The worker's `--max-turns`, if it was spawned with one.
pub fn turn_limit(ctx: &Ctx, worker: &Worker) -> Result<Option<u32>> {
    ctx.state.read_record(&worker.name, TURN_LIMIT_FILE)
}

/// Notes where the worker's transcript ends as a prompt is about to be sent, for a worker
/// with a `--max-turns`: the turn's requests are counted from there (the last turn the
/// transcript holds may still be the one before, its prompt not written yet).
pub fn mark_turn_start(ctx: &Ctx, worker: &Worker) -> Result<()> {
    if turn_limit(ctx, worker)?.is_none() {
        return Ok(());
    }
    let len = worker
        .transcript_path(ctx)
        .map_or(0, |path| files::len(&path));
    ctx.state.write_record(&worker.name, TURN_START_FILE, &len)
}

/// Where the worker's transcript ended as its last prompt was sent (0: not noted).
pub fn turn_start(ctx: &Ctx, worker: &Worker) -> u64 {
    ctx.state
        .read_record(&worker.name, TURN_START_FILE)
        .ok()
        .flatten()
        .unwrap_or(0)
}

/// Sets the worker's limits (spawn's, or `umbel budget`'s merged onto them).
pub fn set(ctx: &Ctx, worker: &Worker, limits: &Limits) -> Result<()> {
    ctx.state.write_record(&worker.name, BUDGET_FILE, limits)
}

/// What the worker used: its transcript's tokens and cost, and the prompts it took.
pub fn used(ctx: &Ctx, worker: &Worker) -> Result<Used> {
    let provider = worker.meta.provider;
    let usage = (worker.transcript_path(ctx))
        .and_then(|path| follow(&mut UsageTally::new(provider), provider, &path));
    let log = ctx.state.read_log(&worker.name)?;
    let counts = |kind: &str| worker.provider().counts_prompt(kind);
    let prompts = log.iter().filter(|r| counts(&r.kind)).count() as u64;
    Ok(used_of(usage, prompts))
}

/// What a transcript's usage (none: nothing counted yet) and `prompts` amount to.
pub fn used_of(usage: Option<crate::core::fleet::Usage>, prompts: u64) -> Used {
    Used {
        tokens: usage.as_ref().map_or(0, |u| u.tokens),
        cost_usd: usage.and_then(|u| u.cost_usd),
        prompts,
        by_kind: usage.map(|u| u.kinds).unwrap_or_default(),
    }
}

/// Logs that a limit was reached (`budget`, once per limit value): for `events` and notifiers.
pub fn note_reached(ctx: &Ctx, worker: &Worker, at: &Reached) -> Result<()> {
    note(ctx, worker, at, REACHED_FILE, BUDGET_EVENT)
}

/// Logs `budget-warning` for `at` (once per limit value).
pub fn note_warning(ctx: &Ctx, worker: &Worker, at: &Reached) -> Result<()> {
    note(ctx, worker, at, WARNED_FILE, BUDGET_WARNING_EVENT)
}

/// Logs `kind` for `at` unless the worker's `file` says it was logged for this limit value
/// (a turn limit: every time).
fn note(ctx: &Ctx, worker: &Worker, at: &Reached, file: &str, kind: &str) -> Result<()> {
    let last: Option<Reached> = ctx.state.read_record(&worker.name, file).unwrap_or(None);
    // `--max-turns` is per turn: each turn stopped at it is logged.
    let per_turn = at.limit == crate::core::budget::LimitKind::Turns;
    if !per_turn
        && last.is_some_and(|l| l.limit == at.limit && l.max == at.max && l.pool == at.pool)
    {
        return Ok(());
    }
    ctx.state.write_record(&worker.name, file, at)?;
    let mut payload = serde_json::to_value(at).unwrap_or_default();
    payload["at"] = crate::adapters::host::now_ms().into();
    ctx.state.append_event(&worker.name, kind, &payload)
}

/// The usage of a transcript, `tally` fed only what was appended since it last looked (a
/// transcript that shrank, rewritten, is read anew).
pub fn follow(
    tally: &mut UsageTally,
    provider: crate::core::providers::Provider,
    path: &std::path::Path,
) -> Option<crate::core::fleet::Usage> {
    let len = files::len(path);
    if len < tally.offset() {
        *tally = UsageTally::new(provider);
    }
    if len > tally.offset()
        && let Some(bytes) = files::read_from(path, tally.offset())
    {
        tally.feed(&bytes);
    }
    tally.usage()
}
