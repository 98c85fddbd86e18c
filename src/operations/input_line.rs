//! The input line before a paste: emptied of what it holds (a send killed between its paste and
//! its Enter, a person typing through `attach`), each round of clearing keys waited on until
//! the CLI redrew, so no key lands on the prompt pasted next.

use super::Ctx;
use super::worker::Worker;
use crate::core::errors::{Error, Result};
use std::time::{Duration, Instant};

/// Pause between two looks at the input line while a paste is being taken in.
pub(super) const PASTE_POLL: Duration = Duration::from_millis(2);
/// Pause between two looks at a screen drawn in part ([`input_line_empty`]).
const BLANK_POLL: Duration = Duration::from_millis(10);
/// How long a screen may show no input line before it is taken as it is ([`input_line_empty`]).
const INPUT_LINE_WAIT: Duration = Duration::from_secs(1);
/// How long keys may take to change the screen before they are taken for lost.
const KEY_EFFECT: Duration = Duration::from_secs(5);
/// How many clearing rounds in a row may leave the screen unchanged before umbel gives up.
const IGNORED_ROUNDS: u32 = 3;
/// How many clearing rounds ([`crate::core::providers::ProviderModule::clear_keys`]) may empty a
/// leftover input line (one line each).
const CLEAR_ROUNDS: usize = 200;

/// Empties an input line that holds text — a `send` killed between its paste and its Enter, or
/// a person typing through `attach` — so the prompt is not submitted glued to it. The real
/// CLIs' Ctrl-U deletes only the last line, so it is Ctrl-U then Backspace (joining the line
/// above), until the composer shows empty.
pub(super) fn clear_input(ctx: &Ctx, worker: &Worker, mut screen: String) -> Result<()> {
    let mut ignored = 0;
    for _ in 0..CLEAR_ROUNDS {
        if input_line_empty(ctx, worker, &mut screen)? {
            return Ok(());
        }
        ctx.tmux
            .send_keys(worker.session(), worker.provider().clear_keys())?;
        let now = redrawn(ctx, worker, &screen)?;
        ignored = if now == screen { ignored + 1 } else { 0 };
        screen = now;
        if ignored == IGNORED_ROUNDS {
            break;
        }
    }
    Err(Error::NotSubmitted {
        name: worker.name.to_string(),
        detail: format!(
            "its input line still held text after Ctrl-U and Backspace; clear it in `umbel attach {}`",
            worker.name
        ),
        screen: Some(screen),
    })
}

/// Whether `screen` shows the input line empty. A CLI that clears its screen to draw it again
/// (codex 0.155.1 once its model is loaded, after its ready screen) shows a blank or half-drawn
/// screen for a moment, with no input line to judge: the screen is looked at again until it
/// shows one, for at most [`INPUT_LINE_WAIT`], and taken as it is after that.
fn input_line_empty(ctx: &Ctx, worker: &Worker, screen: &mut String) -> Result<bool> {
    let provider = worker.provider();
    let deadline = Instant::now() + INPUT_LINE_WAIT;
    while provider.input_line_at(screen).is_none() && Instant::now() < deadline {
        if ctx.cancelled() {
            break;
        }
        std::thread::sleep(BLANK_POLL);
        *screen = ctx.tmux.capture(worker.session(), false)?;
    }
    Ok(!provider.pending_input(screen))
}

/// The screen once it differs from `before` — keys pressed on it took effect — or as it is
/// after [`KEY_EFFECT`] (they were lost). Pressing again before the CLI redrew would queue
/// keys that land on whatever comes next: the prompt about to be pasted.
fn redrawn(ctx: &Ctx, worker: &Worker, before: &str) -> Result<String> {
    let deadline = Instant::now() + KEY_EFFECT;
    loop {
        std::thread::sleep(PASTE_POLL);
        let now = ctx.tmux.capture(worker.session(), false)?;
        if now != before || Instant::now() >= deadline || ctx.cancelled() {
            return Ok(now);
        }
    }
}
