//! Waiting on a worker's screen: read every [`LOOK`] until it shows what a key was for, and a
//! command typed on the input line, its Enter pressed only once the screen shows it typed.
//! Shared by `mode` and `model` (and the model picker's walk).

use super::Ctx;
use super::worker::Worker;
use crate::core::errors::{Error, Result};
use std::time::{Duration, Instant};

/// How long the screen may take to show what a key did, unless a caller says otherwise.
pub(super) const SHOWN_WITHIN: Duration = Duration::from_secs(5);
/// How often the screen is read meanwhile.
pub(super) const LOOK: Duration = Duration::from_millis(50);

/// Types `text` on the input line and, once the screen shows `typed` (the line holding it, or
/// the CLI's completion for it), presses Enter: two keys.
pub(super) fn type_command(ctx: &Ctx, worker: &Worker, text: &str, typed: &str) -> Result<usize> {
    ctx.tmux.send_keys(worker.session(), &["-l", text])?;
    let shown = |screen: &str| match typed == text {
        true => screen.lines().any(|l| l.trim_end().ends_with(text)),
        false => screen.contains(typed),
    };
    let what = format!("show {typed:?} for {text:?}");
    await_screen(ctx, worker, SHOWN_WITHIN, &what, shown)?;
    ctx.tmux.send_keys(worker.session(), &["Enter"])?;
    Ok(2)
}

/// The last line of `screen` holding `text`.
pub(super) fn last_line_with<'s>(screen: &'s str, text: &str) -> Option<&'s str> {
    screen.lines().rev().find(|l| l.contains(text))
}

/// The screen once `shows` holds for it, read every [`LOOK`] for at most `within`; else a
/// `busy` error saying the screen did not `what`.
pub(super) fn await_screen(
    ctx: &Ctx,
    worker: &Worker,
    within: Duration,
    what: &str,
    shows: impl Fn(&str) -> bool,
) -> Result<String> {
    let deadline = Instant::now() + within;
    loop {
        let screen = ctx.tmux.capture(worker.session(), false)?;
        if shows(&screen) {
            return Ok(screen);
        }
        if Instant::now() >= deadline || ctx.cancelled() {
            return Err(Error::Busy {
                name: worker.name.to_string(),
                detail: format!(
                    "its screen did not {what} within {}s; `umbel capture` shows it",
                    within.as_secs()
                ),
            });
        }
        std::thread::sleep(LOOK);
    }
}
