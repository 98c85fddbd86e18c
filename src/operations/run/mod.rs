//! `run`: a workflow from file to finished record. [`load`] reads and checks the file (nothing
//! is created when it is wrong), [`prepare_new`]/[`prepare_resume`] claim or reopen the run's
//! folder, and [`execute`] runs the dependency waves, each wave's steps side by side.

mod execute;
mod load;
mod step;

pub use execute::execute;
pub use load::{load, load_from};

use super::Ctx;
use super::kill;
use crate::adapters::host::now_ms;
use crate::adapters::process;
use crate::adapters::runs::RunStore;
use crate::core::args::KillArgs;
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::workflow::record::{
    RunRecord, RunStatus, Runner, StepRecord, StepStatus, run_id, worker_name,
};
use crate::core::workflow::{Plan, PlannedStep};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What a finished step leaves for the steps after it.
#[derive(Debug, Clone, Default)]
pub struct StepResult {
    pub answer: String,
    pub outputs: BTreeMap<String, String>,
}

/// A run ready to execute: its folder and lock, its record, and the results of steps already
/// done.
pub struct Prepared {
    pub store: RunStore,
    /// The run folder's lock, held until the run ends.
    pub lock: crate::adapters::runs::RunLock,
    pub record: RunRecord,
    pub done: BTreeMap<String, StepResult>,
}

/// Claims a new run id and writes the first record (every step pending).
pub fn prepare_new(ctx: &Ctx, plan: &Plan, file: &Path, text: &str) -> Result<Prepared> {
    let (id, store) = loop {
        let id = run_id(rand_u64());
        if let Some(store) = RunStore::create(ctx.state.path(), &id)? {
            break (id, store);
        }
    };
    let lock = store.lock()?.ok_or_else(|| still_running(&id, None))?;
    store.save_workflow(text)?;
    let record = RunRecord {
        run_id: id.clone(),
        name: plan.name.clone(),
        file: file.display().to_string(),
        base: Some(plan.base.display().to_string()),
        status: RunStatus::Running,
        attempt: 1,
        started_at: now_ms(),
        ended_at: None,
        steps: plan
            .steps
            .iter()
            .map(|s| pending(plan, &id, s, 0))
            .collect(),
        failed: None,
        runner: this_runner(),
        results: Vec::new(),
    };
    store.write_record(&record)?;
    share_budget(ctx, plan, &record)?;
    Ok(Prepared {
        store,
        lock,
        record,
        done: BTreeMap::new(),
    })
}

/// The record of a step that has not run (yet, or again) in run `run_id`.
fn pending(plan: &Plan, run_id: &str, step: &PlannedStep, attempt: u32) -> StepRecord {
    StepRecord {
        id: step.id.clone(),
        worker: step.worker.clone(),
        worker_name: worker_name(run_id, &step.worker),
        provider: plan.workers[&step.worker].spawn.provider.to_string(),
        status: StepStatus::Pending,
        outcome: None,
        message: None,
        exit: None,
        started_at: None,
        ended_at: None,
        outputs: Vec::new(),
        attempt,
    }
}

/// Reopens a run: steps that finished keep their results, every other step goes back to
/// pending. `plan` may come from an edited file, as long as the finished steps still exist. A
/// record left `running` by a runner that is gone (SIGKILL, a crash) is resumed too, once the
/// workers that runner left are killed.
pub fn prepare_resume(ctx: &Ctx, store: RunStore, plan: &Plan) -> Result<Prepared> {
    let old = store.read_record()?;
    let lock = store
        .lock()?
        .ok_or_else(|| still_running(&old.run_id, old.runner))?;
    if old.status == RunStatus::Running {
        match old.runner {
            Some(r) if !process::is_running(r.pid, r.started) => kill_leftovers(ctx, &old)?,
            // A runner that is alive, or a record too old to name its runner.
            runner => return Err(still_running(&old.run_id, runner)),
        }
    }
    let mut done = BTreeMap::new();
    let mut steps = Vec::new();
    for s in &plan.steps {
        let previous = old.step(&s.id);
        let finished = previous.filter(|p| p.status == StepStatus::Done);
        if let Some(p) = finished {
            let answer = store.read_step_file(&s.id, "answer")?;
            let mut outputs = BTreeMap::new();
            for key in &p.outputs {
                outputs.insert(
                    key.clone(),
                    store.read_step_file(&s.id, &format!("outputs/{key}"))?,
                );
            }
            done.insert(s.id.clone(), StepResult { answer, outputs });
            steps.push(p.clone());
            continue;
        }
        let attempt = previous.map_or(0, |p| p.attempt);
        steps.push(pending(plan, &old.run_id, s, attempt));
    }
    let record = RunRecord {
        status: RunStatus::Running,
        attempt: old.attempt + 1,
        ended_at: None,
        failed: None,
        steps,
        runner: this_runner(),
        results: Vec::new(),
        ..old
    };
    store.write_record(&record)?;
    share_budget(ctx, plan, &record)?;
    Ok(Prepared {
        store,
        lock,
        record,
        done,
    })
}

/// Sets the run's budget (the file's `budget:`, maybe edited before a resume), shared by its
/// workers; what the workers of earlier attempts used stays counted.
fn share_budget(ctx: &Ctx, plan: &Plan, record: &RunRecord) -> Result<()> {
    let members: BTreeSet<String> = record.steps.iter().map(|s| s.worker_name.clone()).collect();
    super::budget_pool::set_run(
        ctx,
        &record.run_id,
        &plan.budget,
        members.into_iter().collect(),
    )
}

/// The refusal to resume a run that another process is running.
fn still_running(run_id: &str, runner: Option<Runner>) -> Error {
    let by = runner.map_or(String::new(), |r| format!(" by process {}", r.pid));
    Error::usage(format!(
        "run {run_id} is still running{by}; resume it once that runner has ended \
         (a runner killed by a signal is detected and its run can then be resumed)"
    ))
}

/// The process running this attempt.
fn this_runner() -> Option<Runner> {
    process::this_process().map(|(pid, started)| Runner { pid, started })
}

/// Kills the workers a dead runner left behind (their folders stay as tombstones, as after a
/// failed run), so none of them outlives the run and each can be spawned afresh.
fn kill_leftovers(ctx: &Ctx, old: &RunRecord) -> Result<()> {
    let names: BTreeSet<&str> = old.steps.iter().map(|s| s.worker_name.as_str()).collect();
    for name in names {
        let Ok(parsed) = WorkerName::parse(name) else {
            continue;
        };
        if !ctx.state.session_dir(&parsed).is_dir() {
            continue;
        }
        let args = KillArgs {
            name: Some(name.to_string()),
            all: false,
            purge: false,
            discard: false,
        };
        kill::kill(ctx, &args)?;
    }
    Ok(())
}

fn rand_u64() -> u64 {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]))
}
