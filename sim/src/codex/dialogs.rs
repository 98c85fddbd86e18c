//! Startup screens before the prompt: sign-in (= not signed in), the folder
//! trust dialog, and "Hooks need review" with its hooks list.

use super::config::{self, Setting};
use super::hookcfg::EVENTS;
use super::render::Canvas;
use super::screens::{self, HookRow, LIST_ROWS};
use super::session::Session;
use crate::keys::{ESC_TIMEOUT_MS, Key, KeyParser};
use crate::term::{self, Input, Terminal};

/// What a startup screen decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Startup {
    /// Go on.
    Continue,
    /// Exit with this status.
    Exit(i32),
}

/// The choice made in "Hooks need review".
#[derive(Debug, PartialEq, Eq)]
pub enum HookChoice {
    /// "Trust all and continue" (or `t` in the list): every hook runs.
    TrustAll,
    /// "Continue without trusting" (or Esc): only already trusted hooks run.
    Skip,
    /// Exit with this status (Ctrl-C, closed terminal).
    Exit(i32),
}

/// Reads keys until `handle` decides. Ctrl-C exits with 1, a closed terminal with 0.
fn key_loop<T>(
    term: &mut Terminal,
    exit: impl Fn(i32) -> T,
    mut handle: impl FnMut(&Key) -> Option<T>,
) -> Result<T, String> {
    let mut parser = KeyParser::new();
    loop {
        let timeout = parser
            .pending()
            .then(|| std::time::Duration::from_millis(ESC_TIMEOUT_MS));
        let keys = match term
            .read(timeout)
            .map_err(|e| format!("cannot read the terminal: {e}"))?
        {
            Input::Bytes(b) => parser.feed(&b),
            Input::Timeout => parser.flush(),
            Input::Closed => return Ok(exit(0)),
        };
        for key in &keys {
            if *key == Key::CtrlC {
                return Ok(exit(1));
            }
            if let Some(decision) = handle(key) {
                return Ok(decision);
            }
        }
    }
}

fn draw_top(canvas: &mut Canvas, lines: &[String]) -> Result<(), String> {
    term::write_out(&canvas.top(lines, term::size()))
        .map_err(|e| format!("cannot write to the terminal: {e}"))
}

/// The sign-in screen: drawn, then nothing happens until Ctrl-C (exit 1).
pub fn login(term: &mut Terminal, canvas: &mut Canvas) -> Result<Startup, String> {
    let lines: Vec<String> = screens::LOGIN.iter().map(|s| s.to_string()).collect();
    draw_top(canvas, &lines)?;
    key_loop(term, Startup::Exit, |_| None)
}

/// "Trust this folder?": `1`/`2`/Up/Down move, Enter confirms; Enter on
/// "Trust and continue" appends the trust to `config.toml`; Enter on
/// "Back…" or Esc exits 1.
pub fn trust(term: &mut Terminal, canvas: &mut Canvas, sess: &Session) -> Result<Startup, String> {
    let mut cursor = 0usize;
    draw_top(
        canvas,
        &screens::trust_dialog(&sess.cwd, cursor, term::size().0),
    )?;
    let mut error = None;
    let decision = key_loop(term, Startup::Exit, |key| {
        let before = cursor;
        match key {
            Key::Up => cursor = 0,
            Key::Down => cursor = 1,
            Key::Text(t) if t == "1" => cursor = 0,
            Key::Text(t) if t == "2" => cursor = 1,
            Key::Enter if cursor == 1 => return Some(Startup::Exit(1)),
            Key::Enter => {
                let setting = config::trust_setting(&sess.cwd_path);
                if let Err(e) = config::write_settings(&sess.config.path, &[setting]) {
                    error = Some(e);
                    return Some(Startup::Exit(1));
                }
                return Some(Startup::Continue);
            }
            Key::Esc => return Some(Startup::Exit(1)),
            _ => {}
        }
        if cursor != before {
            let lines = screens::trust_dialog(&sess.cwd, cursor, term::size().0);
            let _ = draw_top(canvas, &lines);
        }
        None
    })?;
    error.map_or(Ok(decision), Err)
}

fn rows(sess: &Session) -> Vec<HookRow> {
    EVENTS
        .iter()
        .map(|(event, desc)| {
            let (installed, active, review) = sess.hook_file.counts(event);
            (
                event.to_string(),
                installed,
                active,
                review,
                desc.to_string(),
            )
        })
        .collect()
}

/// "Hooks need review": Up/Down/digits move, Enter confirms. 1 opens the
/// hooks list (Up/Down scroll, `t` trusts all, Esc goes back), 2 trusts
/// every hook (recorded in `config.toml`), 3 or Esc continues without.
pub fn hooks(
    term: &mut Terminal,
    canvas: &mut Canvas,
    sess: &Session,
) -> Result<HookChoice, String> {
    let untrusted = sess.hook_file.untrusted();
    let count = if untrusted > 0 {
        untrusted
    } else {
        sess.hook_file.entries.len()
    };
    let (mut cursor, mut list, mut top, mut row) = (0usize, false, 0usize, 0usize);
    let table = rows(sess);
    let draw = |canvas: &mut Canvas, list: bool, cursor: usize, top: usize, row: usize| {
        if list {
            let mut view = Canvas::new();
            let size = term::size();
            view.commit(&screens::header(&sess.cwd), size.0);
            let live = screens::hooks_list(&table, untrusted, top, row);
            term::write_out(&view.frame(&live, size)).map_err(|e| e.to_string())
        } else {
            draw_top(canvas, &screens::hooks_review(count, cursor))
        }
    };
    draw(canvas, list, cursor, top, row)?;
    let choice = key_loop(term, HookChoice::Exit, |key| {
        if list {
            match key {
                Key::Up => row = row.saturating_sub(1),
                Key::Down => row = (row + 1).min(table.len().saturating_sub(1)),
                Key::Text(t) if t == "t" => return Some(HookChoice::TrustAll),
                Key::Esc => list = false,
                _ => return None,
            }
            top = top.min(row).max((row + 1).saturating_sub(LIST_ROWS));
        } else {
            match key {
                Key::Up => cursor = cursor.saturating_sub(1),
                Key::Down => cursor = (cursor + 1).min(2),
                Key::Text(t) if matches!(t.as_str(), "1" | "2" | "3") => {
                    cursor = usize::from(t.as_bytes()[0] - b'1');
                }
                Key::Enter if cursor == 0 => list = true,
                Key::Enter if cursor == 1 => return Some(HookChoice::TrustAll),
                Key::Enter | Key::Esc => return Some(HookChoice::Skip),
                _ => return None,
            }
        }
        let _ = draw(canvas, list, cursor, top, row);
        None
    })?;
    if choice == HookChoice::TrustAll {
        let settings: Vec<Setting> = sess.hook_file.trust_settings();
        if !settings.is_empty() {
            config::write_settings(&sess.config.path, &settings)?;
        }
    }
    Ok(choice)
}
