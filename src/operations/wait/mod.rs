//! `wait`: block until the worker's turn ends and say how. Event-driven: a watch on the worker's
//! `events/` folder wakes the loop the moment a hook writes, and a slow timer re-checks the
//! pane's liveness (and, where a provider ends turns without a hook, its transcript) as a safety
//! net. A hard deadline holds even if tmux stops answering.

mod activity;
mod budget_stop;
mod evidence;
pub mod many;

use super::Ctx;
use super::guard::Guard;
use super::interrupt_keys::press_one_by_one;
use super::send::send;
use super::worker::Worker;
use crate::adapters::transcript::ReverseLines;
use crate::adapters::watch::FolderWatch;
use crate::core::args::GuardArgs;
use crate::core::budget::Reached;
use crate::core::errors::{Error, Result};
use crate::core::events::EventRecord;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::providers::{EventClass, StartupScreen};
use crate::core::status::screen_reason;
use crate::core::turn_progress::{TurnPhase, TurnProgress, phase};
use crate::core::until::Until;
use crate::core::wait::{ClassifiedEvent, Liveness, decide, default_since, end};
use activity::Activity;
use budget_stop::{past_turn_limit, stop_others, stopped, stopped_at_ask};
pub(super) use evidence::last_transcript_turn;
use evidence::{finish, transcript_failure};
use regex::Regex;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    fn new(until: &Until, worker: &Worker) -> Result<Self> {
        let pattern = match &until.pattern {
            Some(p) => Some(
                Regex::new(p).map_err(|e| Error::usage(format!("invalid `--pattern {p}`: {e}")))?,
            ),
            None => None,
        };
        Ok(Conditions {
            timeout: until.timeout,
            idle: until.idle,
            file: until.file.as_ref().map(|f| worker.meta.cwd.join(f)),
            pattern,
        })
    }
}

/// Waits for the end of the worker's turn, enforcing its guardrails (its own, or those its turn
/// was sent with): then one wait may span several answers, all within `--timeout`.
/// With `ctx.progress` set, reports the turn's phase (and output tokens, read from the
/// transcript at most every quarter second) each time the loop looks.
/// `guard` is the wait's own guardrail flags (none: those the turn was sent with).
pub fn wait(
    ctx: &Ctx,
    worker: &Worker,
    since: Option<usize>,
    until: &Until,
    guard: &GuardArgs,
) -> Result<Outcome> {
    let guard = Guard::for_wait(ctx, &worker.name, guard)?;
    wait_guarded(ctx, worker, since, until, guard.as_ref())
}

/// Waits from `since` with guardrails already prepared (or none); a rejected answer's feedback
/// is sent to the worker from here.
pub fn wait_guarded(
    ctx: &Ctx,
    worker: &Worker,
    since: Option<usize>,
    until: &Until,
    guard: Option<&Guard>,
) -> Result<Outcome> {
    let cond = Conditions::new(until, worker)?;
    let deadline = Instant::now() + cond.timeout;
    let wait_turn = |since| wait_turn(ctx, worker, &cond, since, deadline);
    match guard {
        None => wait_turn(since),
        Some(guard) => guard.enforce(ctx, worker, since, wait_turn, |feedback| {
            send(ctx, worker, feedback).map(|sent| sent.position)
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
    let records = worker.recent_events(ctx)?;
    let len = end(&records);
    match since {
        Some(pos) if pos > len => Err(Error::usage(format!(
            "`--since {pos}` is past the end of worker `{}`'s event log ({} position{}; `umbel status {}` shows the current one)",
            worker.name,
            len,
            if len == 1 { "" } else { "s" },
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
    since: Option<usize>,
    deadline: Instant,
) -> Result<Outcome> {
    // Watch first, then read: an event landing in between still wakes the loop.
    let mut watch = FolderWatch::new(&ctx.state.events_dir(&worker.name))?;
    refuse_endless(ctx, worker, cond, since)?;
    let mut turn = TurnWait::new(worker, cond, since);
    // A token or dollar limit is checked as the transcript grows: its writes wake the loop
    // too (where its folder is there yet; else the liveness poll looks).
    if let Some(dir) = turn.budget.transcript_dir(ctx, worker)
        && crate::adapters::host::exists(&dir)
    {
        let _ = watch.also(&dir);
    }
    crate::adapters::pause::at("wait-watching");
    loop {
        if let Some(outcome) = turn.step(ctx, deadline)? {
            return Ok(outcome);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(turn.timed_out(ctx));
        }
        watch.wait((deadline - now).min(LIVENESS_POLL));
    }
}

/// One worker's wait for the end of its turn, a look at a time: [`wait_turn`] for one worker,
/// [`many::wait_many`] for several under one watch.
struct TurnWait<'a> {
    worker: &'a Worker,
    cond: &'a Conditions,
    since: Option<usize>,
    looks: Looks,
    /// The log's length at the last look.
    position: usize,
    /// The worker's budget, checked at each look.
    budget: super::budget::Watch,
    /// The limit whose reaching had the interrupt keys pressed, and the log's length then.
    stopping: Option<(Reached, usize)>,
}

impl<'a> TurnWait<'a> {
    fn new(worker: &'a Worker, cond: &'a Conditions, since: Option<usize>) -> Self {
        TurnWait {
            worker,
            cond,
            since,
            looks: Looks::new(),
            position: 0,
            budget: super::budget::Watch::new(worker),
            stopping: None,
        }
    }

    /// One look: the outcome once the turn ended (or anything else ended the wait).
    fn step(&mut self, ctx: &Ctx, deadline: Instant) -> Result<Option<Outcome>> {
        let (worker, cond) = (self.worker, self.cond);
        loop {
            if ctx.cancelled() {
                return Err(Error::Interrupted);
            }
            if !ctx.state.has_folder(&worker.name) {
                // Deleted under the wait: no hook can log an end any more.
                return Err(Error::Removed {
                    name: worker.name.to_string(),
                    path: ctx.state.session_dir(&worker.name),
                });
            }
            if self.since.is_none() {
                self.since = Some(default_since(&worker.events(ctx, usize::MAX)?));
            }
            let from = self.since.unwrap_or_default();
            let records = worker.events(ctx, from)?;
            self.position = end(&records);
            report_progress(ctx, worker, &records, from, &mut self.looks.tokens);
            if let Some(outcome) = file_appeared(cond, end(&records)) {
                return Ok(Some(outcome));
            }
            match self
                .looks
                .look(ctx, worker, cond, &records, from, deadline)?
            {
                Found::Final(outcome) => return Ok(Some(outcome)),
                Found::End(outcome) => {
                    // A turn past its budget does not wait for a person: the interrupt keys
                    // (pressed now, or just before the ask showed) close the ask and the turn.
                    if outcome.outcome == OutcomeKind::Input
                        && (self.stopping.is_some() || self.hold_budget(ctx)?)
                        && let Some((at, from)) = &self.stopping
                    {
                        return Ok(Some(stopped_at_ask(ctx, worker, at, *from)?));
                    }
                    let outcome = finish(ctx, worker, outcome, deadline)?;
                    let outcome = self.budget_end(ctx, &records, from, outcome)?;
                    match wanted(ctx, worker, cond, outcome) {
                        Ok(outcome) => return Ok(Some(outcome)),
                        // Not the turn the caller is waiting for: wait past it.
                        Err(position) => self.since = Some(position),
                    }
                }
                // Still running: held to its budget.
                Found::Nothing => {
                    let _stopped = self.hold_budget(ctx)?;
                    return Ok(None);
                }
            }
        }
    }

    /// The turn's end as its budget makes it: `budget` when this wait stopped it, or another
    /// did (a shared limit's, or a wait on the same worker: its claim is found from the turn's
    /// prompt in `records`, the events this look read), or it answered past its `--max-turns`
    /// before a stop landed; else `outcome` as it is.
    fn budget_end(
        &self,
        ctx: &Ctx,
        records: &[ClassifiedEvent],
        from: usize,
        outcome: Outcome,
    ) -> Result<Outcome> {
        let stop = match self.stopping.clone() {
            Some(stop) => Some(stop),
            None => super::budget::stopped_for(ctx, self.worker, records).map(|at| (at, from)),
        };
        match stop {
            // A turn that ended by itself before the stop landed keeps its own outcome,
            // unless it went past its turn limit.
            Some((at, from)) => stopped(ctx, self.worker, &at, from, outcome)
                .and_then(|outcome| past_turn_limit(ctx, self.worker, outcome)),
            None => past_turn_limit(ctx, self.worker, outcome),
        }
    }

    /// Stops the running turn once its budget (or a shared one) is reached: the CLI's
    /// interrupt keys pressed once, by whoever claims the stop first, and a shared limit's
    /// other running turns stopped too; the wait goes on for the turn's end. Whether it
    /// stopped the turn at this look.
    fn hold_budget(&mut self, ctx: &Ctx) -> Result<bool> {
        let worker = self.worker;
        if self.stopping.is_some() {
            return Ok(false);
        }
        let Some((at, others)) = self.budget.reached(ctx, worker)? else {
            return Ok(false);
        };
        if super::budget::claim_stop(ctx, worker, &at)? {
            press_one_by_one(ctx, worker, worker.provider().interrupt_keys())?;
            crate::adapters::timing::mark_wall("budget: interrupt keys pressed");
        }
        stop_others(ctx, &others, &at);
        self.stopping = Some((at, self.position));
        Ok(true)
    }

    /// The `timeout` outcome at the position last seen.
    fn timed_out(&self, ctx: &Ctx) -> Outcome {
        timed_out(ctx, self.worker, self.cond, self.position)
    }
}

/// What one look at the worker found.
enum Found {
    /// Nothing yet: wait for the next event or poll.
    Nothing,
    /// How the turn ended, to be settled by [`finish`].
    End(Outcome),
    /// An outcome that is already final (idle, or a timeout while tmux hung).
    Final(Outcome),
}

/// The wait's safety nets and what they last saw.
struct Looks {
    last_check: Option<Instant>,
    last_screen: Option<Instant>,
    activity: Activity,
    sightings: Sightings,
    tokens: TokenReader,
}

impl Looks {
    fn new() -> Self {
        Looks {
            last_check: None,
            last_screen: None,
            activity: Activity::new(),
            sightings: Sightings::default(),
            tokens: TokenReader::default(),
        }
    }

    /// The events first (a fired hook decides without asking tmux), then, every
    /// [`LIVENESS_POLL`], the pane, the transcript, the screen and `--idle-timeout`.
    fn look(
        &mut self,
        ctx: &Ctx,
        worker: &Worker,
        cond: &Conditions,
        records: &[ClassifiedEvent],
        from: usize,
        deadline: Instant,
    ) -> Result<Found> {
        let exit = ctx.state.read_exit(&worker.name);
        let due = self.last_check.is_none_or(|t| t.elapsed() >= LIVENESS_POLL);
        let decided = decide(records, from, &Liveness::Alive, exit.as_ref())
            .filter(|o| o.outcome != OutcomeKind::Input || due);
        // An ask the worker's rules decide is theirs to answer, not a person's (for a while):
        // neither the ask nor the dialog on the screen ends the wait meanwhile.
        let ruled = || due && rules_answer(ctx, worker, records);
        match decided {
            Some(o) if o.outcome == OutcomeKind::Input && ruled() => return Ok(Found::Nothing),
            Some(outcome) => return Ok(Found::End(outcome)),
            None if !due => return Ok(Found::Nothing),
            None => {}
        }
        self.last_check = Some(Instant::now());
        // tmux may hang: its calls get no longer than the wait has left.
        let ctx = &ctx.with_tmux_bound(deadline.saturating_duration_since(Instant::now()));
        let liveness = match worker.liveness(ctx) {
            Ok(liveness) => liveness,
            Err(Error::Tmux { message, .. }) if Instant::now() >= deadline => {
                let text = format!(
                    "no end of turn within {} ({message})",
                    humantime::format_duration(cond.timeout)
                );
                let outcome = Outcome::new(OutcomeKind::Timeout, text, end(records));
                return Ok(Found::Final(outcome));
            }
            Err(e) => return Err(e),
        };
        let found = if liveness != Liveness::Alive {
            // launch.sh records the exit (file, then log line) before the pane dies, so read
            // both again now that it has: tmux's own status is often empty.
            let records = worker.events(ctx, from)?;
            let exit = ctx.state.read_exit(&worker.name);
            decide(&records, from, &liveness, exit.as_ref())
        } else {
            transcript_failure(ctx, worker, records, from)
                .or_else(|| self.screen(ctx, worker, records, from).filter(|_| !ruled()))
        };
        Ok(match found {
            Some(outcome) => Found::End(outcome),
            None => self.idle(ctx, worker, cond, end(records)),
        })
    }

    /// The screen, every [`SCREEN_POLL`]: the states no hook reports.
    fn screen(
        &mut self,
        ctx: &Ctx,
        worker: &Worker,
        records: &[ClassifiedEvent],
        from: usize,
    ) -> Option<Outcome> {
        if self.last_screen.is_some_and(|t| t.elapsed() < SCREEN_POLL) {
            return None;
        }
        self.last_screen = Some(Instant::now());
        let first = records.partition_point(|e| e.record.index < from);
        screen_fallback(
            ctx,
            worker,
            &records[first..],
            end(records),
            &mut self.sightings,
        )
    }

    /// With `--idle-timeout`: `idle` once nothing has moved for that long.
    fn idle(&mut self, ctx: &Ctx, worker: &Worker, cond: &Conditions, position: usize) -> Found {
        let Some(idle) = cond.idle else {
            return Found::Nothing;
        };
        let still = self.activity.observe(ctx, worker, position);
        if still < idle {
            return Found::Nothing;
        }
        let message = format!("nothing moved for {}", humantime::format_duration(still));
        let mut outcome = Outcome::new(OutcomeKind::Idle, message, position);
        outcome.screen = ctx.tmux.capture(worker.session(), false).ok();
        Found::Final(outcome)
    }
}

/// Whether the worker's rules are about to answer the approval it waits on.
fn rules_answer(ctx: &Ctx, worker: &Worker, records: &[ClassifiedEvent]) -> bool {
    crate::core::approvals::pending(records)
        .is_some_and(|asked| super::rules::will_answer(ctx, worker, &asked))
}

/// With `--file`: `stop` (reason `file`) once the file exists.
fn file_appeared(cond: &Conditions, position: usize) -> Option<Outcome> {
    let file = cond.file.as_ref().filter(|f| f.exists())?;
    let message = format!("{} exists", file.display());
    Some(Outcome::new(OutcomeKind::Stop, message, position).with_reason("file"))
}

/// With `--pattern`, only a stop whose answer matches is the one waited for; any other is
/// `Err(position)`, to wait past it.
fn wanted(
    ctx: &Ctx,
    worker: &Worker,
    cond: &Conditions,
    outcome: Outcome,
) -> std::result::Result<Outcome, usize> {
    match (&cond.pattern, outcome.outcome) {
        (Some(pattern), OutcomeKind::Stop) if !answer_matches(ctx, worker, pattern) => {
            Err(outcome.position)
        }
        (Some(_), OutcomeKind::Stop) => Ok(outcome.with_reason("pattern")),
        _ => Ok(outcome),
    }
}

/// The `timeout` outcome, with the screen as evidence when tmux gives it quickly.
fn timed_out(ctx: &Ctx, worker: &Worker, cond: &Conditions, position: usize) -> Outcome {
    let message = format!(
        "no end of turn within {}",
        humantime::format_duration(cond.timeout)
    );
    let mut outcome = Outcome::new(OutcomeKind::Timeout, message, position);
    // Evidence only: not worth holding the deadline for.
    let tmux = ctx.tmux.bounded(EVIDENCE_BOUND);
    outcome.screen = tmux.capture(worker.session(), false).ok();
    outcome
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
    if open && worker.ended_past_lost_hooks(ctx, since, &screen) {
        let message =
            "the turn ended (its transcript says so; its end hook was lost, e.g. to a full disk)";
        return Some(Outcome::new(
            OutcomeKind::Stop,
            message.to_string(),
            position,
        ));
    }
    if open && worker.prompt_put_back(since, &screen) {
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
        TurnPhase::Waiting => None,
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
pub fn tool_name(ctx: &Ctx, worker: &Worker, record: &EventRecord) -> Option<String> {
    let payload = ctx
        .state
        .read_payload(&worker.name, record.payload.as_deref()?)?;
    Some(payload.get("tool_name")?.as_str()?.to_string())
}

fn answer_matches(ctx: &Ctx, worker: &Worker, pattern: &Regex) -> bool {
    worker.answer(ctx).is_ok_and(|a| pattern.is_match(&a.text))
}
