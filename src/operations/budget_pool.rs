//! Shared limits: the fleet's (every worker of the state root, `umbel budget --fleet`) and a
//! workflow run's (its workers, the file's `budget:`). What a pool used is what its workers
//! use now — each from its own transcript and event log, as its own budget counts — plus what
//! its purged workers used (retired into the pool's record when they were purged). A pool's
//! limit reached refuses spawns (the fleet's) and sends to its workers, and a running turn's
//! wait interrupts every running turn of the pool (`wait::budget_stop`).

use super::Ctx;
use super::budget_usage::{follow, note_warning, used, used_of};
use super::worker::Worker;
use crate::core::budget::{
    BudgetState, Limits, Pool, PoolRecord, Reached, Used, pool_reached, pool_warning,
};
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::usage_tally::UsageTally;
use std::collections::HashMap;

/// The worker's file naming the run whose budget it shares.
const RUN_POOL_FILE: &str = "pool.json";

/// The pools the worker shares whose limits are set: the fleet's, and its run's.
pub fn pools_of(ctx: &Ctx, worker: &Worker) -> Result<Vec<(Pool, PoolRecord)>> {
    let mut pools = Vec::new();
    let run: Option<String> = ctx.state.read_json(&worker.name, RUN_POOL_FILE);
    for pool in std::iter::once(Pool::Fleet).chain(run.map(Pool::Run)) {
        if let Some(record) = ctx.state.read_pool(&pool)?
            && !record.limits.is_empty()
            && is_member(&record, &worker.name)
        {
            pools.push((pool, record));
        }
    }
    Ok(pools)
}

fn is_member(record: &PoolRecord, name: &WorkerName) -> bool {
    (record.members.as_ref()).is_none_or(|m| m.iter().any(|n| n == name.as_str()))
}

/// Makes the worker (spawned by run `run_id`) share its run's budget.
pub fn join_run(ctx: &Ctx, name: &WorkerName, run_id: &str) -> Result<()> {
    ctx.state
        .write_json(name, RUN_POOL_FILE, Some(&run_id.to_string()))
}

/// Sets a run's budget: its limits, shared by `members` (what its purged workers used, from
/// an earlier attempt, stays counted).
pub fn set_run(ctx: &Ctx, run_id: &str, limits: &Limits, members: Vec<String>) -> Result<()> {
    let pool = Pool::Run(run_id.to_string());
    ctx.state.update_pool(&pool, |r| {
        r.limits = limits.clone();
        r.members = Some(members);
    })?;
    Ok(())
}

/// The workers sharing a pool now (those whose meta.json can be read).
fn members(ctx: &Ctx, record: &PoolRecord) -> Result<Vec<Worker>> {
    let names = match &record.members {
        Some(names) => names.clone(),
        None => (ctx.state.list()?.iter()).map(|n| n.to_string()).collect(),
    };
    Ok(names
        .iter()
        .filter_map(|n| Worker::load(ctx, n).ok())
        .collect())
}

/// What a pool used: its workers' use and its purged workers'.
pub fn pool_used(ctx: &Ctx, record: &PoolRecord) -> Result<Used> {
    let mut sum = record.retired.clone();
    for worker in members(ctx, record)? {
        sum = sum.plus(&used(ctx, &worker)?);
    }
    Ok(sum)
}

/// [`retire`] for the worker named: its meta.json is read only when a shared limit may cover
/// it (one that cannot be read has no transcript to count).
pub fn retire_named(ctx: &Ctx, name: &WorkerName) -> Result<()> {
    let fleet = (ctx.state.read_pool(&Pool::Fleet)?).is_some_and(|r| !r.limits.is_empty());
    let run = ctx.state.read_json::<String>(name, RUN_POOL_FILE).is_some();
    if !fleet && !run {
        return Ok(());
    }
    match Worker::load(ctx, name.as_str()) {
        Ok(worker) => retire(ctx, &worker),
        Err(_) => Ok(()),
    }
}

/// Adds what the worker used to each pool it shares, before its folder goes (a purge): the
/// pool's count keeps it.
pub fn retire(ctx: &Ctx, worker: &Worker) -> Result<()> {
    let pools = pools_of(ctx, worker)?;
    if pools.is_empty() {
        return Ok(());
    }
    let spent = used(ctx, worker)?;
    for (pool, _) in pools {
        ctx.state
            .update_pool(&pool, |r| r.retired = r.retired.plus(&spent))?;
    }
    Ok(())
}

/// The first limit of the pools the worker shares that is reached, each pool past 80 % warned
/// of on the worker's events (once per limit value).
pub fn reached_by(ctx: &Ctx, worker: &Worker) -> Result<Option<Reached>> {
    for (pool, record) in pools_of(ctx, worker)? {
        let used = pool_used(ctx, &record)?;
        if let Some(near) = pool_warning(&pool, &record.limits, &used) {
            note_warning(ctx, worker, &near)?;
        }
        if let Some(at) = pool_reached(&pool, &record.limits, &used) {
            return Ok(Some(at));
        }
    }
    Ok(None)
}

/// Refuses a spawn the fleet's budget stops: one of its limits reached, or a dollar limit
/// the new worker's cost would escape (its model has no known price).
pub fn refuse_spawn(
    ctx: &Ctx,
    name: &str,
    provider: crate::core::providers::Provider,
    model: Option<&str>,
) -> Result<()> {
    let Some(record) = ctx.state.read_pool(&Pool::Fleet)? else {
        return Ok(());
    };
    if record.limits.is_empty() {
        return Ok(());
    }
    if record.limits.max_budget_usd.is_some()
        && model
            .and_then(|m| crate::core::providers::price_of(provider, m))
            .is_none()
    {
        return Err(Error::usage(format!(
            "the fleet has a dollar limit (`umbel budget --fleet`), and {}: its cost would be unknown; spawn it with --model naming a priced model",
            model.map_or("no --model is given".to_string(), |m| format!(
                "model {m:?} has no known list price"
            ))
        )));
    }
    let used = pool_used(ctx, &record)?;
    match pool_reached(&Pool::Fleet, &record.limits, &used) {
        None => Ok(()),
        Some(at) => Err(Error::Budget {
            name: name.to_string(),
            detail: format!("{at}; {}", at.raise_hint(name)),
        }),
    }
}

/// A pool's limits against what its workers used, and the limit past 80 %, if one is.
pub fn standing(
    ctx: &Ctx,
    pool: &Pool,
    record: PoolRecord,
) -> Result<(BudgetState, Option<Reached>)> {
    let used = pool_used(ctx, &record)?;
    let warning = pool_warning(pool, &record.limits, &used);
    let state = BudgetState {
        reached: pool_reached(pool, &record.limits, &used),
        limits: record.limits,
        used,
    };
    Ok((state, warning))
}

/// The fleet's budget, its limits changed by `change` first (when it sets any), and the limit
/// past 80 %, if one is.
pub fn fleet(ctx: &Ctx, change: &Limits) -> Result<(BudgetState, Option<Reached>)> {
    let record = if change.is_empty() {
        ctx.state.read_pool(&Pool::Fleet)?.unwrap_or_default()
    } else {
        (ctx.state).update_pool(&Pool::Fleet, |r| r.limits = r.limits.with(change))?
    };
    standing(ctx, &Pool::Fleet, record)
}

/// A running turn's watch on the pools its worker shares: each member's transcript read as
/// it grows, the pools' records read again at each look (a limit may be lowered meanwhile).
#[derive(Default)]
pub struct PoolWatch {
    tallies: HashMap<String, UsageTally>,
}

impl PoolWatch {
    /// The first token or dollar limit of the worker's pools that is reached, with the pool's
    /// other members (to be stopped too).
    pub fn reached(
        &mut self,
        ctx: &Ctx,
        worker: &Worker,
    ) -> Result<Option<(Reached, Vec<Worker>)>> {
        for (pool, record) in pools_of(ctx, worker)? {
            let limits = record.limits.during_turn();
            if limits.is_empty() {
                continue;
            }
            let members = members(ctx, &record)?;
            let mut sum = record.retired.clone();
            for member in &members {
                sum = sum.plus(&self.used(ctx, member));
            }
            if let Some(near) = pool_warning(&pool, &limits, &sum) {
                note_warning(ctx, worker, &near)?;
            }
            if let Some(at) = pool_reached(&pool, &limits, &sum) {
                let others = members.into_iter().filter(|m| m.name != worker.name);
                return Ok(Some((at, others.collect())));
            }
        }
        Ok(None)
    }

    /// A member's tokens and cost, from what its transcript appended since the last look.
    fn used(&mut self, ctx: &Ctx, member: &Worker) -> Used {
        let provider = member.meta.provider;
        let tally = (self.tallies)
            .entry(member.name.to_string())
            .or_insert_with(|| UsageTally::new(provider));
        let usage = member
            .transcript_path(ctx)
            .and_then(|path| follow(tally, provider, &path));
        used_of(usage, 0)
    }
}
