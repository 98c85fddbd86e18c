//! `wait NAME… --any | --all`: several workers' turns waited on by one process under one
//! inotify instance (a watch on every worker's `events/` folder). Each worker is the same
//! one-look-at-a-time wait as a single `wait` ([`TurnWait`]), so its outcomes mean the same.
//! Guardrails stay single-worker: a guarded wait resends to its worker, which several cannot.
//!
//! A look at a worker may ask tmux about its pane (the liveness safety net), so a wake does
//! not look at every worker: only at those whose event log grew (a hook fired: what ends a
//! turn) and, in turn, [`SAFETY_LOOKS`] of the others ([`due_now`]). Over 50 workers a wake
//! costs a handful of tmux calls instead of 50, and the first turn to end is seen at once.

use super::{Conditions, LIVENESS_POLL, TurnWait, refuse_endless};
use crate::adapters::files;
use crate::adapters::watch::FolderWatch;
use crate::core::args::{WaitArgs, WaitMode};
use crate::core::errors::{Error, Result};
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::wait::{split_position, worst};
use crate::operations::Ctx;
use crate::operations::worker::Worker;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// How many workers whose logs did not grow get their safety-net look per wake (each turn
/// comes round every `workers / SAFETY_LOOKS` wakes of at most [`LIVENESS_POLL`]).
const SAFETY_LOOKS: usize = 4;

/// Which logs grew since the sizes `seen` (which become `now`'s); a first look (`u64::MAX`
/// seen) counts as grown.
pub fn grown(seen: &mut [u64], now: &[u64]) -> Vec<bool> {
    seen.iter_mut()
        .zip(now)
        .map(|(seen, &now)| {
            let grew = *seen != now;
            *seen = now;
            grew
        })
        .collect()
}

/// The workers to look at this wake: every one not ended whose log grew, then the next
/// `budget` of the others from `cursor` on, round the list (the cursor moves past them).
pub fn due_now(grew: &[bool], ended: &[bool], cursor: &mut usize, budget: usize) -> Vec<usize> {
    let count = grew.len();
    let mut due: Vec<usize> = (0..count).filter(|&i| grew[i] && !ended[i]).collect();
    let (start, mut extra) = (*cursor, 0);
    for step in 0..count {
        if extra == budget {
            break;
        }
        let i = (start + step) % count;
        if !ended[i] && !grew[i] {
            due.push(i);
            extra += 1;
            *cursor = (i + 1) % count;
        }
    }
    due.sort_unstable();
    due
}

/// One worker's outcome in a wait over several.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NamedOutcome {
    /// The worker.
    pub name: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// How a wait over several workers ended.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ManyWaited {
    /// `any` or `all`.
    pub mode: &'static str,
    /// `--any`: the worker whose turn ended first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<String>,
    /// The outcome of each worker whose wait ended (with `--all`, every worker, in the order
    /// named; with `--any`, the first).
    pub outcomes: Vec<NamedOutcome>,
}

impl ManyWaited {
    /// The outcome the wait as a whole reports: `--any`'s first, `--all`'s worst.
    pub fn outcome(&self) -> OutcomeKind {
        worst(self.outcomes.iter().map(|o| o.outcome.outcome)).unwrap_or(OutcomeKind::Timeout)
    }
}

/// The workers as named (`NAME` or `NAME@POS`), each with its own `--since`.
fn targets(ctx: &Ctx, args: &WaitArgs) -> Result<Vec<(Worker, Option<usize>)>> {
    let names = args.targets();
    if names.len() > 1 && args.since.is_some() {
        return Err(Error::usage(
            "`--since` with several workers: give each its own position as `NAME@POS`",
        ));
    }
    let mut workers: Vec<(Worker, Option<usize>)> = Vec::new();
    for target in names {
        let (name, position) = split_position(target).map_err(Error::usage)?;
        let worker = Worker::load(ctx, name)?;
        if workers.iter().any(|(w, _)| w.name == worker.name) {
            return Err(Error::usage(format!(
                "worker `{name}` is named twice in one `wait`"
            )));
        }
        workers.push((worker, position.or(args.since)));
    }
    Ok(workers)
}

/// Refuses what a wait over several workers cannot do, before anything is watched.
fn refuse_mix(args: &WaitArgs) -> Result<WaitMode> {
    let mode = args.wait_mode().ok_or_else(|| {
        Error::usage(
            "several workers: say `--any` (end at the first turn to end) or `--all` (wait for every turn)",
        )
    })?;
    if args.any && args.all {
        return Err(Error::usage("`any` and `all` exclude each other: say one"));
    }
    if args.guard.is_set() {
        return Err(Error::usage(
            "guardrails (`--accept`, `--schema`, `--max-attempts`) check one worker's answer: wait for each worker on its own, not with `--any`/`--all`",
        ));
    }
    Ok(mode)
}

/// Waits for the first (`--any`) or every (`--all`) named worker's turn to end.
pub fn wait_many(ctx: &Ctx, args: &WaitArgs) -> Result<ManyWaited> {
    let mode = refuse_mix(args)?;
    let until = args.until.parse()?;
    let workers = targets(ctx, args)?;
    let conds = workers
        .iter()
        .map(|(w, _)| Conditions::new(&until, w))
        .collect::<Result<Vec<_>>>()?;
    let deadline = Instant::now() + until.timeout;
    // One inotify instance for all of them; watch first, then read.
    let mut watch = FolderWatch::new(&ctx.state.events_dir(&workers[0].0.name))?;
    for (worker, _) in &workers[1..] {
        watch.also(&ctx.state.events_dir(&worker.name))?;
    }
    for ((worker, since), cond) in workers.iter().zip(&conds) {
        refuse_endless(ctx, worker, cond, *since)?;
    }
    let mut turns: Vec<TurnWait> = workers
        .iter()
        .zip(&conds)
        .map(|((worker, since), cond)| TurnWait::new(worker, cond, *since))
        .collect();
    let mut ended: Vec<Option<Outcome>> = vec![None; turns.len()];
    // A condition outside the logs (`--until` a file) is seen only by looking at every worker.
    let everyone = conds.iter().any(|c| c.file.is_some());
    let mut growth = Growth::new(ctx, &workers, everyone);
    let mut cursor = 0;
    loop {
        let grew = growth.hot();
        let done: Vec<bool> = ended.iter().map(Option::is_some).collect();
        for i in due_now(&grew, &done, &mut cursor, SAFETY_LOOKS) {
            ended[i] = turns[i].step(ctx, deadline)?;
            if mode == WaitMode::Any && ended[i].is_some() {
                return Ok(any_ended(&workers[i].0, &mut ended[i]));
            }
        }
        if mode == WaitMode::All && ended.iter().all(Option::is_some) {
            return Ok(all_ended(mode, &workers, ended));
        }
        let now = Instant::now();
        if now >= deadline {
            for (turn, slot) in turns.iter().zip(ended.iter_mut()) {
                slot.get_or_insert_with(|| turn.timed_out(ctx));
            }
            // `--any` with no turn ended: each worker's timeout, and no first.
            return Ok(all_ended(mode, &workers, ended));
        }
        watch.wait((deadline - now).min(LIVENESS_POLL));
    }
}

/// Which workers' event logs grew lately. A worker stays hot a while after its log grew: a
/// needs-input is decided only once the prompt has stood for a liveness period (`TurnWait`),
/// so it is looked at again on the next wakes.
struct Growth {
    logs: Vec<PathBuf>,
    sizes: Vec<u64>,
    hot_until: Vec<Option<Instant>>,
    everyone: bool,
}

impl Growth {
    fn new(ctx: &Ctx, workers: &[(Worker, Option<usize>)], everyone: bool) -> Self {
        let logs: Vec<PathBuf> = workers
            .iter()
            .map(|(w, _)| ctx.state.events_dir(&w.name).join("log"))
            .collect();
        Growth {
            sizes: vec![u64::MAX; logs.len()],
            hot_until: vec![None; logs.len()],
            logs,
            everyone,
        }
    }

    /// Each worker: is it to be looked at for its log (it grew lately, or `everyone`)?
    fn hot(&mut self) -> Vec<bool> {
        let now = Instant::now();
        let lengths: Vec<u64> = self.logs.iter().map(|log| files::len(log)).collect();
        for (i, grew) in grown(&mut self.sizes, &lengths).into_iter().enumerate() {
            if grew {
                self.hot_until[i] = Some(now + 2 * LIVENESS_POLL);
            }
        }
        (self.hot_until.iter())
            .map(|hot| self.everyone || hot.is_some_and(|t| now < t))
            .collect()
    }
}

fn any_ended(worker: &Worker, outcome: &mut Option<Outcome>) -> ManyWaited {
    let name = worker.name.to_string();
    ManyWaited {
        mode: "any",
        first: Some(name.clone()),
        outcomes: outcome
            .take()
            .map(|outcome| NamedOutcome { name, outcome })
            .into_iter()
            .collect(),
    }
}

fn all_ended(
    mode: WaitMode,
    workers: &[(Worker, Option<usize>)],
    ended: Vec<Option<Outcome>>,
) -> ManyWaited {
    ManyWaited {
        mode: match mode {
            WaitMode::Any => "any",
            WaitMode::All => "all",
        },
        first: None,
        outcomes: workers
            .iter()
            .zip(ended)
            .filter_map(|((worker, _), outcome)| {
                Some(NamedOutcome {
                    name: worker.name.to_string(),
                    outcome: outcome?,
                })
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wake_looks_at_the_workers_whose_logs_grew_and_a_few_others_in_turn() {
        let mut cursor = 0;
        let mut grew = vec![false; 50];
        grew[37] = true;
        let ended = vec![false; 50];
        let due = due_now(&grew, &ended, &mut cursor, SAFETY_LOOKS);
        assert_eq!(
            due,
            [0, 1, 2, 3, 37],
            "the one that grew, and the first four others"
        );
        // Quiet wakes: four looks each, every worker looked at within 50 / 4 wakes.
        grew[37] = false;
        let mut looked = vec![0; 50];
        for _ in 0..13 {
            let due = due_now(&grew, &ended, &mut cursor, SAFETY_LOOKS);
            assert!(due.len() <= SAFETY_LOOKS, "{due:?}");
            due.iter().for_each(|&i| looked[i] += 1);
        }
        assert!(looked.iter().all(|&n| n >= 1), "{looked:?}");
        assert_eq!(
            looked.iter().sum::<usize>(),
            52,
            "13 wakes × 4 looks, no more"
        );
        let mut seen = vec![u64::MAX; 3];
        assert_eq!(
            grown(&mut seen, &[0, 10, 20]),
            [true, true, true],
            "first look"
        );
        assert_eq!(grown(&mut seen, &[0, 15, 20]), [false, true, false]);
        assert_eq!(grown(&mut seen, &[0, 15, 20]), [false, false, false]);
        // Ended workers are never looked at again.
        let ended = vec![true; 50];
        assert!(due_now(&[true; 50], &ended, &mut cursor, SAFETY_LOOKS).is_empty());
    }
}
