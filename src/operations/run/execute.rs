//! The coordinator: runs the plan's waves in order and each wave's steps in parallel threads,
//! keeps the record (and the observer) up to date, stops at the first failure or a signal by
//! interrupting the steps still running, and tears down every worker the run started.

use super::step::{StepFailure, StepJob, run_step};
use super::{Ctx, Prepared, StepResult};
use crate::adapters::host::now_ms;
use crate::core::args::KillArgs;
use crate::core::errors::Result;
use crate::core::workflow::Plan;
use crate::core::workflow::graph;
use crate::core::workflow::record::{Failure, RunRecord, RunStatus, StepStatus, worker_name};
use crate::operations::kill;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How often the coordinator looks at SIGINT and refreshes the observer while steps run.
const TICK: Duration = Duration::from_millis(200);

enum Message {
    Started(usize),
    Finished(usize, Result<StepResult, StepFailure>),
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
        mut record,
        mut done,
    } = prepared;
    // The steps get their own stop flag: set on SIGINT (the caller's flag) or on a failure.
    let run_ctx = Ctx {
        cancel: Arc::new(AtomicBool::new(false)),
        ..ctx.clone()
    };
    let mut spawned: BTreeSet<String> = BTreeSet::new();
    let attempt = record.attempt;
    observe(&record);
    'waves: for wave in &plan.waves {
        let todo: Vec<usize> = wave
            .iter()
            .copied()
            .filter(|&i| !done.contains_key(&plan.steps[i].id))
            .collect();
        if todo.is_empty() {
            continue;
        }
        let (tx, rx) = mpsc::channel::<Message>();
        let results = done.clone();
        std::thread::scope(|scope| {
            for &i in &todo {
                let step = &plan.steps[i];
                let worker = &plan.workers[&step.worker];
                let spawn_first = spawned.insert(step.worker.clone());
                let tx = tx.clone();
                let run_ctx = &run_ctx;
                let results = &results;
                let store = &store;
                let worker_name = record.steps[i].worker_name.clone();
                scope.spawn(move || {
                    let _ = tx.send(Message::Started(i));
                    let job = StepJob {
                        step,
                        worker,
                        worker_name: &worker_name,
                        spawn_first,
                        results,
                        store,
                        base: &plan.base,
                    };
                    let _ = tx.send(Message::Finished(i, run_step(run_ctx, &job)));
                });
            }
            drop(tx);
            loop {
                if ctx.cancelled() {
                    run_ctx.cancel.store(true, Ordering::Relaxed);
                }
                match rx.recv_timeout(TICK) {
                    Ok(Message::Started(i)) => {
                        let s = &mut record.steps[i];
                        s.status = StepStatus::Running;
                        s.started_at = Some(now_ms());
                        s.attempt = attempt;
                        let _ = store.write_record(&record);
                    }
                    Ok(Message::Finished(i, result)) => {
                        finish_step(&mut record, i, result, &mut done, plan);
                        if record.failed.is_some() {
                            run_ctx.cancel.store(true, Ordering::Relaxed);
                        }
                        let _ = store.write_record(&record);
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
                observe(&record);
            }
        });
        if record.failed.is_some() || ctx.cancelled() {
            break 'waves;
        }
    }
    let failed = record.failed.clone();
    let interrupted = ctx.cancelled()
        || record
            .steps
            .iter()
            .any(|s| s.status == StepStatus::Cancelled);
    record.status = match (&failed, interrupted) {
        (Some(_), _) => RunStatus::Failed,
        (None, true) => RunStatus::Interrupted,
        (None, false) => RunStatus::Completed,
    };
    skip_the_rest(&mut record, plan, failed.as_ref());
    if record.status != RunStatus::Completed || !keep {
        teardown(ctx, &record.run_id, &spawned);
    }
    record.ended_at = Some(now_ms());
    store.write_record(&record)?;
    observe(&record);
    Ok(record)
}

/// Kills every worker the run started (their folders stay as tombstones). Runs on a context
/// whose stop flag is clear: the caller's may be set by the Ctrl-C that got us here.
fn teardown(ctx: &Ctx, run_id: &str, spawned: &BTreeSet<String>) {
    let ctx = Ctx {
        cancel: Arc::new(AtomicBool::new(false)),
        ..ctx.clone()
    };
    for key in spawned {
        let args = KillArgs {
            name: Some(worker_name(run_id, key)),
            all: false,
            purge: false,
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
    for (i, s) in record.steps.iter_mut().enumerate() {
        if s.status != StepStatus::Pending {
            continue;
        }
        s.status = StepStatus::Skipped;
        let needs_failed = failed_index.is_some_and(|f| graph::ancestors(&deps, i).contains(&f));
        s.message = Some(match (failed, needs_failed) {
            (Some(f), true) => format!("needs `{}`, which failed", f.step),
            (Some(f), false) => format!("the run stopped when `{}` failed", f.step),
            (None, _) => "the run was interrupted before it started".into(),
        });
    }
}
