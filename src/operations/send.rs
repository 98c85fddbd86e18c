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
use super::send_enters::{MAX_ENTERS, RETRY_FIRST, UNMOVED, confirmed, press_enters, refuse_modal};
use super::worker::Worker;
use crate::adapters::files::{self, Lock};
use crate::adapters::watch::FolderWatch;
use crate::core::args::GuardArgs;
use crate::core::errors::{Error, Result};
use crate::core::send_verdict::Composer;
use crate::core::status::{WorkerState, derive_state};
use crate::core::wait::{ClassifiedEvent, Liveness, end};
use std::thread::sleep;
use std::time::{Duration, Instant};

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
