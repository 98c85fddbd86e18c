//! `budget`: a worker's limits (tokens, list-price dollars, prompts; `sessions/<name>/budget.json`,
//! set at spawn or by `umbel budget`) and what it used — tokens and cost from its CLI's own
//! transcript, as `top` adds them up, prompts from its event log. A limit reached refuses every
//! send until it is raised.

use super::Ctx;
pub use super::budget_usage::{BUDGET_FILE, follow, limits, note_reached, set, used};
use super::budget_usage::{note_warning, turn_limit, used_of};
use super::worker::Worker;
use crate::core::budget::{BudgetState, Limits, Pool, Reached, reached, warning};
use crate::core::errors::{Error, Result};
use crate::core::usage_tally::UsageTally;
use crate::core::wait::ClassifiedEvent;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What `umbel budget` found or set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BudgetReport {
    /// The worker (absent: the fleet's budget, `--fleet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its limits (none set: no budget), what it used so far, the limit reached (sends are
    /// refused).
    #[serde(flatten)]
    pub state: BudgetState,
    /// A limit past 80 %, if one is and none is reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<Reached>,
    /// The shared limits the worker is under too (the fleet's, its workflow run's), each with
    /// what all its workers used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<SharedBudget>,
}

/// A shared limit as a worker's budget shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SharedBudget {
    /// Whose limit: the fleet's, or a run's.
    pub pool: Pool,
    #[serde(flatten)]
    pub state: BudgetState,
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
    // A turn the hooks say ended is counted whole: the CLI may still be writing it.
    worker.await_recorded(ctx, &worker.recent_events(ctx)?);
    let mut limits = limits(ctx, worker)?;
    if !change.is_empty() {
        limits = limits.with(change);
        set(ctx, worker, &limits)?;
    }
    let state = standing(ctx, worker, limits)?;
    let mut shared = Vec::new();
    for (pool, record) in super::budget_pool::pools_of(ctx, worker)? {
        let (state, _) = super::budget_pool::standing(ctx, &pool, record)?;
        shared.push(SharedBudget { pool, state });
    }
    Ok(BudgetReport {
        name: Some(worker.name.to_string()),
        warning: warning(&state.limits, &state.used),
        state,
        shared,
    })
}

/// The fleet's budget (`umbel budget --fleet`), its limits changed by `change` first.
pub fn fleet(ctx: &Ctx, change: &Limits) -> Result<BudgetReport> {
    let (state, warning) = super::budget_pool::fleet(ctx, change)?;
    Ok(BudgetReport {
        name: None,
        state,
        warning,
        shared: Vec::new(),
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

/// Refuses a send to a worker at its budget or at a shared one's (the fleet's, its run's),
/// naming the limit and what was used.
pub fn refuse_send(ctx: &Ctx, worker: &Worker) -> Result<()> {
    let Some(at) = own_reached(ctx, worker)?.or(super::budget_pool::reached_by(ctx, worker)?)
    else {
        return Ok(());
    };
    note_reached(ctx, worker, &at)?;
    Err(Error::Budget {
        name: worker.name.to_string(),
        detail: format!("{at}; {}", at.raise_hint(worker.name.as_str())),
    })
}

/// The worker's own limit that is reached, one past 80 % warned of.
fn own_reached(ctx: &Ctx, worker: &Worker) -> Result<Option<Reached>> {
    let limits = limits(ctx, worker)?;
    if limits.is_empty() {
        return Ok(None);
    }
    let used = used(ctx, worker)?;
    if let Some(near) = warning(&limits, &used) {
        note_warning(ctx, worker, &near)?;
    }
    Ok(reached(&limits, &used))
}

/// Takes the stop of the worker's running turn for `at`: whether this process is the one to
/// press the interrupt keys (a wait on the worker and a wait stopping its pool may both see
/// the limit). The turn is named by its prompt's position in the log, as both find it.
pub fn claim_stop(ctx: &Ctx, worker: &Worker, at: &Reached) -> Result<bool> {
    let turn = this_turn(ctx, worker)?;
    ctx.state.claim(&worker.name, &stop_file(turn), at)
}

/// The limit the worker's last turn was stopped for, if a budget stopped it; `events`: the
/// log's end back to that turn's prompt at least, as a wait has them.
pub fn stopped_for(ctx: &Ctx, worker: &Worker, events: &[ClassifiedEvent]) -> Option<Reached> {
    let turn = crate::core::wait::default_since(events);
    ctx.state.read_json(&worker.name, &stop_file(turn))
}

/// The position of the worker's last prompt (its submit hook) in the log.
fn this_turn(ctx: &Ctx, worker: &Worker) -> Result<usize> {
    Ok(crate::core::wait::default_since(
        &worker.events(ctx, usize::MAX)?,
    ))
}

fn stop_file(turn: usize) -> String {
    format!("budget-stop-{turn}.json")
}

/// The worker's `--max-turns`, if its last turn (ended) went past it as its transcript shows.
pub fn turn_limit_passed(ctx: &Ctx, worker: &Worker) -> Result<Option<Reached>> {
    let Some(max) = turn_limit(ctx, worker)? else {
        return Ok(None);
    };
    let Some(path) = worker.transcript_path(ctx) else {
        return Ok(None);
    };
    let from = super::budget_usage::turn_start(ctx, worker);
    let requests = super::turn_stats::ended_turn_requests(worker, &path, from);
    Ok(requests.and_then(|requests| crate::core::budget::turns_reached(max, requests)))
}

/// Refuses a spawn whose `--max-budget-usd` cannot be checked (its model has no known list
/// price; `--max-tokens` works on any model), and one the fleet's budget stops.
pub fn check_spawn(ctx: &Ctx, args: &crate::core::args::SpawnArgs) -> Result<()> {
    let name = args.name.as_deref().unwrap_or("new");
    super::budget_pool::refuse_spawn(ctx, name, args.provider, args.model.as_deref())?;
    if args.budget.max_budget_usd.is_none() {
        return Ok(());
    }
    if let Some(problem) = crate::core::prices::problem() {
        return Err(Error::usage(format!("--max-budget-usd: {problem}")));
    }
    let priced =
        (args.model.as_deref()).and_then(|m| crate::core::providers::price_of(args.provider, m));
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
    pools: super::budget_pool::PoolWatch,
    /// The worker's `--max-turns`, once read (it is set at spawn only).
    max_turns: Option<Option<u32>>,
}

impl Watch {
    pub fn new(worker: &Worker) -> Self {
        Watch {
            tally: UsageTally::new(worker.meta.provider),
            path: None,
            pools: Default::default(),
            max_turns: None,
        }
    }

    /// The worker's `--max-turns`, read once.
    fn max_turns(&mut self, ctx: &Ctx, worker: &Worker) -> Option<u32> {
        *self
            .max_turns
            .get_or_insert_with(|| turn_limit(ctx, worker).ok().flatten())
    }

    /// `--max-turns`, reached once the running turn's transcript records a model request past
    /// it.
    fn turns_reached(&mut self, ctx: &Ctx, worker: &Worker) -> Option<Reached> {
        let max = self.max_turns(ctx, worker)?;
        let path = self.path(ctx, worker)?;
        let from = super::budget_usage::turn_start(ctx, worker);
        match super::turn_stats::prompted_turn_requests(worker, &path, from)? {
            // An ended turn is left to the wait's end (`turn_limit_passed`).
            (_, true) => None,
            (requests, false) => crate::core::budget::turns_reached(max, requests),
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
        let shared = super::budget_pool::pools_of(ctx, worker).ok()?;
        let shared = shared
            .iter()
            .any(|(_, r)| !r.limits.during_turn().is_empty());
        let turns = self.max_turns(ctx, worker).is_some();
        if !shared && !turns && limits(ctx, worker).ok()?.during_turn().is_empty() {
            return None;
        }
        self.path(ctx, worker)?.parent().map(PathBuf::from)
    }

    /// The turn, token or dollar limit the worker's transcript has reached, if one has; or
    /// the one its shared pools' transcripts have, with the pool's other workers (their turns
    /// are stopped too).
    pub fn reached(
        &mut self,
        ctx: &Ctx,
        worker: &Worker,
    ) -> Result<Option<(Reached, Vec<Worker>)>> {
        if let Some(at) = self.turns_reached(ctx, worker) {
            return Ok(Some((at, Vec::new())));
        }
        if let Some(at) = self.own_reached(ctx, worker)? {
            return Ok(Some((at, Vec::new())));
        }
        self.pools.reached(ctx, worker)
    }

    fn own_reached(&mut self, ctx: &Ctx, worker: &Worker) -> Result<Option<Reached>> {
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
            note_warning(ctx, worker, &near)?;
        }
        Ok(reached(&turn_limits, &used))
    }
}

/// One line for people: each limit with what was used of it, and the one reached.
pub fn summary(report: &BudgetReport) -> String {
    let name = report.name.as_deref().unwrap_or("fleet");
    let mut line = format!("{name}: {}", standing_line(&report.state));
    if let Some(near) = report
        .warning
        .as_ref()
        .filter(|_| report.state.reached.is_none())
    {
        line.push_str(&format!(" — near: {near}"));
    }
    for shared in &report.shared {
        let whose = match &shared.pool {
            Pool::Fleet => "fleet".to_string(),
            Pool::Run(id) => format!("run {id}"),
        };
        line.push_str(&format!("\n  {whose}: {}", standing_line(&shared.state)));
    }
    line
}

/// Each limit of `state` with what was used of it, and the one reached.
fn standing_line(state: &BudgetState) -> String {
    let (l, u) = (&state.limits, &state.used);
    let cost = u
        .cost_usd
        .map_or("cost unknown".to_string(), |c| format!("${c:.2}"));
    let of = |max: Option<String>| max.map_or(String::new(), |m| format!(" of {m}"));
    let mut line = format!(
        "{} tokens{} · {cost}{} · {} prompts{}",
        u.tokens,
        of(l.max_tokens.map(|n| n.to_string())),
        of(l.max_budget_usd.map(|n| format!("${n:.2}"))),
        u.prompts,
        of(l.max_prompts.map(|n| n.to_string())),
    );
    if let Some(at) = &state.reached {
        line.push_str(&format!(" — stopped: {at}"));
    }
    line
}
