//! One step: make sure its worker is up (spawning it on first use), render the prompt, send
//! it, wait for the turn to end as the step says, and keep the answer and outputs.

use super::{Ctx, StepResult};
use crate::adapters::runs::RunStore;
use crate::core::args::{
    GuardArgs, KillArgs, NoUnknownFields, ReadArgs, SpawnArgs, WaitArgs, WaitUntil,
};
use crate::core::errors::Error;
use crate::core::outcome::OutcomeKind;
use crate::core::workflow::template::{self, Ref};
use crate::core::workflow::{OutputSource, PlannedStep, PlannedWorker};
use crate::operations::guard::Guard;
use crate::operations::{kill, send, spawn, wait};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// Default bound of a step's wait.
const DEFAULT_TIMEOUT: &str = "30m";
/// The most of a `file:` output umbel keeps.
const MAX_OUTPUT_FILE: u64 = 16 * 1024 * 1024;

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
            interrupted: matches!(e, Error::Interrupted),
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
}

/// Runs one step to its end.
pub fn run_step(ctx: &Ctx, job: &StepJob) -> Result<StepResult, StepFailure> {
    let StepJob {
        step,
        worker,
        worker_name,
        ..
    } = *job;
    if job.spawn_first {
        // A tombstone of the same name is this run's own, from an earlier attempt.
        if ctx
            .state
            .session_dir(&crate::core::name::WorkerName::parse(worker_name)?)
            .is_dir()
            || crate::operations::remote::find(ctx, worker_name)?.is_some()
        {
            let purge = KillArgs {
                name: Some(worker_name.to_string()),
                all: false,
                purge: true,
            };
            kill::kill(ctx, &purge)?;
        }
        let args = SpawnArgs {
            name: Some(worker_name.to_string()),
            ..worker.spawn.clone()
        };
        spawn::spawn(ctx, &args)?;
    }
    let prompt = template::render(&step.prompt, |r| match r {
        Ref::Env(name) => ctx.var(name).map(str::to_string),
        Ref::Session => Some(worker_name.to_string()),
        Ref::Answer { step } => job.results.get(step).map(|r| r.answer.clone()),
        Ref::Output { step, key } => job
            .results
            .get(step)
            .and_then(|r| r.outputs.get(key).cloned()),
    });
    job.store.write_step_file(&step.id, "prompt", &prompt)?;
    let guard = Guard::prepare(ctx, &step.guard, job.base)?;
    let position = send::send_turn(ctx, worker_name, prompt.as_bytes(), &GuardArgs::default())?;
    let wait_args = WaitArgs {
        name: worker_name.to_string(),
        since: Some(position),
        until: WaitUntil {
            timeout: Some(step.wait.timeout.clone().unwrap_or(DEFAULT_TIMEOUT.into())),
            ..step.wait.clone()
        },
        guard: GuardArgs::default(),
        unknown: NoUnknownFields,
    };
    let outcome = wait::wait_guarded(ctx, &wait_args, guard.as_ref())?;
    if outcome.outcome != OutcomeKind::Stop {
        let kind = outcome.outcome.as_str();
        let reason = outcome
            .reason
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        let said = outcome
            .check
            .as_ref()
            .filter(|c| !c.accepted)
            .map(|c| format!("; the last check said: {}", first_line(&c.output)))
            .unwrap_or_default();
        return Err(StepFailure {
            outcome: Some(outcome.outcome),
            message: format!("{kind}{reason}: {}{said}", outcome.message),
            exit: outcome.outcome.exit_code(),
            interrupted: false,
        });
    }
    // Under a `schema` guard the step's answer is the accepted value, as clean JSON.
    let answer = match &outcome.structured_output {
        Some(value) => serde_json::to_string_pretty(value).unwrap_or_default(),
        None => crate::operations::read::read(ctx, &ReadArgs::of(worker_name))?.text,
    };
    job.store.write_step_file(&step.id, "answer", &answer)?;
    let cwd = worker.spawn.cwd.clone().unwrap_or_default();
    let mut outputs = BTreeMap::new();
    for (key, source) in &step.outputs {
        let value = match source {
            OutputSource::Answer => answer.clone(),
            OutputSource::File(path) => read_output(&cwd.join(path), key)?,
        };
        job.store
            .write_step_file(&step.id, &format!("outputs/{key}"), &value)?;
        outputs.insert(key.clone(), value);
    }
    Ok(StepResult { answer, outputs })
}

fn read_output(path: &Path, key: &str) -> Result<String, StepFailure> {
    let fail = |message: String| StepFailure {
        outcome: None,
        message,
        exit: 1,
        interrupted: false,
    };
    let file = std::fs::File::open(path).map_err(|e| {
        fail(format!(
            "output `{key}`: cannot read {}: {e}",
            path.display()
        ))
    })?;
    let mut text = String::new();
    file.take(MAX_OUTPUT_FILE)
        .read_to_string(&mut text)
        .map_err(|e| {
            fail(format!(
                "output `{key}`: cannot read {}: {e}",
                path.display()
            ))
        })?;
    Ok(text)
}

/// The first non-empty line of a check's output, cut to 200 characters.
fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(no output)");
    line.chars().take(200).collect()
}
