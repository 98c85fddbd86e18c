//! Startup screens before the prompt: onboarding (= not signed in) and the
//! workspace trust dialog.

use std::time::{Duration, Instant};

use super::config;
use super::screens;
use super::session::Session;
use crate::keys::{ESC_TIMEOUT_MS, Key, KeyParser};
use crate::screen::Screen;
use crate::term::{self, Input, Terminal};

/// What the startup screens decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Startup {
    /// Go on to the prompt.
    Continue,
    /// Exit with this status.
    Exit(i32),
}

/// Reads keys until `handle` returns a decision. Ctrl-C twice (within 2 s)
/// exits with `ctrl_c_status`; a closed terminal exits with 0.
pub fn key_loop(
    term: &mut Terminal,
    ctrl_c_status: i32,
    mut handle: impl FnMut(&Key) -> Option<Startup>,
) -> Result<Startup, String> {
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
            Input::Closed => return Ok(Startup::Exit(0)),
        };
        for key in &keys {
            if *key == Key::CtrlC {
                if armed.is_some_and(|t| t.elapsed() < Duration::from_secs(2)) {
                    return Ok(Startup::Exit(ctrl_c_status));
                }
                armed = Some(Instant::now());
                continue;
            }
            if let Some(decision) = handle(key) {
                return Ok(decision);
            }
        }
    }
}

fn draw_full(screen: &mut Screen, lines: &[String]) -> Result<(), String> {
    let mut bytes = screen.clear();
    bytes.extend(screen.frame(&[], lines, term::size()));
    term::write_out(&bytes).map_err(|e| format!("cannot write to the terminal: {e}"))
}

/// The onboarding theme chooser: drawn, then nothing happens (umbel reads it
/// as "not signed in"). Only Ctrl-C twice or a closed terminal ends it.
pub fn onboarding(term: &mut Terminal, screen: &mut Screen) -> Result<Startup, String> {
    draw_full(screen, &screens::onboarding())?;
    key_loop(term, 0, |_| None)
}

/// The trust dialog, cursor on "No, exit" first. Up/Down move, Enter picks,
/// Esc cancels (exit 1). Digits do nothing in 2.1.332. Accepting writes
/// `hasTrustDialogAccepted` into `.claude.json`.
pub fn trust(term: &mut Terminal, screen: &mut Screen, sess: &Session) -> Result<Startup, String> {
    let width = || term::size().0;
    let mut cursor = 0usize;
    draw_full(screen, &screens::trust_dialog(width(), &sess.cwd, cursor))?;
    let mut error = None;
    let decision = key_loop(term, 1, |key| {
        let before = cursor;
        match key {
            Key::Up => cursor = 0,
            Key::Down => cursor = 1,
            Key::Enter if cursor == 0 => return Some(Startup::Exit(1)),
            Key::Enter => {
                if let Err(e) = config::accept_trust(&sess.paths.claude_json, &sess.paths.cwd) {
                    error = Some(e);
                    return Some(Startup::Exit(1));
                }
                return Some(Startup::Continue);
            }
            Key::Esc => return Some(Startup::Exit(1)),
            _ => {}
        }
        if cursor != before {
            let live = screens::trust_dialog(width(), &sess.cwd, cursor);
            let _ = term::write_out(&screen.frame(&[], &live, term::size()));
        }
        None
    })?;
    match error {
        Some(e) => Err(e),
        None => Ok(decision),
    }
}
