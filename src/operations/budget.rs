//! `budget`: a worker's limits (tokens, list-price dollars, prompts; `sessions/<name>/budget.json`,
//! set at spawn or by `umbel budget`) and what it used — tokens and cost from its CLI's own
//! transcript, as `top` adds them up, prompts from its event log. A limit reached refuses every
//! send until it is raised.

use super::Ctx;
use super::worker::Worker;
use crate::adapters::files;
use crate::core::budget::{BudgetState, Limits, Reached, Used, reached, warning};
use crate::core::errors::{Error, Result};
use crate::core::events::{BUDGET_EVENT, BUDGET_WARNING_EVENT};
use crate::core::usage_tally::UsageTally;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The worker's file holding its limits.
pub const BUDGET_FILE: &str = "budget.json";
/// The worker's files holding the limit last reported reached, and last warned of: each is
/// reported once per limit value.
const REACHED_FILE: &str = "budget-reached.json";
const WARNED_FILE: &str = "budget-warned.json";

/// What `umbel budget` found or set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BudgetReport {
    /// The worker.
    pub name: String,
    /// Its limits (none set: no budget), what it used so far, the limit reached (sends are
    /// refused).
    #[serde(flatten)]
    pub state: BudgetState,
    /// A limit past 80 %, if one is and none is reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<Reached>,
}

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
fn used_of(usage: Option<crate::core::fleet::Usage>, prompts: u64) -> Used {
    Used {
        tokens: usage.as_ref().map_or(0, |u| u.tokens),
        cost_usd: usage.and_then(|u| u.cost_usd),
        prompts,
    }
}

/// `limits` against what the worker used.
fn standing(ctx: &Ctx, worker: &Worker, limits: Limits) -> Result<BudgetState> {
    let used = used(ctx, worker)?;
    Ok(BudgetState {
        reached: reached(&limits, &used),
        limits,
        used,
    })
}

/// The worker's budget, its limits changed by `change` first (when it sets any).
pub fn budget(ctx: &Ctx, worker: &Worker, change: &Limits) -> Result<BudgetReport> {
    let mut limits = limits(ctx, worker)?;
    if !change.is_empty() {
        limits = limits.with(change);
        set(ctx, worker, &limits)?;
    }
    let state = standing(ctx, worker, limits)?;
    Ok(BudgetReport {
        name: worker.name.to_string(),
        warning: warning(&state.limits, &state.used),
        state,
    })
}

/// The worker's budget as `status` shows it; none when it has no limits (or they cannot be
/// read: `umbel budget` says why).
pub fn state(ctx: &Ctx, worker: &Worker) -> Option<BudgetState> {
    let limits = limits(ctx, worker).ok()?;
    if limits.is_empty() {
        return None;
    }
    standing(ctx, worker, limits).ok()
}

/// Logs that a limit was reached (`budget`, once per limit value): for `events` and notifiers.
pub fn note_reached(ctx: &Ctx, worker: &Worker, at: &Reached) -> Result<()> {
    note(ctx, worker, at, REACHED_FILE, BUDGET_EVENT)
}

/// Logs `kind` for `at` unless the worker's `file` says it was logged for this limit value.
fn note(ctx: &Ctx, worker: &Worker, at: &Reached, file: &str, kind: &str) -> Result<()> {
    let last: Option<Reached> = ctx.state.read_record(&worker.name, file).unwrap_or(None);
    if last.is_some_and(|l| l.limit == at.limit && l.max == at.max) {
        return Ok(());
    }
    ctx.state.write_record(&worker.name, file, at)?;
    let mut payload = serde_json::to_value(at).unwrap_or_default();
    payload["at"] = crate::adapters::host::now_ms().into();
    ctx.state.append_event(&worker.name, kind, &payload)
}

/// Refuses a send to a worker at its budget, naming the limit and what was used.
pub fn refuse_send(ctx: &Ctx, worker: &Worker) -> Result<()> {
    let limits = limits(ctx, worker)?;
    if limits.is_empty() {
        return Ok(());
    }
    let used = used(ctx, worker)?;
    if let Some(near) = warning(&limits, &used) {
        note(ctx, worker, &near, WARNED_FILE, BUDGET_WARNING_EVENT)?;
    }
    let Some(at) = reached(&limits, &used) else {
        return Ok(());
    };
    note_reached(ctx, worker, &at)?;
    Err(Error::Budget {
        name: worker.name.to_string(),
        detail: format!(
            "{at}; raise it with `umbel budget {} {} N`",
            worker.name,
            at.limit.flag()
        ),
    })
}

/// Refuses a spawn whose `--max-budget-usd` cannot be checked: its model has no known list
/// price (`--max-tokens` works on any model).
pub fn check_spawn(args: &crate::core::args::SpawnArgs) -> Result<()> {
    if args.budget.max_budget_usd.is_none() {
        return Ok(());
    }
    let priced = args.model.as_deref().and_then(crate::core::prices::price);
    match (&args.model, priced) {
        (_, Some(_)) => Ok(()),
        (Some(model), None) => Err(Error::usage(format!(
            "--max-budget-usd: model {model:?} has no known list price, so its cost is unknown; limit it with --max-tokens"
        ))),
        (None, None) => Err(Error::usage(
            "--max-budget-usd needs --model naming a model with a known list price (docs/budgets.md); --max-tokens works without",
        )),
    }
}

/// A running turn's watch on the worker's token and dollar limits: its transcript read as it
/// grows (only what was appended), the limits read again at each look (`umbel budget` may
/// lower them meanwhile). The prompt limit is for sends: the turn running is within it.
pub struct Watch {
    tally: UsageTally,
    path: Option<PathBuf>,
}

impl Watch {
    pub fn new(worker: &Worker) -> Self {
        Watch {
            tally: UsageTally::new(worker.meta.provider),
            path: None,
        }
    }

    /// The worker's transcript, once known.
    fn path(&mut self, ctx: &Ctx, worker: &Worker) -> Option<PathBuf> {
        self.path = self.path.take().or_else(|| worker.transcript_path(ctx));
        self.path.clone()
    }

    /// The folder the worker's transcript is in, when it has a token or dollar limit to watch
    /// for: a wait wakes on its writes.
    pub fn transcript_dir(&mut self, ctx: &Ctx, worker: &Worker) -> Option<PathBuf> {
        if limits(ctx, worker).ok()?.during_turn().is_empty() {
            return None;
        }
        self.path(ctx, worker)?.parent().map(PathBuf::from)
    }

    /// The token or dollar limit the worker's transcript has reached, if one has.
    pub fn reached(&mut self, ctx: &Ctx, worker: &Worker) -> Result<Option<Reached>> {
        let turn_limits = limits(ctx, worker)?.during_turn();
        if turn_limits.is_empty() {
            return Ok(None);
        }
        let Some(path) = self.path(ctx, worker) else {
            return Ok(None);
        };
        let usage = follow(&mut self.tally, worker.meta.provider, &path);
        let used = used_of(usage, 0);
        if let Some(near) = warning(&turn_limits, &used) {
            note(ctx, worker, &near, WARNED_FILE, BUDGET_WARNING_EVENT)?;
        }
        Ok(reached(&turn_limits, &used))
    }
}

/// The usage of a transcript, `tally` fed only what was appended since it last looked (a
/// transcript that shrank, rewritten, is read anew).
pub(super) fn follow(
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

/// One line for people: each limit with what was used of it, and the one reached.
pub fn summary(report: &BudgetReport) -> String {
    let (l, u) = (&report.state.limits, &report.state.used);
    let cost = u
        .cost_usd
        .map_or("cost unknown".to_string(), |c| format!("${c:.2}"));
    let of = |max: Option<String>| max.map_or(String::new(), |m| format!(" of {m}"));
    let mut line = format!(
        "{}: {} tokens{} · {cost}{} · {} prompts{}",
        report.name,
        u.tokens,
        of(l.max_tokens.map(|n| n.to_string())),
        of(l.max_budget_usd.map(|n| format!("${n:.2}"))),
        u.prompts,
        of(l.max_prompts.map(|n| n.to_string())),
    );
    if let Some(at) = &report.state.reached {
        line.push_str(&format!(" — stopped: {at}"));
    } else if let Some(near) = &report.warning {
        line.push_str(&format!(" — near: {near}"));
    }
    line
}
