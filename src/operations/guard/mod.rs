//! Guardrails, enforced: after a turn stops, umbel checks the answer (`--schema`, then
//! `--accept`); a rejection goes back to the worker as feedback and the turn is waited for
//! again, up to `max_attempts` answers, then the wait halts with `rejected`. Every check is
//! recorded in the worker's event log as an `UmbelCheck` event.
//!
//! `send` validates the guardrails before it pastes anything and leaves them in the worker's
//! folder (`guard.json`, with the directory they were given in), so the `wait` that follows
//! enforces them; `wait` may also name its own.

mod accept;
mod check;

use super::Ctx;
use super::worker::Worker;
use crate::adapters::{files, host};
use crate::core::args::GuardArgs;
use crate::core::errors::{Error, Result};
use crate::core::guard::Schema;
use crate::core::name::WorkerName;
use crate::core::outcome::{Outcome, OutcomeKind};
use accept::Accept;
use check::record;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The file `send` leaves the turn's guardrails in.
const GUARD_FILE: &str = "guard.json";

/// Guardrails as given, with the directory relative paths and the check run in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Given {
    guard: GuardArgs,
    dir: PathBuf,
}

/// Guardrails ready to enforce: every input validated, the schema compiled.
pub struct Guard {
    schema: Option<(String, Schema)>,
    accept: Option<Accept>,
    max_attempts: u32,
}

impl Guard {
    /// Validates `args` (given in `dir`): the schema file is read and compiled, the check's
    /// program found, the numbers in range. `None` when no check is asked for.
    pub fn prepare(ctx: &Ctx, args: &GuardArgs, dir: &Path) -> Result<Option<Guard>> {
        let Some(valid) = args.validated()? else {
            return Ok(None);
        };
        let schema = args
            .schema
            .as_ref()
            .map(|file| load_schema(&dir.join(file), file))
            .transpose()?;
        let accept = match valid.accept {
            None => None,
            Some((shown, argv)) => {
                if ctx.find_program(&argv[0], dir).is_none() {
                    return Err(Error::usage(format!(
                        "`--accept {shown}`: `{}` is not an executable program",
                        argv[0]
                    )));
                }
                Some(Accept {
                    argv,
                    shown,
                    dir: dir.to_path_buf(),
                    timeout: valid.check_timeout,
                })
            }
        };
        Ok(Some(Guard {
            schema,
            accept,
            max_attempts: valid.max_attempts,
        }))
    }

    /// [`Guard::prepare`] for guardrails given on this process's command line (or MCP call):
    /// relative paths and the check start in the current directory.
    pub fn prepare_here(ctx: &Ctx, args: &GuardArgs) -> Result<Option<Guard>> {
        Guard::prepare(ctx, args, &current_dir()?)
    }

    /// The guardrails a wait enforces: its own when any guardrail flag is given (an incomplete
    /// set is refused, not ignored), else those its turn was sent with.
    pub fn for_wait(ctx: &Ctx, name: &WorkerName, args: &GuardArgs) -> Result<Option<Guard>> {
        if *args != GuardArgs::default() {
            return Guard::prepare_here(ctx, args);
        }
        match ctx.state.read_record::<Given>(name, GUARD_FILE)? {
            Some(given) => Guard::prepare(ctx, &given.guard, &given.dir),
            None => Ok(None),
        }
    }

    /// Waits for the turn with `wait_turn` (given the position to wait from) and checks each
    /// answer, sending feedback with `resend` (which returns the position to wait from) and
    /// waiting again until one passes or the attempts run out. The caller passes the resend in,
    /// so guardrails do not depend on `send` (which depends on them).
    pub fn enforce(
        &self,
        ctx: &Ctx,
        worker: &Worker,
        mut since: Option<usize>,
        mut wait_turn: impl FnMut(Option<usize>) -> Result<Outcome>,
        mut resend: impl FnMut(&[u8]) -> Result<usize>,
    ) -> Result<Outcome> {
        let mut attempt = 1;
        loop {
            let mut outcome = wait_turn(since)?;
            outcome.attempts = Some(attempt);
            if outcome.outcome != OutcomeKind::Stop {
                return Ok(outcome);
            }
            let answer = worker.answer(ctx)?;
            if answer.is_error {
                return Ok(outcome);
            }
            let verdict = self.check(ctx, worker, &answer, attempt)?;
            record(ctx, &worker.name, attempt, self.max_attempts, &verdict)?;
            outcome.check = Some(verdict.report.clone());
            let Some(feedback) = verdict.feedback else {
                outcome.structured_output = verdict.value;
                return Ok(outcome);
            };
            if attempt >= self.max_attempts {
                let mut rejected = Outcome::new(
                    OutcomeKind::Rejected,
                    format!(
                        "the answer was rejected {attempt} time{} ({} check)",
                        if attempt == 1 { "" } else { "s" },
                        verdict.report.check.as_str()
                    ),
                    outcome.position,
                );
                rejected.attempts = Some(attempt);
                rejected.check = Some(verdict.report);
                return Ok(rejected);
            }
            since = Some(resend(feedback.as_bytes())?);
            attempt += 1;
        }
    }
}

/// `send`'s part, before the paste: validates the turn's guardrails, so bad ones send nothing.
pub fn given_for_send(ctx: &Ctx, args: &GuardArgs) -> Result<Option<Given>> {
    let dir = current_dir()?;
    Ok(Guard::prepare(ctx, args, &dir)?.map(|_| Given {
        guard: args.clone(),
        dir,
    }))
}

/// `send`'s part, after the paste: leaves the guardrails for the `wait` that follows (none
/// clears an earlier turn's).
pub fn leave_for_wait(ctx: &Ctx, name: &WorkerName, given: Option<&Given>) -> Result<()> {
    ctx.state.write_json(name, GUARD_FILE, given)
}

fn current_dir() -> Result<PathBuf> {
    host::current_dir_or_error()
}

fn load_schema(path: &Path, given: &Path) -> Result<(String, Schema)> {
    read_schema(path, given).map(|(shown, _, schema)| (shown, schema))
}

/// The schema `given` as a JSON document, checked to compile, with how it was given: what a
/// remote worker's host gets (inline), since it cannot read a path from here.
pub fn schema_document(path: &Path, given: &Path) -> Result<(String, Value)> {
    read_schema(path, given).map(|(shown, document, _)| (shown, document))
}

/// Reads the schema `given`: a file (at `path`), or the schema itself as inline JSON starting
/// with `{` (how another umbel forwards a schema to a worker's host).
fn read_schema(path: &Path, given: &Path) -> Result<(String, Value, Schema)> {
    let shown = given.display().to_string();
    let text = match shown.trim_start().starts_with('{') {
        true => shown.clone().into_bytes(),
        false => files::read(path).map_err(|e| {
            Error::usage(format!(
                "`--schema {shown}`: cannot read {}: {e}",
                path.display()
            ))
        })?,
    };
    let document: Value = serde_json::from_slice(&text)
        .map_err(|e| Error::usage(format!("`--schema {shown}` is not JSON: {e}")))?;
    let schema = Schema::compile(&document).map_err(|e| {
        Error::usage(format!(
            "`--schema {shown}` is not a valid JSON Schema: {e}"
        ))
    })?;
    Ok((shown, document, schema))
}
