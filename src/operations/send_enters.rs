//! A send's Enters, once its paste shows alone on the input line: the first (past the CLI's
//! Enter-after-paste window), then again while the prompt still sits there — at once when the
//! CLI read one as a newline, after a while when nothing moved — until the CLI's submit hook
//! confirms it, a bounded number of times.

use super::Ctx;
use super::worker::Worker;
use crate::adapters::watch::FolderWatch;
use crate::core::errors::{Error, Result};
use crate::core::providers::{EventClass, StartupScreen};
use crate::core::send_verdict::Composer;
use crate::core::wait::Liveness;
use std::thread::sleep;
use std::time::{Duration, Instant};

/// How long an Enter may go unconfirmed by the submit hook before umbel looks at the input line
/// (and the screen) again. The hooks confirm a taken Enter in tens of milliseconds.
pub(super) const RETRY_FIRST: Duration = Duration::from_millis(150);

/// The same for a CLI with an Enter-after-paste window: an Enter that still fell in it shows as
/// a newline within a frame or two (10–60 ms on the real gemini), and is pressed again then.
const NEWLINE_LOOK: Duration = Duration::from_millis(40);

/// How long the last Enter may take to be confirmed before a prompt still on the input line is
/// reported not submitted: a CLI slow to draw (a loaded machine) may still take it.
const CONFIRM: Duration = Duration::from_secs(4);

/// How long a prompt that left the input line may wait for its (late) submit hook: hooks are
/// processes writing files, and a busy disk can hold them up for seconds.
const SUBMIT_LIMIT: Duration = Duration::from_secs(30);

/// The most Enters one send presses (the first included).
pub(super) const MAX_ENTERS: u32 = 4;

/// How long an Enter may leave both the prompt and the screen as they were before it is taken
/// for lost (a CLI that read it redraws; one that dropped it shows nothing).
pub(super) const UNMOVED: Duration = Duration::from_secs(1);

/// The longest [`UNMOVED`] grows to for a CLI that showed it reads its keys late.
const UNMOVED_MAX: Duration = Duration::from_secs(8);

/// After the paste: the first Enter (once the paste shows, and past the CLI's Enter-after-paste
/// window), then [`submit`]'s. Returns the Enters and the record that confirmed the submit.
pub(super) fn press_enters(
    ctx: &Ctx,
    worker: &Worker,
    position: usize,
    watch: &FolderWatch,
    pasted: super::send_paste::Pasted,
) -> Result<(u32, String)> {
    let mut shown = pasted.screen;
    // Nothing on the screen says when the CLI's Enter-after-paste window closes; it is a fixed
    // time in its source, counted from when the CLI read the paste — at the latest when a look
    // first found it drawn.
    let window = worker.provider().enter_after_paste();
    if !window.is_zero() {
        sleep(window.saturating_sub(pasted.shown_at.elapsed()));
        // A look may catch the CLI halfway through a redraw: keep the last whole input box.
        let now = ctx.tmux.capture(worker.session(), false)?;
        if worker.provider().pending_input(&now) {
            shown = now;
        }
    }
    stop_before_enter(ctx, worker, &shown)?;
    crate::adapters::timing::mark("prompt pasted");
    ctx.tmux.send_keys(worker.session(), &["Enter"])?;
    crate::adapters::pause::at("send-entered");
    let lag = pasted.late.then_some(pasted.at);
    submit(ctx, worker, position, watch, shown, lag)
}

/// After the first Enter (`before` is the screen it was pressed on): waits for the submit hook,
/// pressing Enter again while the prompt still sits on the input line, at most [`MAX_ENTERS`]
/// Enters in all, the last one given [`CONFIRM`]. Returns the Enters pressed and the hook event
/// that confirmed the submit.
///
/// Again at once (looks [`retry_look`] apart) once the input box grew a line since the last
/// Enter — the CLI read it as a newline — but otherwise only after [`UNMOVED`]: that CLI may not
/// have read the Enter yet, and a second one read in the same breath submits the prompt twice
/// (the TUIs keep the text until they redraw). Only the box counts, and only a line more: a
/// hook label above it comes and goes, and a look may catch a redraw halfway.
///
/// `lagging` (when the paste had not shown by the first Enter: the paste's time) is a CLI
/// starved of CPU, reading its keys late: once the paste shows, the wait for an unmoved Enter
/// becomes twice the lag it showed (at most [`UNMOVED_MAX`]), so the Enter queued behind the
/// paste is not taken for lost and pressed again.
fn submit(
    ctx: &Ctx,
    worker: &Worker,
    position: usize,
    watch: &FolderWatch,
    mut before: String,
    mut lagging: Option<Instant>,
) -> Result<(u32, String)> {
    let started = Instant::now();
    let mut enters = 1;
    let mut pressed = Instant::now();
    let mut unmoved = UNMOVED;
    let retry = retry_look(worker);
    let mut patience = retry;
    loop {
        if let Some(by) = confirmed(ctx, worker, position, watch, patience)? {
            return Ok((enters, by));
        }
        refuse_ended(ctx, worker)?;
        let screen = ctx.tmux.capture(worker.session(), false)?;
        if let Some(by) = dialog_mid_send(ctx, worker, position, watch, &screen)? {
            return Ok((enters, by));
        }
        let provider = worker.provider();
        if !provider.pending_input(&screen) || provider.holds_submitted_prompt(&screen) {
            // It left the input line (or the CLI holds it until its start is over): its hook is
            // on the way.
            if started.elapsed() >= SUBMIT_LIMIT {
                return Err(
                    hook_never_came(worker, &screen, position).after_send(Composer::TakenByCli)
                );
            }
            patience = CONFIRM;
            continue;
        }
        if enters >= MAX_ENTERS {
            return Err(not_submitted(
                worker,
                &screen,
                format!("it is still on the input line after {enters} Enters"),
            ));
        }
        patience = retry;
        if let Some(pasted) = lagging.take() {
            unmoved = (pasted.elapsed() * 2).clamp(UNMOVED, UNMOVED_MAX);
        }
        if read_as_newline(worker, &before, &screen) || pressed.elapsed() >= unmoved {
            stop_before_enter(ctx, worker, &screen)?;
            ctx.tmux.send_keys(worker.session(), &["Enter"])?;
            crate::adapters::timing::mark("send: Enter pressed again");
            enters += 1;
            pressed = Instant::now();
            before = screen;
            if enters == MAX_ENTERS {
                patience = CONFIRM;
            }
        }
    }
}

/// How long after an Enter its submit is waited for before the screen is looked at again:
/// [`NEWLINE_LOOK`] on a CLI with an Enter-after-paste window, [`RETRY_FIRST`] elsewhere.
fn retry_look(worker: &Worker) -> Duration {
    if worker.provider().enter_after_paste().is_zero() {
        RETRY_FIRST
    } else {
        NEWLINE_LOOK
    }
}

/// A CLI that ended mid-send: its prompt went with it.
fn refuse_ended(ctx: &Ctx, worker: &Worker) -> Result<()> {
    if worker.liveness(ctx)? == Liveness::Alive {
        return Ok(());
    }
    Err(Error::Dead {
        name: worker.name.to_string(),
        detail: "its CLI ended while the prompt was being submitted".into(),
        resumable: false,
    }
    .after_send(Composer::Gone))
}

/// A dialog on `screen` mid-send: the submit hook may still prove the prompt went out first
/// (its hook event then), else the send stops without pressing an Enter into it.
fn dialog_mid_send(
    ctx: &Ctx,
    worker: &Worker,
    position: usize,
    watch: &FolderWatch,
    screen: &str,
) -> Result<Option<String>> {
    if matches!(
        worker.provider().startup_screen(screen),
        StartupScreen::Idle | StartupScreen::Other
    ) {
        return Ok(None);
    }
    if let Some(by) = confirmed(ctx, worker, position, watch, RETRY_FIRST)? {
        return Ok(Some(by));
    }
    stop_before_enter(ctx, worker, screen)?;
    Ok(None)
}

/// A prompt that left the input line but whose submit hook did not come within
/// [`SUBMIT_LIMIT`]: why, as far as umbel can tell.
fn hook_never_came(worker: &Worker, screen: &str, position: usize) -> Error {
    let detail = if position == 0 {
        // Not one event since the CLI started (its start hook included): the hooks do not run.
        "the CLI took it, but none of its hooks has fired since it started (its event log is \
         empty), so umbel cannot see its turns: its hooks cannot run (they need `sh`, `cat` and \
         `date` on the worker's PATH; look at its `--env PATH`)"
            .to_string()
    } else {
        format!(
            "the CLI took it, but its submit hook did not fire within {}s (are its hooks running?)",
            SUBMIT_LIMIT.as_secs()
        )
    };
    not_submitted(worker, screen, detail)
}

/// Whether the input box grew a line between the screen an Enter was pressed on and `now`: the
/// CLI read that Enter as a newline.
fn read_as_newline(worker: &Worker, before: &str, now: &str) -> bool {
    let provider = worker.provider();
    match (provider.input_area(now), provider.input_area(before)) {
        (Some(now), Some(then)) => now.lines().count() > then.lines().count(),
        _ => false,
    }
}

fn not_submitted(worker: &Worker, screen: &str, detail: String) -> Error {
    Error::NotSubmitted {
        name: worker.name.to_string(),
        detail,
        screen: Some(screen.to_string()),
    }
}

/// Waits up to `patience` for a submit event at or after `position`; the event's kind (the
/// CLI's hook that proved the submit).
pub(super) fn confirmed(
    ctx: &Ctx,
    worker: &Worker,
    position: usize,
    watch: &FolderWatch,
    patience: Duration,
) -> Result<Option<String>> {
    let deadline = Instant::now() + patience;
    loop {
        let provider = worker.provider();
        // The first hook that said so (opencode fires several: `SessionCreated`, `PromptTaken`,
        // `SessionBusy`), not whichever was newest when this looked.
        let submitted = ctx
            .state
            .log_backwards(&worker.name)?
            .take_while(|r| r.index >= position)
            .filter(|r| provider.class_of(&r.kind, None) == EventClass::Submitted)
            .last();
        if let Some(record) = submitted {
            return Ok(Some(record.kind));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        // No check of ctx.cancelled() here: the prompt may be submitted this very moment, so a
        // Ctrl-C is looked at only before an Enter, with the prompt still on the input line
        // ([`stop_before_enter`]). The confirmation is bounded; a second Ctrl-C exits.
        watch.wait((deadline - now).min(Duration::from_millis(250)));
    }
}

/// Before an Enter: a signal (Ctrl-C, SIGTERM, a cancelled MCP call) stops the send while the
/// prompt is still on the input line, and a dialog that opened over it gets no Enter (that
/// would answer it blindly).
pub(super) fn stop_before_enter(ctx: &Ctx, worker: &Worker, screen: &str) -> Result<()> {
    if ctx.cancelled() {
        return Err(Error::Interrupted);
    }
    refuse_modal(worker, screen).map_err(|e| e.after_send(Composer::UnderDialog))
}

/// No hook says a dialog opened over an idle prompt; the screen does. A paste into it would be
/// dropped and the Enter after it would answer the dialog blindly, so nothing is sent.
pub(super) fn refuse_modal(worker: &Worker, screen: &str) -> Result<()> {
    let (what, hint) = match worker.provider().startup_screen(screen) {
        StartupScreen::Person(question) => (
            question,
            format!(
                "Answer it in the worker's terminal (`umbel attach {}`), then send again",
                worker.name
            ),
        ),
        StartupScreen::Dialog { what, .. } | StartupScreen::Consent { what, .. } => (
            what.to_string(),
            format!(
                "Answer it in `umbel attach {}`, then send again",
                worker.name
            ),
        ),
        StartupScreen::SignIn(line) => (
            line,
            format!(
                "The CLI fell back to its sign-in screen: sign in through `umbel attach {}`",
                worker.name
            ),
        ),
        StartupScreen::Idle | StartupScreen::Other => return Ok(()),
    };
    Err(Error::DialogOpen {
        name: worker.name.to_string(),
        provider: worker.meta.provider.as_str(),
        what,
        hint,
        screen: Some(screen.to_string()),
    })
}
