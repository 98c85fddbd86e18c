//! `umbel -p`: a drop-in for `claude -p`. Spawns a worker (or reuses `--name`), sends the
//! prompt, waits for the turn to end, prints the answer as text or as claude's JSON result, and
//! removes the worker it created. The exit status is the wait outcome's (0 when the turn ended).

use super::output::{out, out_json, report};
use crate::core::args::{KillArgs, SpawnArgs, WaitArgs};
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::operations::worker::{Answer, Worker};
use crate::operations::{Ctx, kill, send, spawn, wait};
use std::time::Instant;

/// Output formats of `-p`, as `claude -p --output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutputFormat {
    /// The answer text.
    #[default]
    Text,
    /// One JSON result object shaped like `claude -p --output-format json`.
    Json,
}

/// The flags of print mode.
#[derive(Debug, Clone, clap::Args)]
pub struct PrintArgs {
    /// Print mode: run one prompt through a worker and print its answer (like `claude -p`).
    #[arg(short = 'p', long = "print")]
    pub print: bool,
    /// The prompt; read from standard input when omitted.
    pub prompt: Option<String>,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t)]
    pub output_format: OutputFormat,
    /// Give up after this long (default 30m); exit 124.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    #[command(flatten)]
    pub spawn: SpawnArgs,
}

/// Runs print mode and returns the exit status.
pub fn run(ctx: &Ctx, args: PrintArgs, stdin_prompt: impl FnOnce() -> Result<Vec<u8>>) -> u8 {
    let json = args.output_format == OutputFormat::Json;
    let started = Instant::now();
    let prompt = match &args.prompt {
        Some(p) if p != "-" => Ok(p.clone().into_bytes()),
        _ => stdin_prompt(),
    };
    let result = prompt.and_then(|prompt| turn(ctx, &args, &prompt));
    match result {
        Ok((outcome, answer, session_id)) => {
            let elapsed = started.elapsed().as_millis() as u64;
            emit(&outcome, answer.as_ref(), &session_id, elapsed, json);
            outcome.outcome.exit_code()
        }
        Err(e) => report(&e, json),
    }
}

/// Spawn (or reuse), send, wait, read; the worker umbel created is removed on every path.
fn turn(ctx: &Ctx, args: &PrintArgs, prompt: &[u8]) -> Result<(Outcome, Option<Answer>, String)> {
    let reuse = match &args.spawn.name {
        Some(raw) => {
            let name = WorkerName::parse(raw)?;
            ctx.state.read_meta(&name).is_ok().then_some(name)
        }
        None => None,
    };
    let (name, created) = match reuse {
        Some(name) => (name, false),
        None => {
            let meta = spawn::spawn(ctx, &args.spawn)?;
            (WorkerName::parse(&meta.name)?, true)
        }
    };
    let result = (|| {
        let since = send::send(ctx, name.as_str(), prompt)?;
        let wait_args = WaitArgs {
            name: name.to_string(),
            timeout: args.timeout.clone(),
            since: Some(since),
        };
        let outcome = wait::wait(ctx, &wait_args)?;
        let worker = Worker::load(ctx, name.as_str())?;
        let answer = match outcome.outcome {
            OutcomeKind::Stop | OutcomeKind::ProviderError => worker.answer(ctx).ok(),
            _ => None,
        };
        Ok((outcome, answer, worker.meta.session_id))
    })();
    if created && args.spawn.name.is_none() {
        let kill_args = KillArgs {
            name: Some(name.to_string()),
            all: false,
            purge: true,
        };
        if let Err(e) = kill::kill(ctx, &kill_args) {
            eprintln!("umbel: could not remove worker `{name}`: {e}");
        }
    }
    result
}

fn emit(
    outcome: &Outcome,
    answer: Option<&Answer>,
    session_id: &str,
    duration_ms: u64,
    json: bool,
) {
    let text = answer.map(|a| a.text.as_str()).unwrap_or("");
    let ok = outcome.outcome == OutcomeKind::Stop && !answer.is_some_and(|a| a.is_error);
    if json {
        let mut result = serde_json::json!({
            "type": "result",
            "subtype": if outcome.outcome == OutcomeKind::Stop { "success" } else { "error_during_execution" },
            "is_error": !ok,
            "duration_ms": duration_ms,
            "num_turns": 1,
            "result": text,
            "session_id": session_id,
            "outcome": outcome.outcome,
        });
        if let Some(reason) = &outcome.reason {
            result["reason"] = serde_json::Value::String(reason.clone());
        }
        out_json(&result);
        return;
    }
    if !text.is_empty() {
        out(text);
        if !text.ends_with('\n') {
            out("\n");
        }
    }
    if outcome.outcome != OutcomeKind::Stop {
        eprintln!("umbel: {}: {}", outcome.outcome.as_str(), outcome.message);
        if let Some(screen) = &outcome.screen {
            eprintln!("umbel: the last screen was:\n{screen}");
        }
    }
}

/// Print mode needs a prompt from somewhere.
pub fn no_prompt() -> Error {
    Error::usage(
        "no prompt: pass it as an argument (`umbel -p \"…\"`) or pipe it on standard input",
    )
}
