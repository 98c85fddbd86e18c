//! A send's paste, alone on the input line: the prompt pasted (bracketed), waited for until the
//! CLI shows it, and checked to start the composer. Text drawn before it was on its way in when
//! the line looked empty — a sender killed between its paste and its Enter, a CLI reading its
//! keys late — and an Enter would submit both as one turn: the line is cleared and the prompt
//! pasted again (issue 40 item 2).

use super::Ctx;
use super::input_line::{PASTE_POLL, clear_input};
use super::worker::Worker;
use crate::core::composer_text::{judged, text_before_prompt};
use crate::core::errors::{Error, Result};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// How long a paste may take to show on the input line before Enter is pressed anyway (the
/// extra-Enter loop then finds out what happened).
const PASTE_SHOWN: Duration = Duration::from_secs(1);
/// How long a CLI that shows it is reading a paste in (qwen's `Pasting… 12 KB`; 22 s seen for
/// 256 KiB on a loaded machine) is waited for before Enter is pressed anyway.
const PASTE_READ_MAX: Duration = Duration::from_secs(120);
/// Pause between two looks while it does, past [`PASTE_SHOWN`].
const PASTE_READ_POLL: Duration = Duration::from_millis(25);
/// How long a short prompt is waited for to show whole on the input line, to tell whether text
/// stands ahead of it.
const WHOLE_SHOWN: Duration = Duration::from_secs(5);
/// How many times the prompt is pasted again after text was found ahead of it.
const ALONE_TRIES: usize = 3;

/// A paste that shows alone on the input line.
pub struct Pasted {
    /// The screen showing it (or as it was when it had not shown in time).
    pub screen: String,
    /// When it was pasted.
    pub at: Instant,
    /// When a look first found it on the input line (or gave up waiting for it).
    pub shown_at: Instant,
    /// It took longer than [`PASTE_SHOWN`] to show (or never did): the CLI reads its keys late.
    pub late: bool,
}

/// Pastes `prompt` until it shows alone on the input line.
pub fn paste_alone(ctx: &Ctx, worker: &Worker, prompt: &[u8]) -> Result<Pasted> {
    let buffer = format!("umbel-prompt-{}", worker.name);
    let text = String::from_utf8_lossy(prompt);
    let mut screen = String::new();
    for _ in 0..ALONE_TRIES {
        let at = Instant::now();
        ctx.tmux.paste(worker.session(), &buffer, prompt)?;
        if let Some(key) = worker.provider().paste_flush_key() {
            ctx.tmux.send_keys(worker.session(), &[key])?;
        }
        crate::adapters::timing::mark("send: paste issued");
        screen = await_paste(ctx, worker)?;
        let shown_at = Instant::now();
        crate::adapters::timing::mark("send: paste shown");
        let (ahead, shown) = judge(ctx, worker, screen, &text)?;
        screen = shown;
        if ahead != Some(true) {
            let late = at.elapsed() >= PASTE_SHOWN || !worker.provider().pending_input(&screen);
            return Ok(Pasted {
                screen,
                at,
                shown_at,
                late,
            });
        }
        clear_input(ctx, worker, screen.clone())?;
    }
    Err(Error::NotSubmitted {
        name: worker.name.to_string(),
        detail: format!(
            "text kept arriving on its input line ahead of the prompt ({ALONE_TRIES} pastes); \
             nothing was submitted"
        ),
        screen: Some(screen),
    })
}

/// Whether the input line holds text ahead of `prompt` ([`text_before_prompt`]), looked at
/// until the prompt shows whole — a CLI reading its keys late draws what was on its way in
/// first — for at most [`WHOLE_SHOWN`]; the verdict and the screen it was read on.
fn judge(
    ctx: &Ctx,
    worker: &Worker,
    mut screen: String,
    prompt: &str,
) -> Result<(Option<bool>, String)> {
    let started = Instant::now();
    loop {
        let verdict =
            input_rows(worker, &screen).and_then(|rows| text_before_prompt(&rows, prompt));
        if verdict.is_some() || !judged(prompt) || started.elapsed() >= WHOLE_SHOWN {
            return Ok((verdict, screen));
        }
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        sleep(PASTE_READ_POLL);
        screen = ctx.tmux.capture(worker.session(), false)?;
    }
}

/// The screen from the input line down, where the provider can find it.
fn input_rows(worker: &Worker, screen: &str) -> Option<String> {
    let provider = worker.provider();
    if let Some(area) = provider.input_area(screen) {
        return Some(area.to_string());
    }
    let (row, _) = provider.input_line_at(screen)?;
    Some(screen.lines().skip(row).collect::<Vec<_>>().join("\n"))
}

/// Waits until the CLI shows the paste on its input line (it has taken the whole bracketed
/// paste in, so the Enter that follows is not part of it), at most [`PASTE_SHOWN`] — or, for a
/// CLI that shows when it reads a paste in, up to [`PASTE_READ_MAX`]. A screen look costs one
/// tmux call (~3 ms); the paste usually shows on the first or second.
fn await_paste(ctx: &Ctx, worker: &Worker) -> Result<String> {
    let provider = worker.provider();
    // A CLI that shows when it reads a paste in (qwen) is waited for until its paste shows:
    // between reading the paste in and drawing it, it shows neither, and an Enter then is taken
    // too soon. The paste has shown once it is on the input line and no longer being read.
    let patience = if provider.shows_paste_reading() {
        PASTE_READ_MAX
    } else {
        PASTE_SHOWN
    };
    let started = Instant::now();
    loop {
        let screen = ctx.tmux.capture(worker.session(), false)?;
        let waited = started.elapsed();
        let shown = provider.pending_input(&screen) && !provider.paste_in_progress(&screen);
        if shown || waited >= patience {
            return Ok(screen);
        }
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        sleep(if waited < PASTE_SHOWN {
            PASTE_POLL
        } else {
            PASTE_READ_POLL
        });
    }
}
