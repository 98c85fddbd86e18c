//! Guardrails, enforced: after a turn stops, umbel checks the answer (`--schema`, then
//! `--accept`); a rejection goes back to the worker as feedback and the turn is waited for
//! again, up to `max_attempts` answers, then the wait halts with `rejected`. Every check is
//! recorded in the worker's event log as an `UmbelCheck` event.
//!
//! `send` validates the guardrails before it pastes anything and leaves them in the worker's
//! folder (`guard.json`, with the directory they were given in), so the `wait` that follows
//! enforces them; `wait` may also name its own.

use super::Ctx;
use super::send;
use super::worker::{Answer, Worker};
use crate::adapters::exec::{RunError, run_bounded};
use crate::core::args::GuardArgs;
use crate::core::duration::parse_duration;
use crate::core::errors::{Error, Result};
use crate::core::guard::{CheckKind, Rejection, Schema, extract_json, problem_lines};
use crate::core::guard::{DEFAULT_MAX_ATTEMPTS, tail};
use crate::core::name::WorkerName;
use crate::core::outcome::{CheckReport, Outcome, OutcomeKind};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The event-log kind of a recorded check.
pub const CHECK_EVENT: &str = "UmbelCheck";
/// The file `send` leaves the turn's guardrails in.
const GUARD_FILE: &str = "guard.json";
const DEFAULT_CHECK_TIMEOUT: Duration = Duration::from_secs(60);
/// The most check output kept in the event log and in the outcome.
const MAX_RECORDED_OUTPUT: usize = 64 * 1024;

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

struct Accept {
    argv: Vec<String>,
    shown: String,
    dir: PathBuf,
    timeout: Duration,
}

impl Guard {
    /// Validates `args` (given in `dir`): the schema file is read and compiled, the check's
    /// program found, the numbers in range. `None` when no check is asked for.
    pub fn prepare(ctx: &Ctx, args: &GuardArgs, dir: &Path) -> Result<Option<Guard>> {
        if !args.is_set() {
            if args.accept_shell || args.max_attempts.is_some() || args.check_timeout.is_some() {
                return Err(Error::usage(
                    "`--accept-shell`, `--max-attempts` and `--check-timeout` need `--accept` or `--schema`",
                ));
            }
            return Ok(None);
        }
        let max_attempts = args.max_attempts.unwrap_or(DEFAULT_MAX_ATTEMPTS);
        if !(1..=100).contains(&max_attempts) {
            return Err(Error::usage(format!(
                "`--max-attempts {max_attempts}` is out of range: 1 to 100 answers"
            )));
        }
        let schema = args
            .schema
            .as_ref()
            .map(|file| load_schema(&dir.join(file), file))
            .transpose()?;
        let accept = match &args.accept {
            None => None,
            Some(command) => {
                let shown = command.to_string();
                let bad = |why: String| Error::usage(format!("`--accept {shown}`: {why}"));
                let argv = command.argv(args.accept_shell).map_err(bad)?;
                if ctx.find_program(&argv[0], dir).is_none() {
                    return Err(bad(format!("`{}` is not an executable program", argv[0])));
                }
                let timeout = match &args.check_timeout {
                    Some(text) => parse_duration(text, "--check-timeout")?,
                    None => DEFAULT_CHECK_TIMEOUT,
                };
                Some(Accept {
                    argv,
                    shown,
                    dir: dir.to_path_buf(),
                    timeout,
                })
            }
        };
        Ok(Some(Guard {
            schema,
            accept,
            max_attempts,
        }))
    }

    /// The guardrails a wait enforces: its own when given, else those its turn was sent with.
    pub fn for_wait(ctx: &Ctx, name: &WorkerName, args: &GuardArgs) -> Result<Option<Guard>> {
        if args.is_set() {
            return Guard::prepare(ctx, args, &current_dir()?);
        }
        match ctx.state.read_json::<Given>(name, GUARD_FILE) {
            Some(given) => Guard::prepare(ctx, &given.guard, &given.dir),
            None => Ok(None),
        }
    }

    /// Waits for the turn with `wait_turn` (given the position to wait from) and checks each
    /// answer, sending feedback and waiting again until one passes or the attempts run out.
    pub fn enforce(
        &self,
        ctx: &Ctx,
        worker: &Worker,
        mut since: Option<usize>,
        mut wait_turn: impl FnMut(Option<usize>) -> Result<Outcome>,
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
            let verdict = self.check(worker, &answer, attempt)?;
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
                        kind_name(verdict.report.check)
                    ),
                    outcome.position,
                );
                rejected.attempts = Some(attempt);
                rejected.check = Some(verdict.report);
                return Ok(rejected);
            }
            since = Some(send::send(ctx, worker.name.as_str(), feedback.as_bytes())?);
            attempt += 1;
        }
    }

    /// Checks one answer: the schema first, then the command.
    fn check(&self, worker: &Worker, answer: &Answer, attempt: u32) -> Result<Verdict> {
        let feedback = |kind, subject: &str, status: Option<&str>, details: &str| {
            let rejection = Rejection {
                attempt,
                max_attempts: self.max_attempts,
                kind,
                subject,
                status,
                details,
            };
            rejection.feedback()
        };
        let mut value = None;
        let mut stdin = answer.text.clone().into_bytes();
        let mut passed = None;
        if let Some((shown, schema)) = &self.schema {
            let problems = match extract_json(&answer.text) {
                Ok(v) => {
                    let problems = schema.problems(&v);
                    value = Some(v);
                    problems
                }
                Err(why) => vec![why],
            };
            let details = problem_lines(&problems);
            let report = CheckReport {
                check: CheckKind::Schema,
                accepted: problems.is_empty(),
                exit_code: None,
                output: details.clone(),
            };
            if !problems.is_empty() {
                let feedback = feedback(CheckKind::Schema, shown, None, &details);
                return Ok(Verdict::rejected(report, feedback));
            }
            stdin = pretty(value.as_ref());
            passed = Some(report);
        }
        let accept = match (&self.accept, passed) {
            (Some(accept), _) => accept,
            (None, Some(report)) => return Ok(Verdict::accepted(report, value)),
            (None, None) => {
                // `prepare` builds no Guard without a check; nothing to reject on.
                let report = CheckReport {
                    check: CheckKind::Accept,
                    accepted: true,
                    exit_code: None,
                    output: String::new(),
                };
                return Ok(Verdict::accepted(report, value));
            }
        };
        let ran = accept.run(worker, answer, attempt, &stdin)?;
        let report = CheckReport {
            check: CheckKind::Accept,
            accepted: ran.passed,
            exit_code: ran.exit_code,
            output: tail(&ran.output, MAX_RECORDED_OUTPUT),
        };
        if ran.passed {
            return Ok(Verdict::accepted(report, value));
        }
        let feedback = feedback(
            CheckKind::Accept,
            &accept.shown,
            Some(&ran.status),
            &ran.output,
        );
        Ok(Verdict::rejected(report, feedback))
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
    std::env::current_dir().map_err(|e| Error::io("cannot read the current directory", ".", e))
}

fn load_schema(path: &Path, given: &Path) -> Result<(String, Schema)> {
    let shown = given.display().to_string();
    let text = std::fs::read(path).map_err(|e| {
        Error::usage(format!(
            "`--schema {shown}`: cannot read {}: {e}",
            path.display()
        ))
    })?;
    let document: Value = serde_json::from_slice(&text)
        .map_err(|e| Error::usage(format!("`--schema {shown}` is not JSON: {e}")))?;
    let schema = Schema::compile(&document).map_err(|e| {
        Error::usage(format!(
            "`--schema {shown}` is not a valid JSON Schema: {e}"
        ))
    })?;
    Ok((shown, schema))
}

fn pretty(value: Option<&Value>) -> Vec<u8> {
    let mut bytes = value
        .and_then(|v| serde_json::to_vec_pretty(v).ok())
        .unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

fn kind_name(kind: CheckKind) -> &'static str {
    match kind {
        CheckKind::Schema => "schema",
        CheckKind::Accept => "accept",
    }
}

/// One check's result.
struct Verdict {
    report: CheckReport,
    /// The message for the worker when rejected.
    feedback: Option<String>,
    /// The answer as JSON, when a schema parsed it.
    value: Option<Value>,
}

impl Verdict {
    fn accepted(report: CheckReport, value: Option<Value>) -> Self {
        Verdict {
            report,
            feedback: None,
            value,
        }
    }

    fn rejected(report: CheckReport, feedback: String) -> Self {
        Verdict {
            report,
            feedback: Some(feedback),
            value: None,
        }
    }
}

/// What one run of the `--accept` command said.
struct Ran {
    passed: bool,
    exit_code: Option<i32>,
    /// `exit status 1`, `killed by signal 9`.
    status: String,
    /// stdout, then stderr.
    output: String,
}

impl Accept {
    fn run(&self, worker: &Worker, answer: &Answer, attempt: u32, stdin: &[u8]) -> Result<Ran> {
        let mut cmd = Command::new(&self.argv[0]);
        cmd.args(&self.argv[1..])
            .current_dir(&self.dir)
            .env("UMBEL_WORKER", worker.name.as_str())
            .env("UMBEL_PROVIDER", worker.meta.provider.as_str())
            .env("UMBEL_CWD", &worker.meta.cwd)
            .env("UMBEL_ATTEMPT", attempt.to_string())
            .env("UMBEL_SESSION_ID", &answer.session_id)
            .env(
                "UMBEL_TRANSCRIPT",
                answer.transcript_path.as_deref().unwrap_or(""),
            );
        let failed = |detail: String| Error::CheckFailed {
            command: self.shown.clone(),
            detail,
        };
        let done = run_bounded(cmd, Some(stdin), self.timeout).map_err(|e| match e {
            RunError::Spawn(e) => failed(format!("could not start: {e}")),
            RunError::TimedOut => failed(format!(
                "did not finish within {} and was stopped (raise --check-timeout if it needs longer)",
                humantime::format_duration(self.timeout)
            )),
        })?;
        let mut output = String::from_utf8_lossy(&done.stdout).into_owned();
        output.push_str(&String::from_utf8_lossy(&done.stderr));
        use std::os::unix::process::ExitStatusExt;
        let status = match (done.status.code(), done.status.signal()) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}"),
            (None, None) => "ended abnormally".into(),
        };
        Ok(Ran {
            passed: done.status.success(),
            exit_code: done.status.code(),
            status,
            output,
        })
    }
}

/// Appends the check to the worker's event log.
fn record(
    ctx: &Ctx,
    name: &WorkerName,
    attempt: u32,
    max_attempts: u32,
    verdict: &Verdict,
) -> Result<()> {
    let payload = json!({
        "attempt": attempt,
        "maxAttempts": max_attempts,
        "check": verdict.report.check,
        "accepted": verdict.report.accepted,
        "exitCode": verdict.report.exit_code,
        "output": verdict.report.output,
        "feedback": verdict.feedback,
        "value": verdict.value,
    });
    ctx.state.append_event(name, CHECK_EVENT, &payload)
}
