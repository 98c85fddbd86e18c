//! The startup screens' key handling, shared by the fakes: every fake's
//! sign-in and trust screens read keys the same way, and the yes/no trust
//! dialogs of claude and codex differ only in data ([`TrustMenu`]).

use std::time::{Duration, Instant};

use crate::keys::{ESC_TIMEOUT_MS, Key, KeyParser};
use crate::term::{Input, Terminal};

/// What a startup screen decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Startup {
    /// Go on to the prompt.
    Continue,
    /// Exit with this status.
    Exit(i32),
}

/// What Ctrl-C does on a startup screen.
#[derive(Clone, Copy, Debug)]
pub enum CtrlC {
    /// The first one exits with this status (codex).
    Once(i32),
    /// Two within 2 s exit with this status (claude, gemini).
    Twice(i32),
}

/// Reads keys until `handle` decides. Ctrl-C exits as `ctrl_c` says, a
/// closed terminal with 0; `exit` makes the decision for a status.
pub fn key_loop<T>(
    term: &mut Terminal,
    ctrl_c: CtrlC,
    exit: impl Fn(i32) -> T,
    mut handle: impl FnMut(&Key) -> Option<T>,
) -> Result<T, String> {
    let mut parser = KeyParser::new();
    let mut armed: Option<Instant> = None;
    loop {
        let timeout = parser
            .pending()
            .then(|| Duration::from_millis(ESC_TIMEOUT_MS));
        let keys = match term
            .read(timeout)
            .map_err(|e| format!("cannot read the terminal: {e}"))?
        {
            Input::Bytes(b) => parser.feed(&b),
            Input::Timeout => parser.flush(),
            Input::Closed => return Ok(exit(0)),
        };
        for key in &keys {
            match (key, ctrl_c) {
                (Key::CtrlC, CtrlC::Once(status)) => return Ok(exit(status)),
                (Key::CtrlC, CtrlC::Twice(status)) => {
                    if armed.is_some_and(|t| t.elapsed() < Duration::from_secs(2)) {
                        return Ok(exit(status));
                    }
                    armed = Some(Instant::now());
                }
                _ => {
                    if let Some(decision) = handle(key) {
                        return Ok(decision);
                    }
                }
            }
        }
    }
}

/// A screen that only waits (sign-in): nothing but Ctrl-C or a closed terminal ends it.
pub fn wait(term: &mut Terminal, ctrl_c: CtrlC) -> Result<Startup, String> {
    key_loop(term, ctrl_c, Startup::Exit, |_| None)
}

/// A two-option trust dialog as data.
#[derive(Clone, Copy, Debug)]
pub struct TrustMenu {
    /// The option that trusts (0 or 1); the other exits 1.
    pub trust_at: usize,
    /// What `1`/`2` do.
    pub digits: Digits,
    /// What Ctrl-C does.
    pub ctrl_c: CtrlC,
}

/// What the digit keys do in a trust dialog.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Digits {
    /// Nothing.
    Ignored,
    /// Move the cursor to that option.
    Move,
    /// Pick that option at once, as Enter on it would.
    Pick,
}

/// Runs a trust dialog, cursor on option 0: Up/Down (and digits, per [`Digits`]) move and
/// `redraw`, Enter picks, Esc exits 1. Picking trust runs `accept`; its
/// error ends the dialog with that error.
pub fn trust(
    term: &mut Terminal,
    menu: TrustMenu,
    mut redraw: impl FnMut(usize),
    accept: impl FnOnce() -> Result<(), String>,
) -> Result<Startup, String> {
    let mut cursor = 0usize;
    let mut accept = Some(accept);
    let mut error = None;
    let mut pick = |at: usize| {
        if at != menu.trust_at {
            return Startup::Exit(1);
        }
        match accept.take().map_or(Ok(()), |f| f()) {
            Ok(()) => Startup::Continue,
            Err(e) => {
                error = Some(e);
                Startup::Exit(1)
            }
        }
    };
    let decision = key_loop(term, menu.ctrl_c, Startup::Exit, |key| {
        let before = cursor;
        match key {
            Key::Up => cursor = 0,
            Key::Down => cursor = 1,
            Key::Text(t) if menu.digits != Digits::Ignored && (t == "1" || t == "2") => {
                cursor = usize::from(t == "2");
                if menu.digits == Digits::Pick {
                    return Some(pick(cursor));
                }
            }
            Key::Enter => return Some(pick(cursor)),
            Key::Esc => return Some(Startup::Exit(1)),
            _ => {}
        }
        if cursor != before {
            redraw(cursor);
        }
        None
    })?;
    error.map_or(Ok(decision), Err)
}
