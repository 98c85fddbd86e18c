//! `umbel -p`: a drop-in for `claude -p`, `codex exec` and `gemini -p`. Spawns a worker (or
//! reuses `--name`), sends the prompt, waits for the turn to end, prints the answer — as text,
//! or as JSON shaped like the provider's own print mode, with the fields umbel can fill
//! honestly — and removes the worker it created. The exit status is the wait outcome's (0 when
//! the turn ended).

mod json;
mod stdin;
mod stream;
pub mod warm;

use super::output::{explain_outcome, out, out_json, release_stdout, report};
use super::turn_line::{TurnLine, turn_line_for};
use crate::adapters::timing;
use crate::core::args::{GuardArgs, OnPermission, SpawnArgs};
use crate::core::budget::LimitKind;
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::print::shape::PrintTurn;
use crate::core::print::stats::TurnStats;
use crate::core::print::stdin::{combine, stdin_text};
use crate::core::providers::Provider;
use crate::core::turn_progress::TurnPhase;
use crate::core::until::Until;
use crate::operations::guard::Guard;
use crate::operations::turn::{self, TurnRequest};
use crate::operations::turn_stats::last_turn_stats;
use crate::operations::worker::Worker;
use crate::operations::{Ctx, kill, spawn};
use std::time::Instant;

/// Output formats of `-p`, as `claude -p --output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutputFormat {
    /// The answer text.
    #[default]
    Text,
    /// JSON shaped like the provider's own: `claude -p --output-format json` (one result
    /// object), `codex exec --json` (JSONL events), `gemini -p -o json` (one object).
    Json,
    /// Events as the turn runs, one JSON object a line, as `claude -p --output-format
    /// stream-json` and `gemini -o stream-json` (codex: the `exec --json` events).
    StreamJson,
}

/// The flags of print mode.
#[derive(Debug, Clone, clap::Args)]
pub struct PrintArgs {
    /// Print mode: run one prompt through a worker and print its answer (like `claude -p`).
    #[arg(short = 'p', long = "print")]
    pub print: bool,
    /// The prompt; piped standard input joins it as the provider's own print mode does (see
    /// docs/print-mode.md), and is the whole prompt when this is omitted or `-`.
    pub prompt: Option<String>,
    /// How to print the answer (`-o json` as gemini spells it).
    #[arg(short = 'o', long, value_enum, default_value_t)]
    pub output_format: OutputFormat,
    /// Give up after this long (default 30m); exit 124.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// Leave one worker started and ready in the background for the next `-p` with the same
    /// provider, folder, model, flags and environment, and take the one an earlier `-p --warm`
    /// left (a fresh conversation all the same). Also `UMBEL_WARM=1`. See docs/print-mode.md.
    #[arg(long)]
    pub warm: bool,
    /// How long a warm worker waits for its `-p` before it ends itself (default 10m; also
    /// `UMBEL_WARM_TTL`).
    #[arg(long, value_name = "DURATION")]
    pub warm_ttl: Option<String>,
    #[command(flatten)]
    pub spawn: SpawnArgs,
    #[command(flatten)]
    pub guard: GuardArgs,
    /// `--provider` was on the command line (not its default): a reused worker must match it.
    #[arg(skip)]
    pub provider_given: bool,
    /// The arguments umbel was run with (after the program name): a warm refill starts the
    /// next worker from the same ones.
    #[arg(skip)]
    pub typed: Vec<String>,
}

/// The bytes piped to umbel for a print run's prompt, read as the providers' print modes read
/// them (for a run forwarded to another host).
pub fn piped_stdin(
    prompt_given: bool,
    provider: crate::core::providers::Provider,
    read_to_end: impl FnOnce() -> Result<Vec<u8>>,
) -> Result<Vec<u8>> {
    stdin::piped(prompt_given, provider, read_to_end)
}

/// Runs print mode and returns the exit status.
pub fn run(ctx: &Ctx, args: PrintArgs, stdin_prompt: impl FnOnce() -> Result<Vec<u8>>) -> u8 {
    let format = args.output_format;
    let json = format != OutputFormat::Text;
    let started = Instant::now();
    timing::mark("-p started");
    // Piped stdin joins a prompt argument, as in the real print modes; a terminal is not read.
    let prompt_given = args.prompt.as_deref().is_some_and(|p| p != "-");
    // The worker `--name` names, loaded once for the whole run (none: `-p` spawns one).
    // One that cannot be read (a corrupt meta.json) is that error, not a name to spawn anew.
    let reused = match args.spawn.name.as_deref().map(|n| Worker::load(ctx, n)) {
        None | Some(Err(Error::NotFound { .. })) => Ok(None),
        Some(found) => found.map(Some),
    };
    let provider = match &reused {
        Ok(Some(w)) => w.meta.provider,
        _ => args.spawn.provider,
    };
    let piped = stdin::piped(prompt_given, provider, stdin_prompt);
    let stdin = piped.and_then(|bytes| stdin_text(&bytes).map(str::to_string));
    let who = args.spawn.name.clone();
    let mut line = turn_line_for(ctx, who.as_deref().unwrap_or(args.spawn.provider.as_str()));
    let (warm, asked) = match warm::wanted(ctx, &args) {
        Ok(warm) => (warm, Ok(())),
        Err(e) => (None, Err(e)),
    };
    let (done, leftover) = match asked.and(stdin).and_then(|s| Ok((s, reused?))) {
        Ok((stdin, reused)) => turn(ctx, &args, reused, &stdin, &line, warm),
        Err(e) => (Err(e), None),
    };
    line.clear();
    let code = match done {
        Ok(mut done) => {
            let ms = started.elapsed().as_millis() as u64;
            match format {
                OutputFormat::Text => emit_text(&done),
                _ if streams(format, done.provider) => {
                    stream::finish(ctx, done.live.take(), &done, ms)
                }
                _ => emit_json(&done, ms),
            }
            done.turn.outcome.outcome.exit_code()
        }
        Err(e) => {
            let code = report(&e, false);
            if json {
                print_documents(json::failure(args.spawn.provider, &e));
            }
            code
        }
    };
    timing::mark("answer printed");
    // The answer reaches its reader before the teardown, which umbel still waits for: it never
    // exits leaving its worker.
    release_stdout();
    tear_down(ctx, &args, leftover, warm);
    code
}

/// Ends the worker `-p` created, once its answer is out — or, warm, hands it to a detached
/// refill that ends it and starts the next warm worker, so this process exits at once.
fn tear_down(
    ctx: &Ctx,
    args: &PrintArgs,
    leftover: Option<Worker>,
    warm: Option<std::time::Duration>,
) {
    let handed = match (&leftover, warm) {
        (Some(worker), Some(ttl)) => warm::hand_over(args, worker, ttl),
        _ => false,
    };
    if let Some(worker) = leftover.filter(|_| !handed) {
        match kill::discard_print_worker(ctx, &worker) {
            // `--worktree` with edits in it: the worktree, its branch and the worker's folder stay
            // (the purge rule, docs/worktrees.md); say where, or the edits look lost.
            Ok(Some(kept)) => errln!("umbel: worker `{}`: {kept}", worker.name),
            Ok(None) => {}
            Err(e) => errln!("umbel: could not remove worker `{}`: {e}", worker.name),
        }
        timing::mark("worker removed");
    }
}

/// Whether the output is streamed while the turn runs: `stream-json`, and codex's JSON, which
/// is `codex exec --json`'s stream of events.
fn streams(format: OutputFormat, provider: Provider) -> bool {
    format == OutputFormat::StreamJson
        || (format == OutputFormat::Json && provider.module().print().json_streams())
}

/// What one print-mode turn produced.
pub(crate) struct Done {
    provider: Provider,
    /// The turn as the provider's print shapes read it.
    turn: PrintTurn,
    /// The transcript tail of `--output-format stream-json`.
    live: Option<stream::Live>,
}

/// Spawn (or reuse), then one turn. Returns, beside the result, the worker umbel created for
/// it (on every path that created one), for the caller to remove once the answer is out.
fn turn(
    ctx: &Ctx,
    args: &PrintArgs,
    reused: Option<Worker>,
    stdin: &str,
    line: &TurnLine,
    warm: Option<std::time::Duration>,
) -> (Result<Done>, Option<Worker>) {
    let (worker, created, prompt, prepared) = match start(ctx, args, reused, stdin, line, warm) {
        Ok(started) => started,
        Err(e) => return (Err(e), None),
    };
    let (guard, until) = prepared;
    let provider = worker.meta.provider;
    // Only the JSON formats report the turn's stats, `--max-budget-usd` needs its cost and
    // `--max-turns` its requests; plain text does not wait for them.
    let with_stats = args.output_format != OutputFormat::Text
        || budgeted(args).is_some()
        || args.spawn.max_turns.is_some();
    let one_turn = || {
        let guard = guard.as_ref();
        run_turn(ctx, &worker, &prompt, &until, line, guard, with_stats)
    };
    let one_turn = || {
        one_turn().map(|mut done| {
            hold_budget(args, done.provider, &mut done.turn);
            hold_turns(args, &mut done.turn);
            done
        })
    };
    let result = if streams(args.output_format, provider) {
        let (done, live) = stream::run(ctx, &worker.meta, one_turn);
        done.map(|done| Done {
            live: Some(live),
            ..done
        })
    } else {
        one_turn()
    };
    let leftover = (created && args.spawn.name.is_none()).then_some(worker);
    (result, leftover)
}

/// What a turn needs before its prompt goes in: the guardrails and deadline, the prompt, and
/// the worker (reused, or spawned: `true`).
type Started = (Worker, bool, String, (Option<Guard>, Until));

/// Checks the input, then reuses or spawns the worker (bad input is refused before one exists).
fn start(
    ctx: &Ctx,
    args: &PrintArgs,
    reused: Option<Worker>,
    stdin: &str,
    line: &TurnLine,
    warm: Option<std::time::Duration>,
) -> Result<Started> {
    // Bad guardrails are refused before a worker exists.
    let guard = Guard::prepare_here(ctx, &args.guard)?;
    let until = Until::timeout(args.timeout.as_deref())?;
    if let Some(raw) = &args.spawn.name {
        WorkerName::parse(raw)?;
    }
    if let Some(worker) = reused
        .as_ref()
        .filter(|w| args.provider_given && w.meta.provider != args.spawn.provider)
    {
        return Err(Error::usage(format!(
            "worker `{}` runs {}, not {}: drop `--provider` to reuse it, or pick another `--name`",
            worker.name, worker.meta.provider, args.spawn.provider
        )));
    }
    let provider = reused
        .as_ref()
        .map_or(args.spawn.provider, |w| w.meta.provider);
    let prompt = combine(provider, args.prompt.as_deref(), stdin);
    if prompt.trim().is_empty() {
        return Err(no_prompt());
    }
    let (worker, created) = match reused {
        Some(worker) => (worker, false),
        None => (spawn_for_print(ctx, args, line, warm.is_some())?, true),
    };
    Ok((worker, created, prompt, (guard, until)))
}

/// Starts the worker of a `-p` run without `--name` (or whose name is not taken yet) — or,
/// `warm`, takes the warm worker an earlier `-p --warm` left for this launch.
fn spawn_for_print(ctx: &Ctx, args: &PrintArgs, line: &TurnLine, warm: bool) -> Result<Worker> {
    let spawn_args = print_spawn_args(args)?;
    let claimed = if warm {
        warm::claim(ctx, &spawn_args)?
    } else {
        None
    };
    let worker = match claimed {
        Some(worker) => {
            timing::mark("warm worker claimed");
            worker
        }
        None => {
            line.show_phase(TurnPhase::Starting);
            // Its one prompt is typed as soon as the CLI takes it, while it may still be starting.
            let readiness = spawn::Readiness::Typable;
            Worker::from_meta(spawn::spawn_with(ctx, &spawn_args, None, readiness)?)?
        }
    };
    // `--max-budget-usd` without `--model`: the model its transcript names is priced as the
    // turn runs (the worker's own budget stops it when a response crosses the limit).
    if !args.spawn.budget.is_empty() {
        crate::operations::budget::set(ctx, &worker, &args.spawn.budget)?;
    }
    Ok(worker)
}

/// The `--max-budget-usd` of a `-p` run, if given.
fn budgeted(args: &PrintArgs) -> Option<f64> {
    args.spawn.budget.max_budget_usd
}

/// `-p --max-budget-usd`, as `claude -p` holds it: a turn whose cost reached the limit is an
/// error, its answer withheld — whether its worker's budget stopped it mid-turn (a response
/// crossed) or it ended first (claude checks after each response, so a one-response turn over
/// the limit fails too). A turn whose cost is unknown (no model of it has a known price)
/// cannot be held to the limit: an error too, saying so.
fn hold_budget(args: &PrintArgs, provider: Provider, turn: &mut PrintTurn) {
    let Some(max) = budgeted(args) else {
        return;
    };
    // Its worker's own budget stopped it as a response crossed the dollar limit.
    let stopped = stopped_for(turn, LimitKind::BudgetUsd);
    if turn.stats.models.is_empty() && !stopped {
        return;
    }
    let cost = crate::core::fleet::Usage::of(provider, &turn.stats).and_then(|u| u.cost_usd);
    let (message, text) = match cost {
        Some(cost) if cost < max && !stopped => return,
        Some(_) => (
            format!("Reached maximum budget (${})", js_number(max)),
            format!("Error: Exceeded USD budget ({})", js_number(max)),
        ),
        None => {
            let models: Vec<&str> = turn.stats.models.iter().map(|(m, _)| m.as_str()).collect();
            let why = format!(
                "--max-budget-usd {}: this turn's cost is unknown ({} has no known list price)",
                js_number(max),
                models.join(", ")
            );
            (why.clone(), format!("Error: {why}"))
        }
    };
    fail(turn, LimitKind::BudgetUsd, message, text);
}

/// `-p --max-turns N`, as `claude -p` holds it: a turn that took more model requests than N is
/// an error, its answer withheld — whether the wait stopped it at the response past N (umbel
/// sees a request once its response is recorded) or it ended first.
fn hold_turns(args: &PrintArgs, turn: &mut PrintTurn) {
    let Some(max) = args.spawn.max_turns else {
        return;
    };
    let stopped = stopped_for(turn, LimitKind::Turns);
    if !stopped && turn.stats.total().requests <= u64::from(max) {
        return;
    }
    let message = format!("Reached maximum number of turns ({max})");
    fail(
        turn,
        LimitKind::Turns,
        message,
        format!("Error: Reached max turns ({max})"),
    );
}

/// Whether the worker's own limit of this kind stopped `turn` mid-way.
fn stopped_for(turn: &PrintTurn, limit: LimitKind) -> bool {
    turn.outcome.outcome == OutcomeKind::Budget
        && turn.outcome.reason.as_deref() == Some(limit.as_str())
}

/// Fails `turn` as `claude -p` fails one past `limit`: `budget` with `message` (the reason in
/// claude's `errors`), the answer withheld for `text`.
fn fail(turn: &mut PrintTurn, limit: LimitKind, message: String, text: String) {
    let mut stop = Outcome::new(OutcomeKind::Budget, message, turn.outcome.position);
    stop.reason = Some(limit.as_str().into());
    turn.outcome = stop;
    turn.is_error = true;
    turn.text = text;
}

/// A number as JavaScript prints it (claude's messages do): `5`, `0.0015`, `1e-7`.
fn js_number(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-6 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// What a `-p` worker is spawned with. A tool needing approval is refused and the turn goes
/// on, as in the provider's own print mode, unless `--on-permission` (or `--unattended`) says
/// otherwise; a permission mode of the user's own replaces that default.
fn print_spawn_args(args: &PrintArgs) -> Result<SpawnArgs> {
    let mut spawn_args = match args.spawn.permission_mode {
        Some(_) => args.spawn.clone(),
        None => SpawnArgs {
            on_permission: Some(args.spawn.on_permission(OnPermission::Deny)?),
            unattended: false,
            ..args.spawn.clone()
        },
    };
    // Without `--model`, the model is the CLI's default, priced once its transcript names it
    // (the limits are set on the worker once it exists); a `--model` without a known price
    // is refused at spawn, as `spawn`'s is.
    if spawn_args.model.is_none() {
        spawn_args.budget = Default::default();
    }
    Ok(spawn_args)
}

/// The one turn, then (`with_stats`) the turn's stats from its transcript.
fn run_turn(
    ctx: &Ctx,
    worker: &Worker,
    prompt: &str,
    until: &Until,
    line: &TurnLine,
    guard: Option<&Guard>,
    with_stats: bool,
) -> Result<Done> {
    let request = TurnRequest {
        prompt: prompt.as_bytes(),
        until,
        guard,
        queue: None,
    };
    let done = turn::turn(&ctx.with_progress(line.sink()), worker, &request)?;
    let answer = done.answer().cloned();
    let session_id = answer
        .as_ref()
        .map_or(worker.meta.session_id.clone(), |a| a.session_id.clone());
    let transcript = answer
        .as_ref()
        .and_then(|a| a.transcript_path.as_deref())
        .map(std::path::Path::new);
    let stats = match with_stats {
        true => last_turn_stats(ctx, worker, transcript, done.ended()),
        false => TurnStats::default(),
    };
    let (text, is_error) = answer.map_or((String::new(), false), |a| (a.text, a.is_error));
    Ok(Done {
        provider: worker.meta.provider,
        turn: PrintTurn {
            outcome: done.outcome,
            text,
            is_error,
            session_id,
            stats,
        },
        live: None,
    })
}

fn emit_text(done: &Done) {
    let text = done.turn.printed();
    if !text.is_empty() {
        out(&text);
        if !text.ends_with('\n') {
            out("\n");
        }
    }
    explain_outcome(done.turn.outcome.outcome.as_str(), &done.turn.outcome);
}

/// JSON in the shape of the provider's own print mode.
fn emit_json(done: &Done, duration_ms: u64) {
    print_documents(json::documents(done, duration_ms));
}

/// Prints JSON documents, one a line, each to stdout or (when flagged) stderr.
fn print_documents(documents: Vec<(serde_json::Value, bool)>) {
    for (document, to_stderr) in documents {
        if to_stderr {
            errln!(
                "{}",
                serde_json::to_string_pretty(&document).unwrap_or_default()
            );
        } else {
            out_json(&document);
        }
    }
}

/// Print mode needs a prompt from somewhere.
pub fn no_prompt() -> Error {
    Error::usage(
        "no prompt: pass it as an argument (`umbel -p \"…\"`) or pipe it on standard input",
    )
}
