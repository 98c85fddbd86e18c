//! The coordinator: runs the plan's waves in order and each wave's steps in parallel threads,
//! keeps the record (and the observer) up to date, stops at the first failure or a signal by
//! interrupting the steps still running, and tears down every worker the run started.

use super::step::{StepFailure, StepJob, run_step};
use super::{Ctx, Prepared, StepResult};
use crate::adapters::host::now_ms;
use crate::adapters::runs::RunStore;
use crate::core::args::KillArgs;
use crate::core::errors::{Error, Result};
use crate::core::workflow::graph;
use crate::core::workflow::record::{
    Failure, FinalResult, RunRecord, RunStatus, StepStatus, worker_name,
};
use crate::core::workflow::{OutputSource, Plan};
use crate::operations::kill;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

/// How often the coordinator looks at SIGINT and refreshes the observer while steps run.
const TICK: Duration = Duration::from_millis(200);

enum Message {
    Started(usize),
    Finished(usize, Result<StepResult, StepFailure>),
}

/// What every step of the run shares, unchanged while it runs.
struct Shared<'a> {
    /// The caller's context (its stop flag is SIGINT's).
    ctx: &'a Ctx,
    /// The steps' context: their own stop flag, set on SIGINT or on a failure.
    steps_ctx: Ctx,
    plan: &'a Plan,
    store: RunStore,
    /// Leave the workers running after a successful run.
    keep: bool,
}

impl Shared<'_> {
    fn stop_steps(&self) {
        self.steps_ctx.cancel.store(true, Ordering::Relaxed);
    }
}

/// What the run has done so far.
struct Progress {
    record: RunRecord,
    done: BTreeMap<String, StepResult>,
    /// The worker keys spawned by this attempt (torn down at the end).
    spawned: BTreeSet<String>,
    /// The first failed write of run.json, and the step whose change it was to record: the run
    /// stops there (a step done but not recorded runs again on `--resume`).
    unrecorded: Option<(usize, Error)>,
}

/// Runs `prepared` to its end and returns the final record. `keep` leaves the workers running
/// after a successful run. `observe` sees the record after every change and on every tick.
pub fn execute(
    ctx: &Ctx,
    plan: &Plan,
    prepared: Prepared,
    keep: bool,
    observe: &mut dyn FnMut(&RunRecord),
) -> Result<RunRecord> {
    // The lock lives until the run's end is recorded: no `--resume` can take the run before.
    let Prepared {
        store,
        lock: _lock,
        record,
        done,
    } = prepared;
    let shared = Shared {
        ctx,
        steps_ctx: ctx.with_own_cancel(),
        plan,
        store,
        keep,
    };
    let mut progress = Progress {
        record,
        done,
        spawned: BTreeSet::new(),
        unrecorded: None,
    };
    observe(&progress.record);
    for wave in &plan.waves {
        run_wave(&shared, &mut progress, wave, observe);
        if progress.record.failed.is_some() || progress.unrecorded.is_some() || ctx.cancelled() {
            break;
        }
    }
    conclude(&shared, progress, observe)
}

/// Runs the steps of one wave not done yet, each on its own thread, until all have ended.
fn run_wave(
    shared: &Shared,
    progress: &mut Progress,
    wave: &[usize],
    observe: &mut dyn FnMut(&RunRecord),
) {
    let plan = shared.plan;
    let todo: Vec<(usize, bool, String)> = wave
        .iter()
        .copied()
        .filter(|&i| !progress.done.contains_key(&plan.steps[i].id))
        .map(|i| {
            let spawn_first = progress.spawned.insert(plan.steps[i].worker.clone());
            (i, spawn_first, progress.record.steps[i].worker_name.clone())
        })
        .collect();
    if todo.is_empty() {
        return;
    }
    let (tx, rx) = mpsc::channel::<Message>();
    let results = progress.done.clone();
    let run_id = progress.record.run_id.clone();
    std::thread::scope(|scope| {
        for (i, spawn_first, worker_name) in todo {
            let tx = tx.clone();
            let (results, run_id) = (&results, &run_id);
            scope.spawn(move || {
                let _ = tx.send(Message::Started(i));
                let step = &plan.steps[i];
                let job = StepJob {
                    step,
                    worker: &plan.workers[&step.worker],
                    worker_name: &worker_name,
                    spawn_first,
                    results,
                    store: &shared.store,
                    base: &plan.base,
                    run_id,
                };
                let _ = tx.send(Message::Finished(i, run_step(&shared.steps_ctx, &job)));
            });
        }
        drop(tx);
        progress.follow(shared, &rx, observe);
    });
}

impl Progress {
    /// Records each step's start and end as the threads report them, until all have ended;
    /// stops the others at SIGINT or the first failure.
    fn follow(
        &mut self,
        shared: &Shared,
        rx: &mpsc::Receiver<Message>,
        observe: &mut dyn FnMut(&RunRecord),
    ) {
        loop {
            if shared.ctx.cancelled() {
                shared.stop_steps();
            }
            match rx.recv_timeout(TICK) {
                Ok(Message::Started(i)) => {
                    let attempt = self.record.attempt;
                    let s = &mut self.record.steps[i];
                    s.status = StepStatus::Running;
                    s.started_at = Some(now_ms());
                    s.attempt = attempt;
                    self.save(shared, i);
                }
                Ok(Message::Finished(i, result)) => {
                    finish_step(&mut self.record, i, result, &mut self.done, shared.plan);
                    if self.record.failed.is_some() {
                        shared.stop_steps();
                    }
                    crate::adapters::pause::at("run-step-ended");
                    self.save(shared, i);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            observe(&self.record);
        }
    }
}

impl Progress {
    /// Writes the record after step `i` changed; the first write that fails stops the steps
    /// still running, and the run ends failed on it ([`conclude`]).
    fn save(&mut self, shared: &Shared, i: usize) {
        if let Err(e) = shared.store.write_record(&self.record) {
            shared.stop_steps();
            self.unrecorded.get_or_insert((i, e));
        }
    }
}

/// The run's end: its status, the steps that did not run, the teardown, the final record.
fn conclude(
    shared: &Shared,
    progress: Progress,
    observe: &mut dyn FnMut(&RunRecord),
) -> Result<RunRecord> {
    let Progress {
        mut record,
        spawned,
        done,
        unrecorded,
    } = progress;
    if let Some((i, e)) = &unrecorded
        && record.failed.is_none()
    {
        record.failed = Some(Failure {
            step: record.steps[*i].id.clone(),
            message: format!("the run's record could not be written after it: {e}"),
        });
    }
    let failed = record.failed.clone();
    let interrupted = shared.ctx.cancelled()
        || record
            .steps
            .iter()
            .any(|s| s.status == StepStatus::Cancelled);
    record.status = match (&failed, interrupted) {
        (Some(_), _) => RunStatus::Failed,
        (None, true) => RunStatus::Interrupted,
        (None, false) => RunStatus::Completed,
    };
    skip_the_rest(&mut record, shared.plan, failed.as_ref());
    if record.status == RunStatus::Completed {
        record.results = final_results(shared.plan, &done);
    }
    if record.status != RunStatus::Completed || !shared.keep {
        teardown(shared.ctx, &record.run_id, &spawned);
    }
    record.ended_at = Some(now_ms());
    let written = shared.store.write_record(&record);
    observe(&record);
    match (unrecorded, written) {
        (Some((_, e)), _) | (None, Err(e)) => Err(e),
        (None, Ok(())) => Ok(record),
    }
}

/// What the final steps (those no other step needs) ended with, in the file's order.
fn final_results(plan: &Plan, done: &BTreeMap<String, StepResult>) -> Vec<FinalResult> {
    let deps: graph::Deps = plan.steps.iter().map(|s| s.needs.clone()).collect();
    graph::finals(&deps)
        .into_iter()
        .filter_map(|i| {
            let step = &plan.steps[i];
            let result = done.get(&step.id)?;
            let value = step
                .guard
                .schema
                .as_ref()
                .and_then(|_| serde_json::from_str(&result.answer).ok());
            let outputs = step
                .outputs
                .iter()
                .filter(|(_, source)| *source != OutputSource::Answer)
                .filter_map(|(k, _)| Some((k.clone(), result.outputs.get(k)?.clone())))
                .collect();
            Some(FinalResult {
                step: step.id.clone(),
                answer: result.answer.clone(),
                value,
                outputs,
            })
        })
        .collect()
}

/// Kills every worker the run started (their folders stay as tombstones). Runs on a context
/// whose stop flag is clear: the caller's may be set by the Ctrl-C that got us here.
fn teardown(ctx: &Ctx, run_id: &str, spawned: &BTreeSet<String>) {
    let ctx = ctx.with_own_cancel();
    for key in spawned {
        let args = KillArgs {
            name: Some(worker_name(run_id, key)),
            all: false,
            purge: false,
            discard: false,
        };
        let _ = kill::kill(&ctx, &args);
    }
}

fn finish_step(
    record: &mut RunRecord,
    i: usize,
    result: Result<StepResult, StepFailure>,
    done: &mut BTreeMap<String, StepResult>,
    plan: &Plan,
) {
    let first_failure = record.failed.is_none();
    let s = &mut record.steps[i];
    s.ended_at = Some(now_ms());
    match result {
        Ok(result) => {
            s.status = StepStatus::Done;
            s.outcome = Some("stop".into());
            s.outputs = plan.steps[i]
                .outputs
                .iter()
                .map(|(k, _)| k.clone())
                .collect();
            done.insert(s.id.clone(), result);
        }
        Err(f) if f.interrupted => {
            s.status = StepStatus::Cancelled;
            s.message = Some("stopped before its turn ended".into());
        }
        Err(f) => {
            s.status = StepStatus::Failed;
            s.outcome = f.outcome.map(|o| o.as_str().to_string());
            s.exit = Some(f.exit);
            s.message = Some(f.message.clone());
            if first_failure {
                record.failed = Some(Failure {
                    step: s.id.clone(),
                    message: f.message,
                });
            }
        }
    }
}

/// Marks every step that did not run: skipped because it needs the failed step, or because the
/// run stopped first.
fn skip_the_rest(record: &mut RunRecord, plan: &Plan, failed: Option<&Failure>) {
    let failed_index = failed.and_then(|f| plan.step_index(&f.step));
    let deps: graph::Deps = plan.steps.iter().map(|s| s.needs.clone()).collect();
    let needing_failed = failed_index
        .map(|f| graph::needing(&deps, f))
        .unwrap_or_default();
    for (i, s) in record.steps.iter_mut().enumerate() {
        if s.status != StepStatus::Pending {
            continue;
        }
        s.status = StepStatus::Skipped;
        let needs_failed = needing_failed.contains(&i);
        s.message = Some(match (failed, needs_failed) {
            (Some(f), true) => format!("needs `{}`, which failed", f.step),
            (Some(f), false) => format!("the run stopped when `{}` failed", f.step),
            (None, _) => "the run was interrupted before it started".into(),
        });
    }
}
