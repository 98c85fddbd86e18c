//! `send`: paste a prompt into an idle worker as one bracketed paste (through a tmux buffer, so
//! any bytes arrive exactly), press Enter, and confirm the CLI took it from its own submit hook.
//! If the hook does not come and the input line still holds the prompt (some CLIs swallow the
//! first Enter after a paste), Enter is pressed again — at once when the screen shows the CLI
//! read it as something else, after a second when nothing moved — a bounded number of times. A
//! CLI that turns an Enter right after a paste into a newline (gemini) gets its first Enter only
//! once that window is over ([`crate::core::providers::ProviderModule::enter_after_paste`]).
//!
//! Returns the event-log position before the paste (`wait --since` it to wait for this turn) and
//! how many Enters it took.

use super::Ctx;
use super::guard;
use super::input_line::{PASTE_POLL, clear_input};
use super::worker::Worker;
use crate::adapters::files::{self, Lock};
use crate::adapters::watch::FolderWatch;
use crate::core::args::GuardArgs;
use crate::core::errors::{Error, Result};
use crate::core::providers::{EventClass, StartupScreen};
use crate::core::send_verdict::Composer;
use crate::core::status::{WorkerState, derive_state};
use crate::core::wait::{ClassifiedEvent, Liveness, end};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// How long an Enter may go unconfirmed by the submit hook before umbel looks at the input line
/// (and the screen) again. The hooks confirm a taken Enter in tens of milliseconds.
const RETRY_FIRST: Duration = Duration::from_millis(150);
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
const MAX_ENTERS: u32 = 4;
/// How long an Enter may leave both the prompt and the screen as they were before it is taken
/// for lost (a CLI that read it redraws; one that dropped it shows nothing).
const UNMOVED: Duration = Duration::from_secs(1);
/// The longest [`UNMOVED`] grows to for a CLI that showed it reads its keys late.
const UNMOVED_MAX: Duration = Duration::from_secs(8);
/// The bracketed-paste end marker: a prompt holding it would end the paste early.
const PASTE_END: &[u8] = b"\x1b[201~";
/// The worker's file holding the event-log position its last `send` pasted at: the submit after
/// it is umbel's, a later one the CLI's own (`status` says `origin: cli`).
pub const SENT_FILE: &str = "sent.json";
/// The largest prompt umbel pastes into a TUI.
pub const MAX_PROMPT: usize = 1024 * 1024;

/// The `send` verb: a new turn. Its guardrails are checked before anything is pasted and left
/// for the `wait` that follows (no guardrails clear an earlier turn's).
pub fn send_turn(ctx: &Ctx, worker: &Worker, prompt: &[u8], guard: &GuardArgs) -> Result<Sent> {
    let given = guard::given_for_send(ctx, guard)?;
    let sent = send(ctx, worker, prompt)?;
    // The prompt is submitted: a failure now leaves its turn running.
    guard::leave_for_wait(ctx, &worker.name, given.as_ref())
        .map_err(|e| e.after_send(Composer::TakenByCli))?;
    Ok(sent)
}

pub use crate::core::send_verdict::Sent;

/// Sends `prompt` and returns the position to wait from (the guardrails' own feedback goes
/// through here too, so it leaves the turn's guardrails alone). A failure after the paste is a
/// [`Error::SendFailed`] saying what is left in the composer: umbel empties it again unless the
/// CLI took the prompt, ended, or opened a dialog over it.
pub fn send(ctx: &Ctx, worker: &Worker, prompt: &[u8]) -> Result<Sent> {
    check_prompt(prompt)?;
    let _lock = lock(ctx, worker)?;
    refuse_warm(ctx, worker)?;
    super::budget::refuse_send(ctx, worker)?;
    let position = refuse_unready(ctx, worker)?;
    crate::adapters::timing::mark("send: worker ready");
    ctx.state
        .write_json(&worker.name, SENT_FILE, Some(&position))?;
    super::budget_usage::mark_turn_start(ctx, worker)?;
    let screen = ctx.tmux.capture(worker.session(), false)?;
    refuse_modal(worker, &screen)?;
    clear_input(ctx, worker, screen)?;
    crate::adapters::timing::mark("send: input line empty");
    let watch = FolderWatch::new(&ctx.state.events_dir(&worker.name))?;
    let pasted = Instant::now();
    let typed = super::send_paste::paste_alone(ctx, worker, prompt)
        .and_then(|pasted| press_enters(ctx, worker, position, &watch, pasted));
    match typed {
        Ok((enters, confirmed_by)) => {
            crate::adapters::timing::mark("send: submit confirmed");
            tally(ctx, worker, enters, pasted);
            Ok(Sent {
                position,
                submitted: true,
                confirmed_by,
                enters,
                queued_ms: 0,
                resumed: None,
                resume_ms: None,
            })
        }
        Err(failed) => unsend(ctx, worker, position, &watch, failed),
    }
}

/// Adds a delivered prompt to the state root's tally of sends (`doctor` reports it).
fn tally(ctx: &Ctx, worker: &Worker, enters: u32, pasted: Instant) {
    let record = crate::core::send_tally::SendRecord {
        at_ms: crate::adapters::host::now_ms(),
        worker: worker.name.to_string(),
        provider: worker.meta.provider.as_str().to_string(),
        enters,
        ms: pasted.elapsed().as_millis() as u64,
    };
    crate::adapters::send_tally::append(ctx.state.path(), &record);
}

/// After the paste: the first Enter (once the paste shows, and past the CLI's Enter-after-paste
/// window), then [`submit`]'s. Returns the Enters and the record that confirmed the submit.
fn press_enters(
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

/// What a send that failed after its paste leaves: an error that says what is left in the
/// composer. One that does not say yet had the prompt on the input line (not submitted, a
/// signal, a tmux failure): the input line is emptied — and a submit that came after all (a
/// late Enter) is the prompt delivered, once.
fn unsend(
    ctx: &Ctx,
    worker: &Worker,
    position: usize,
    watch: &FolderWatch,
    failed: Error,
) -> Result<Sent> {
    if matches!(failed, Error::SendFailed { .. }) {
        return Err(failed);
    }
    if !matches!(worker.liveness(ctx), Ok(Liveness::Alive)) {
        return Err(failed.after_send(Composer::Gone));
    }
    let cleared = ctx
        .tmux
        .capture(worker.session(), false)
        .and_then(|screen| clear_input(ctx, worker, screen))
        .or_else(|e| {
            if input_empty_soon(ctx, worker) {
                Ok(())
            } else {
                Err(e)
            }
        });
    if let Ok(Some(confirmed_by)) = confirmed(ctx, worker, position, watch, RETRY_FIRST) {
        return Ok(Sent {
            position,
            submitted: true,
            confirmed_by,
            enters: MAX_ENTERS,
            queued_ms: 0,
            resumed: None,
            resume_ms: None,
        });
    }
    Err(failed.after_send(match cleared {
        Ok(()) => Composer::Cleared,
        Err(_) => Composer::Stuck,
    }))
}

/// Whether the input line shows empty within [`UNMOVED`]: clearing stops pressing keys at once
/// on a signal, before the CLI redrew the last round.
fn input_empty_soon(ctx: &Ctx, worker: &Worker) -> bool {
    let deadline = Instant::now() + UNMOVED;
    while Instant::now() < deadline {
        match ctx.tmux.capture(worker.session(), false) {
            Ok(screen) if !worker.provider().pending_input(&screen) => return true,
            Ok(_) => sleep(PASTE_POLL.max(Duration::from_millis(20))),
            Err(_) => return false,
        }
    }
    false
}

/// Before an Enter: a signal (Ctrl-C, SIGTERM, a cancelled MCP call) stops the send while the
/// prompt is still on the input line, and a dialog that opened over it gets no Enter (that
/// would answer it blindly).
fn stop_before_enter(ctx: &Ctx, worker: &Worker, screen: &str) -> Result<()> {
    if ctx.cancelled() {
        return Err(Error::Interrupted);
    }
    refuse_modal(worker, screen).map_err(|e| e.after_send(Composer::UnderDialog))
}

/// Refuses a worker that is not ready for a prompt (dead, busy, waiting for a person, still
/// starting); returns the event-log position the turn will be waited for from.
fn refuse_unready(ctx: &Ctx, worker: &Worker) -> Result<usize> {
    let (state, position) = state_now(ctx, worker)?;
    let why = match state {
        WorkerState::Ready => return Ok(position),
        WorkerState::Busy => "a turn is still running; `umbel wait` for it first",
        WorkerState::NeedsInput => "it is waiting for a person (see `umbel status`)",
        WorkerState::Starting => "it is still starting",
        WorkerState::Parked => "it is parked; its resume did not finish",
        WorkerState::Dead => return Err(dead(ctx, worker)),
    };
    Err(busy(worker, why))
}

/// The worker's state as a `send` sees it, and the event-log position now.
pub(super) fn state_now(ctx: &Ctx, worker: &Worker) -> Result<(WorkerState, usize)> {
    state_and_events(ctx, worker).map(|(state, events)| (state, end(&events)))
}

/// [`state_now`], with the recent events it was derived from.
pub(super) fn state_and_events(
    ctx: &Ctx,
    worker: &Worker,
) -> Result<(WorkerState, Vec<ClassifiedEvent>)> {
    let liveness = worker.liveness(ctx)?;
    let events = worker.recent_events(ctx)?;
    if liveness != Liveness::Alive {
        let parked = crate::core::status::since_last_start(&events).0;
        let state = if parked {
            WorkerState::Parked
        } else {
            WorkerState::Dead
        };
        return Ok((state, events));
    }
    let (mut state, _) = derive_state(&worker.meta, &events, &liveness);
    if state == WorkerState::Busy && worker.ended_in_transcript(ctx, &events, 0).is_some() {
        // The turn ended without a hook (e.g. a codex API error); the transcript says so.
        state = WorkerState::Ready;
    }
    if state == WorkerState::Busy {
        // Its end hook was lost (a torn line on a full disk): the transcript and screen say so.
        // Or the CLI fires none on Esc (qwen) and is back at its prompt with the prompt restored.
        let screen = ctx.tmux.capture(worker.session(), false)?;
        if worker.prompt_put_back(&events, &screen)
            || worker.ended_past_lost_hooks(ctx, &events, &screen)
        {
            state = WorkerState::Ready;
        }
    }
    Ok((state, events))
}

/// Why a worker counts as dead: its CLI's exit, else its pane gone.
pub(super) fn dead(ctx: &Ctx, worker: &Worker) -> Error {
    let killed = ctx
        .state
        .read_dead(&worker.name)
        .is_some_and(|dead| dead.by.as_deref() == Some("kill"));
    // Its events folder goes only with the worker (`kill --purge`, maybe still under way).
    let purged = !ctx.state.events_dir(&worker.name).is_dir();
    let detail = match ctx.state.read_exit(&worker.name) {
        _ if purged => "it was killed and its folder removed (`umbel kill --purge`)".into(),
        _ if killed => "it was killed (`umbel kill`)".into(),
        Some(exit) => format!("its CLI {}", exit.describe()),
        None => "its tmux pane is gone".into(),
    };
    Error::Dead {
        name: worker.name.to_string(),
        detail,
        resumable: !purged && super::revival::resumable(ctx, worker).is_ok(),
    }
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

/// A warm worker (kept ready for the next `-p --warm`, its marker not yet taken) takes no
/// prompt but its claimer's: a prompt sent to it would be in that `-p`'s "fresh" conversation.
pub(super) fn refuse_warm(ctx: &Ctx, worker: &Worker) -> Result<()> {
    match ctx.state.warm_mark(&worker.name) {
        Some(_) => Err(Error::Busy {
            name: worker.name.to_string(),
            detail: "it is warm: kept ready for the next `umbel -p --warm`, it takes no other prompt (spawn a worker of your own)".into(),
        }),
        None => Ok(()),
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
fn confirmed(
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

/// Refuses what could not arrive exactly: the TUIs read text, so a prompt must be UTF-8 without
/// NUL bytes, must not end the bracketed paste early, and must fit a paste.
pub(super) fn check_prompt(prompt: &[u8]) -> Result<()> {
    if prompt.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::usage("the prompt is empty"));
    }
    if prompt.len() > MAX_PROMPT {
        return Err(Error::usage(format!(
            "the prompt is {} bytes; umbel pastes at most {MAX_PROMPT} bytes (1 MiB) into a TUI — put the text in a file and point the prompt at it",
            prompt.len()
        )));
    }
    if let Err(e) = std::str::from_utf8(prompt) {
        return Err(Error::usage(format!(
            "the prompt is not valid UTF-8 (at byte {}); the CLIs read text",
            e.valid_up_to()
        )));
    }
    if let Some(at) = prompt.iter().position(|b| *b == 0) {
        return Err(Error::usage(format!(
            "the prompt holds a NUL byte (at byte {at}), which no terminal can deliver"
        )));
    }
    if prompt.windows(PASTE_END.len()).any(|w| w == PASTE_END) {
        return Err(Error::usage(
            "the prompt holds the bracketed-paste end marker ESC[201~, which would cut the paste short; remove it",
        ));
    }
    Ok(())
}

/// One `send` at a time per worker: a second one gets a typed busy error instead of a mixed paste.
fn lock(ctx: &Ctx, worker: &Worker) -> Result<Lock> {
    let path = ctx.state.session_dir(&worker.name).join("send.lock");
    files::try_lock(&path)?.ok_or_else(|| busy(worker, "another `send` to it is in progress"))
}

/// No hook says a dialog opened over an idle prompt; the screen does. A paste into it would be
/// dropped and the Enter after it would answer the dialog blindly, so nothing is sent.
fn refuse_modal(worker: &Worker, screen: &str) -> Result<()> {
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

fn busy(worker: &Worker, detail: &str) -> Error {
    Error::Busy {
        name: worker.name.to_string(),
        detail: detail.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_paste_breaking_prompts_are_refused() {
        assert_eq!(check_prompt(b"  \n").unwrap_err().exit_code(), 2);
        assert_eq!(check_prompt(b"a\x1b[201~b").unwrap_err().exit_code(), 2);
        assert!(check_prompt(b"line 1\nline 2\x1b[31m red\rcr only").is_ok());
        assert!(
            check_prompt(b"nul\0byte")
                .unwrap_err()
                .to_string()
                .contains("NUL")
        );
        assert!(
            check_prompt(b"bad \xff utf8")
                .unwrap_err()
                .to_string()
                .contains("UTF-8")
        );
        let big = vec![b'a'; MAX_PROMPT + 1];
        assert!(
            check_prompt(&big)
                .unwrap_err()
                .to_string()
                .contains("1 MiB")
        );
        assert!(check_prompt(&big[..MAX_PROMPT]).is_ok());
    }
}
