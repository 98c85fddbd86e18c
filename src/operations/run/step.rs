//! One step: make sure its worker is up (spawning it on first use), render the prompt, send
//! it, wait for the turn to end as the step says, and keep the answer and outputs.

use super::{Ctx, StepResult};
use crate::adapters::runs::RunStore;
use crate::core::args::{KillArgs, SpawnArgs};
use crate::core::errors::Error;
use crate::core::name::WorkerName;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::workflow::template::{self, Ref};
use crate::core::workflow::{OutputSource, PlannedStep, PlannedWorker};
use crate::operations::guard::Guard;
use crate::operations::turn::{self, TurnRequest};
use crate::operations::worker::Worker;
use crate::operations::{budget_pool, kill, remote, spawn, worker_files};
use std::collections::BTreeMap;
use std::path::Path;

/// Why a step did not finish.
#[derive(Debug, Clone)]
pub struct StepFailure {
    /// The wait's outcome, when the turn ended some other way than `stop`.
    pub outcome: Option<OutcomeKind>,
    pub message: String,
    pub exit: u8,
    /// It was stopped from outside (SIGINT, or another step failed).
    pub interrupted: bool,
}

impl From<Error> for StepFailure {
    fn from(e: Error) -> Self {
        StepFailure {
            outcome: None,
            interrupted: matches!(e.unsent(), Error::Interrupted),
            exit: e.exit_code(),
            message: e.to_string(),
        }
    }
}

/// What a step needs to run.
pub struct StepJob<'a> {
    pub step: &'a PlannedStep,
    pub worker: &'a PlannedWorker,
    pub worker_name: &'a str,
    /// The worker has to be spawned first (its first step in this attempt).
    pub spawn_first: bool,
    pub results: &'a BTreeMap<String, StepResult>,
    pub store: &'a RunStore,
    /// The workflow file's folder, where guardrail checks run.
    pub base: &'a Path,
    /// The run's id (its workers share its budget).
    pub run_id: &'a str,
}

/// The step's worker, spawned on its first step in this attempt, else loaded. A tombstone of
/// the same name is this run's own, from an earlier attempt: it is purged first, and when it
/// had a worktree, the new worker runs in that same worktree — the earlier attempt's edits
/// (uncommitted ones too) are the work the run goes on from, never thrown away.
fn ready_worker(ctx: &Ctx, job: &StepJob) -> Result<Worker, StepFailure> {
    let name = WorkerName::parse(job.worker_name)?;
    if !job.spawn_first {
        return Ok(Worker::load(ctx, name.as_str())?);
    }
    let mut adopted = None;
    if ctx.state.session_dir(&name).is_dir() {
        adopted = earlier_worktree(ctx, &name, job);
        let purge = KillArgs {
            name: Some(name.to_string()),
            all: false,
            purge: adopted.is_none(),
            discard: false,
        };
        kill::kill(ctx, &purge)?;
        if adopted.is_some() {
            // The worktree stays for the new worker; only the old worker's folder goes.
            budget_pool::retire_named(ctx, &name)?;
            ctx.state.remove_session(&name)?;
        }
    }
    let args = SpawnArgs {
        name: Some(name.to_string()),
        ..job.worker.spawn.clone()
    };
    let worker = Worker::from_meta(spawn::spawn_with(
        ctx,
        &args,
        adopted,
        spawn::Readiness::Ready,
    )?)?;
    budget_pool::join_run(ctx, &name, job.run_id)?;
    Ok(worker)
}

/// The worktree the earlier attempt's worker `name` ran in, when the workflow still asks for
/// one and it is still there.
fn earlier_worktree(ctx: &Ctx, name: &WorkerName, job: &StepJob) -> Option<spawn::Adopted> {
    job.worker.spawn.worktree.as_ref()?;
    let old = Worker::load(ctx, name.as_str()).ok()?;
    let worktree = old.meta.worktree.clone()?;
    worktree.path.is_dir().then(|| spawn::Adopted {
        worktree,
        cwd: old.meta.cwd.clone(),
    })
}

/// Runs one step to its end.
pub fn run_step(ctx: &Ctx, job: &StepJob) -> Result<StepResult, StepFailure> {
    if job.worker.spawn.host.is_some() {
        return remote_step(ctx, job);
    }
    let step = job.step;
    let worker = ready_worker(ctx, job)?;
    let prompt = render_prompt(ctx, job);
    job.store.write_step_file(&step.id, "prompt", &prompt)?;
    let guard = Guard::prepare(ctx, &step.guard, job.base)?;
    let until = step.wait.parse()?;
    let request = TurnRequest {
        prompt: prompt.as_bytes(),
        until: &until,
        guard: guard.as_ref(),
        // A step whose worker is still busy (another step's turn) waits for it.
        queue: Some(until.timeout),
    };
    let done = turn::turn(ctx, &worker, &request)?;
    let outcome = &done.outcome;
    if outcome.outcome != OutcomeKind::Stop {
        return Err(not_stopped(outcome));
    }
    let answer = match (&outcome.structured_output, done.answer) {
        (Some(value), _) => accepted(value),
        (None, Some(answer)) => answer?.text,
        (None, None) => worker.answer(ctx)?.text,
    };
    job.store.write_step_file(&step.id, "answer", &answer)?;
    // A `file:` output is read inside the worker's folder (its worktree, with `worktree:`), as
    // a host reads a remote worker's.
    let cwd = worker.meta.cwd.clone();
    let inside = |key: &str, path: &str| {
        worker_files::read_inside(job.worker_name, &cwd, path, "")
            .map_err(|e| fail(format!("output `{key}`: {e}")))
    };
    let diff = |key: &str| {
        let Some(wt) = &worker.meta.worktree else {
            return Err(fail(format!(
                "output `{key}: diff`: worker `{}` has no worktree",
                job.worker_name
            )));
        };
        super::super::worktree::diff(ctx, &worker.name, wt, false)
            .map(|d| d.patch)
            .map_err(|e| fail(format!("output `{key}`: {e}")))
    };
    let outputs = keep_outputs(job, &answer, (&inside, &diff))?;
    Ok(StepResult { answer, outputs })
}

/// A step whose worker runs on another host (`host:`): the same turn, run by the host's umbel
/// (spawned there on its first step, an earlier attempt's worker purged first), which also
/// enforces the step's guardrails.
fn remote_step(ctx: &Ctx, job: &StepJob) -> Result<StepResult, StepFailure> {
    let (step, name) = (job.step, job.worker_name);
    if job.spawn_first {
        if let Some(old) = remote::find(ctx, name)? {
            remote::verbs::kill(ctx, &old, true, false)?;
        }
        let args = SpawnArgs {
            name: Some(name.to_string()),
            ..job.worker.spawn.clone()
        };
        spawn::spawn(ctx, &args)?;
    }
    let at = remote::find(ctx, name)?.ok_or_else(|| Error::NotFound {
        name: name.to_string(),
    })?;
    let prompt = render_prompt(ctx, job);
    job.store.write_step_file(&step.id, "prompt", &prompt)?;
    let until = step.wait.parse()?;
    let guard = (&step.guard, job.base);
    let (outcome, answer) = remote::verbs::turn(ctx, &at, prompt.as_bytes(), &until, guard)?;
    let answer = match (&outcome.structured_output, answer) {
        (_, None) => return Err(not_stopped(&outcome)),
        (Some(value), Some(_)) => accepted(value),
        (None, Some(answer)) => answer.text,
    };
    job.store.write_step_file(&step.id, "answer", &answer)?;
    // A `file:` output is on the host: its umbel reads it, inside the worker's folder.
    let on_host = |key: &str, path: &str| {
        remote::output_file::fetch(ctx, &at, path).map_err(|e| fail(format!("output `{key}`: {e}")))
    };
    let no_diff = |key: &str| {
        Err(fail(format!(
            "output `{key}: diff` is read on this machine only, and worker `{name}` runs on host `{}`",
            at.host
        )))
    };
    let outputs = keep_outputs(job, &answer, (&on_host, &no_diff))?;
    Ok(StepResult { answer, outputs })
}

/// Under a `schema` guard the step's answer is the accepted value, as clean JSON.
fn accepted(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The step's prompt with its `{{ … }}` references filled in.
fn render_prompt(ctx: &Ctx, job: &StepJob) -> String {
    template::render(&job.step.prompt, |r| match r {
        Ref::Env(name) => ctx.var(name).map(str::to_string),
        Ref::Session => Some(job.worker_name.to_string()),
        Ref::Answer { step } => job.results.get(step).map(|r| r.answer.clone()),
        Ref::Output { step, key } => job
            .results
            .get(step)
            .and_then(|r| r.outputs.get(key).cloned()),
    })
}

/// Why a turn that did not stop fails its step (with the last check's verdict, if any).
fn not_stopped(outcome: &Outcome) -> StepFailure {
    let said = outcome
        .check
        .as_ref()
        .filter(|c| !c.accepted)
        .map(|c| format!("; the last check said: {}", first_line(&c.output)))
        .unwrap_or_default();
    StepFailure {
        outcome: Some(outcome.outcome),
        message: format!("{}: {}{said}", outcome.headline(), outcome.message),
        exit: outcome.outcome.exit_code(),
        interrupted: false,
    }
}

/// What reads output `key`'s file at `path` (relative to the worker's folder), and what
/// reads output `key`'s worktree diff.
type Readers<'a> = (
    &'a dyn Fn(&str, &str) -> Result<String, StepFailure>,
    &'a dyn Fn(&str) -> Result<String, StepFailure>,
);

/// The step's outputs (the answer, files in the worker's folder, its worktree's diff, read by
/// `readers`), kept in the run folder.
fn keep_outputs(
    job: &StepJob,
    answer: &str,
    (file, diff): Readers,
) -> Result<BTreeMap<String, String>, StepFailure> {
    let mut outputs = BTreeMap::new();
    for (key, source) in &job.step.outputs {
        let value = match source {
            OutputSource::Answer => answer.to_string(),
            OutputSource::File(path) => file(key, path)?,
            OutputSource::Diff => diff(key)?,
        };
        job.store
            .write_step_file(&job.step.id, &format!("outputs/{key}"), &value)?;
        outputs.insert(key.clone(), value);
    }
    Ok(outputs)
}

/// A step failure that is no turn's outcome.
fn fail(message: String) -> StepFailure {
    StepFailure {
        outcome: None,
        message,
        exit: 1,
        interrupted: false,
    }
}

/// The first non-empty line of a check's output, cut to 200 characters.
fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(no output)");
    line.chars().take(200).collect()
}
