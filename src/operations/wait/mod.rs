//! `wait`: block until the worker's turn ends and say how. Event-driven: a watch on the worker's
//! `events/` folder wakes the loop the moment a hook writes, and a slow timer re-checks the
//! pane's liveness (and, where a provider ends turns without a hook, its transcript) as a safety
//! net. A hard deadline holds even if tmux stops answering.

mod activity;
mod evidence;

use super::Ctx;
use super::guard::Guard;
use super::worker::Worker;
use crate::adapters::transcript::ReverseLines;
use crate::adapters::watch::FolderWatch;
use crate::core::args::WaitArgs;
use crate::core::duration::parse_duration;
use crate::core::errors::{Error, Result};
use crate::core::events::EventRecord;
use crate::core::name::WorkerName;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::providers::{EventClass, StartupScreen};
use crate::core::status::screen_reason;
use crate::core::turn_progress::{TurnPhase, TurnProgress, phase};
use crate::core::wait::{ClassifiedEvent, Liveness, decide, default_since};
use activity::Activity;
use evidence::{finish, transcript_failure};
use regex::Regex;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How often liveness (and idleness) is re-checked when no event arrives. A safety net: a
/// worker's exit reaches the event log through its launch wrapper.
const LIVENESS_POLL: Duration = Duration::from_millis(500);
/// How often the screen is read for the states no hook reports (sign-in, trust mid-session).
const SCREEN_POLL: Duration = Duration::from_secs(2);
/// How long a screen capture for evidence may take once the wait is decided.
const EVIDENCE_BOUND: Duration = Duration::from_secs(1);

/// The wait's conditions, validated before anything is watched.
struct Conditions {
    timeout: Duration,
    idle: Option<Duration>,
    file: Option<PathBuf>,
    pattern: Option<Regex>,
}

impl Conditions {
    fn from_args(args: &WaitArgs, worker: &Worker) -> Result<Self> {
        let timeout = match &args.until.timeout {
            Some(text) => parse_duration(text, "--timeout")?,
            None => DEFAULT_TIMEOUT,
        };
        let idle = args
            .until
            .idle_timeout
            .as_deref()
            .map(|t| parse_duration(t, "--idle-timeout"))
            .transpose()?;
        let file = args.until.file.as_ref().map(|f| worker.meta.cwd.join(f));
        let pattern = match &args.until.pattern {
            Some(p) => Some(
                Regex::new(p).map_err(|e| Error::usage(format!("invalid `--pattern {p}`: {e}")))?,
            ),
            None => None,
        };
        Ok(Conditions {
            timeout,
            idle,
            file,
            pattern,
        })
    }
}

/// Waits for the end of the worker's turn, enforcing its guardrails (its own, or those its turn
/// was sent with): then one wait may span several answers, all within `--timeout`.
/// With `ctx.progress` set, reports the turn's phase (and output tokens, read from the
/// transcript at most every quarter second) each time the loop looks.
pub fn wait(ctx: &Ctx, args: &WaitArgs) -> Result<Outcome> {
    if let Some(at) = super::remote::find(ctx, &args.name)? {
        return super::remote::verbs::wait(ctx, &at, args);
    }
    let name = WorkerName::parse(&args.name)?;
    let guard = Guard::for_wait(ctx, &name, &args.guard)?;
    wait_guarded(ctx, args, guard.as_ref())
}

/// Waits with guardrails already prepared (or none); `args.guard` is not looked at.
pub fn wait_guarded(ctx: &Ctx, args: &WaitArgs, guard: Option<&Guard>) -> Result<Outcome> {
    if guard.is_none()
        && let Some(at) = super::remote::find(ctx, &args.name)?
    {
        return super::remote::verbs::wait(ctx, &at, args);
    }
    let worker = Worker::load(ctx, &args.name)?;
    let cond = Conditions::from_args(args, &worker)?;
    let deadline = Instant::now() + cond.timeout;
    match guard {
        None => wait_turn(ctx, &worker, &cond, args.since, deadline),
        Some(guard) => guard.enforce(ctx, &worker, args.since, |since| {
            wait_turn(ctx, &worker, &cond, since, deadline)
        }),
    }
}

/// Refuses at once a wait nothing can end before its timeout: `--since` past the end of the
/// event log (positions only grow from what `send` and `status` print), or, without `--since`,
/// a live worker that was never sent a prompt (there is no turn to end). A `--file` wait can
/// still end by itself; a dead worker is reported as such by the wait itself.
fn refuse_endless(
    ctx: &Ctx,
    worker: &Worker,
    cond: &Conditions,
    since: Option<usize>,
) -> Result<()> {
    let records = worker.events(ctx, usize::MAX)?;
    match since {
        Some(pos) if pos > records.len() => Err(Error::usage(format!(
            "`--since {pos}` is past the end of worker `{}`'s event log ({} position{}; `umbel status {}` shows the current one)",
            worker.name,
            records.len(),
            if records.len() == 1 { "" } else { "s" },
            worker.name
        ))),
        None if cond.file.is_none()
            && !records.iter().any(|e| {
                e.class == EventClass::Submitted || e.record.kind == crate::core::events::EXIT_EVENT
            })
            && worker.liveness(ctx)? == Liveness::Alive =>
        {
            Err(Error::NoTurn {
                name: worker.name.to_string(),
            })
        }
        _ => Ok(()),
    }
}

/// Waits for one turn's end, from `since` (default: the latest submitted prompt).
fn wait_turn(
    ctx: &Ctx,
    worker: &Worker,
    cond: &Conditions,
    mut since: Option<usize>,
    deadline: Instant,
) -> Result<Outcome> {
    // Watch first, then read: an event landing in between still wakes the loop.
    let watch = FolderWatch::new(&ctx.state.events_dir(&worker.name))?;
    refuse_endless(ctx, worker, cond, since)?;
    let mut last_check: Option<Instant> = None;
    let mut last_screen: Option<Instant> = None;
    let mut activity = Activity::new();
    let mut sightings = Sightings::default();
    let mut tokens = TokenReader::default();
    loop {
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        let records = worker.events(ctx, since.unwrap_or(0))?;
        let from = *since.get_or_insert_with(|| default_since(&records));
        report_progress(ctx, worker, &records, from, &mut tokens);
        if let Some(file) = cond.file.as_ref().filter(|f| f.exists()) {
            let message = format!("{} exists", file.display());
            return Ok(Outcome::new(OutcomeKind::Stop, message, records.len()).with_reason("file"));
        }
        let exit = ctx.state.read_exit(&worker.name);
        let due = last_check.is_none_or(|t| t.elapsed() >= LIVENESS_POLL);
        // Events first: a fired hook decides without asking tmux.
        let mut outcome = decide(&records, from, &Liveness::Alive, exit.as_ref())
            .filter(|o| o.outcome != OutcomeKind::Input || due);
        if outcome.is_none() && due {
            last_check = Some(Instant::now());
            // tmux may hang: its calls get no longer than the wait has left.
            let ctx = &ctx.with_tmux_bound(deadline.saturating_duration_since(Instant::now()));
            let liveness = match worker.liveness(ctx) {
                Ok(liveness) => liveness,
                Err(Error::Tmux { message, .. }) if Instant::now() >= deadline => {
                    let text = format!(
                        "no end of turn within {} ({message})",
                        humantime::format_duration(cond.timeout)
                    );
                    return Ok(Outcome::new(OutcomeKind::Timeout, text, records.len()));
                }
                Err(e) => return Err(e),
            };
            let screen_due = last_screen.is_none_or(|t| t.elapsed() >= SCREEN_POLL);
            outcome = if liveness != Liveness::Alive {
                // launch.sh records the exit (file, then log line) before the pane dies, so
                // read both again now that it has: tmux's own status is often empty.
                let records = worker.events(ctx, from)?;
                decide(
                    &records,
                    from,
                    &liveness,
                    ctx.state.read_exit(&worker.name).as_ref(),
                )
            } else {
                transcript_failure(ctx, worker, &records, from).or_else(|| {
                    if !screen_due {
                        return None;
                    }
                    last_screen = Some(Instant::now());
                    screen_fallback(
                        ctx,
                        worker,
                        &records[from.min(records.len())..],
                        records.len(),
                        &mut sightings,
                    )
                })
            };
            if let (None, Some(idle)) = (&outcome, cond.idle) {
                let still = activity.observe(ctx, worker, records.len());
                if still >= idle {
                    let message =
                        format!("nothing moved for {}", humantime::format_duration(still));
                    let mut o = Outcome::new(OutcomeKind::Idle, message, records.len());
                    o.screen = ctx.tmux.capture(worker.session(), false).ok();
                    return Ok(o);
                }
            }
        }
        if let Some(outcome) = outcome {
            let outcome = finish(ctx, worker, outcome, deadline)?;
            match (&cond.pattern, outcome.outcome) {
                (Some(pattern), OutcomeKind::Stop) if !answer_matches(ctx, worker, pattern) => {
                    // Not the turn the caller is waiting for: wait past it.
                    since = Some(outcome.position);
                    continue;
                }
                (Some(_), OutcomeKind::Stop) => return Ok(outcome.with_reason("pattern")),
                _ => return Ok(outcome),
            }
        }
        let now = Instant::now();
        if now >= deadline {
            let message = format!(
                "no end of turn within {}",
                humantime::format_duration(cond.timeout)
            );
            let mut outcome = Outcome::new(OutcomeKind::Timeout, message, records.len());
            // Evidence only: not worth holding the deadline for.
            let tmux = ctx.tmux.bounded(EVIDENCE_BOUND);
            outcome.screen = tmux.capture(worker.session(), false).ok();
            return Ok(outcome);
        }
        watch.wait((deadline - now).min(LIVENESS_POLL));
    }
}

/// Screen states that end a wait only when seen on two screen polls in a row: a turn dropped
/// with its prompt put back, and a dialog — a permission prompt looks like any other dialog until
/// its hook, which may land just after the screen shows it, says what it is.
#[derive(Default)]
struct Sightings {
    restored: u32,
    dialog: u32,
}

/// The fallback for states no hook reports: the CLI asks a person to sign in again or shows a
/// dialog in the middle of a session, or dropped the open turn and put its prompt back into the
/// input box.
fn screen_fallback(
    ctx: &Ctx,
    worker: &Worker,
    since: &[ClassifiedEvent],
    position: usize,
    seen: &mut Sightings,
) -> Option<Outcome> {
    let screen = ctx.tmux.capture(worker.session(), false).ok()?;
    let open = since.iter().any(|e| e.class == EventClass::Submitted);
    if open && worker.provider().prompt_restored(&screen) {
        seen.restored += 1;
        if seen.restored >= 2 {
            let message = "the CLI dropped the turn and put the prompt back into its input box (Esc before any answer)";
            let mut outcome =
                Outcome::new(OutcomeKind::ProviderError, message.to_string(), position)
                    .with_reason("interrupted");
            outcome.screen = Some(screen);
            return Some(outcome);
        }
        return None;
    }
    seen.restored = 0;
    let found = worker.provider().startup_screen(&screen);
    if matches!(
        found,
        StartupScreen::Person(_) | StartupScreen::Consent { .. }
    ) {
        seen.dialog += 1;
        if seen.dialog < 2 {
            return None;
        }
    }
    seen.dialog = 0;
    person_outcome(found, screen, position)
}

/// A sign-in or dialog screen as an `input` outcome.
fn person_outcome(found: StartupScreen, screen: String, position: usize) -> Option<Outcome> {
    let reason = screen_reason(&found)?;
    let message = match found {
        StartupScreen::SignIn(line) => format!("the CLI asks a person to sign in: \"{line}\""),
        StartupScreen::Dialog { what, .. } | StartupScreen::Consent { what, .. } => {
            format!("the CLI shows its {what} dialog")
        }
        StartupScreen::Person(question) => format!("the CLI asks: \"{question}\""),
        StartupScreen::Idle | StartupScreen::Other => return None,
    };
    let mut outcome = Outcome::new(OutcomeKind::Input, message, position).with_reason(reason);
    outcome.screen = Some(screen);
    Some(outcome)
}

/// Tells `ctx.progress`, if any, where the turn is.
fn report_progress(
    ctx: &Ctx,
    worker: &Worker,
    records: &[ClassifiedEvent],
    from: usize,
    tokens: &mut TokenReader,
) {
    let Some(sink) = &ctx.progress else {
        return;
    };
    let phase = phase(records, from, |r| tool_name(ctx, worker, r));
    let output_tokens = match phase {
        TurnPhase::Submitted => None,
        _ => tokens.read(ctx, worker),
    };
    sink.report(&TurnProgress {
        phase,
        output_tokens,
    });
}

/// The turn's output tokens from the transcript, re-read at most every [`LIVENESS_POLL`].
#[derive(Default)]
struct TokenReader {
    last: Option<(Instant, Option<u64>)>,
    path: Option<PathBuf>,
}

impl TokenReader {
    fn read(&mut self, ctx: &Ctx, worker: &Worker) -> Option<u64> {
        if let Some((at, tokens)) = self.last
            && at.elapsed() < LIVENESS_POLL
        {
            return tokens;
        }
        if self.path.is_none() {
            self.path = worker.transcript_path(ctx);
        }
        let tokens = self
            .path
            .as_deref()
            .and_then(ReverseLines::open)
            .and_then(|mut lines| worker.provider().last_turn(&mut lines).output_tokens);
        self.last = Some((Instant::now(), tokens));
        tokens
    }
}

/// The tool an opening tool event names in its payload (`tool_name` for all three CLIs).
fn tool_name(ctx: &Ctx, worker: &Worker, record: &EventRecord) -> Option<String> {
    let payload = ctx
        .state
        .read_payload(&worker.name, record.payload.as_deref()?)?;
    Some(payload.get("tool_name")?.as_str()?.to_string())
}

fn answer_matches(ctx: &Ctx, worker: &Worker, pattern: &Regex) -> bool {
    worker.answer(ctx).is_ok_and(|a| pattern.is_match(&a.text))
}
