//! What a worker used, for its budget and the shared ones: tokens and cost from its CLI's own
//! transcript (as `top` adds them up, read incrementally as it grows), prompts from its event
//! log; and the `budget` / `budget-warning` events, each logged once per limit value.

use super::Ctx;
use super::worker::Worker;
use crate::adapters::files;
use crate::core::budget::{Limits, Reached, Used};
use crate::core::errors::Result;
use crate::core::events::{BUDGET_EVENT, BUDGET_WARNING_EVENT};
use crate::core::usage_tally::UsageTally;

/// The worker's file holding its limits.
pub const BUDGET_FILE: &str = "budget.json";
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

/// Logs `kind` for `at` unless the worker's `file` says it was logged for this limit value.
fn note(ctx: &Ctx, worker: &Worker, at: &Reached, file: &str, kind: &str) -> Result<()> {
    let last: Option<Reached> = ctx.state.read_record(&worker.name, file).unwrap_or(None);
    if last.is_some_and(|l| l.limit == at.limit && l.max == at.max && l.pool == at.pool) {
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
