//! Startup screens before the prompt: sign-in (= not signed in), the folder
//! trust dialog, and "Hooks need review" with its hooks list.

use super::config::{self, Setting};
use super::hookcfg::EVENTS;
use super::render::Canvas;
use super::screens::{self, HookRow, LIST_ROWS};
use super::session::Session;
pub use crate::engine::dialog::Startup;
use crate::engine::dialog::{self, CtrlC, Digits, TrustMenu, key_loop};
use crate::engine::shell::paint;
use crate::keys::Key;
use crate::term::{self, Terminal};

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

fn draw_top(canvas: &mut Canvas, lines: &[String]) -> Result<(), String> {
    paint(&canvas.top(lines, term::size()))
}

/// The sign-in screen: drawn, then nothing happens until Ctrl-C (exit 1).
pub fn login(term: &mut Terminal, canvas: &mut Canvas) -> Result<Startup, String> {
    let lines: Vec<String> = screens::LOGIN.iter().map(|s| s.to_string()).collect();
    draw_top(canvas, &lines)?;
    dialog::wait(term, CtrlC::Once(1))
}

/// "Trust this folder?": `1`/`2`/Up/Down move, Enter confirms; Enter on
/// "Trust and continue" appends the trust to `config.toml`; Enter on
/// "Back…" or Esc exits 1.
pub fn trust(term: &mut Terminal, canvas: &mut Canvas, sess: &Session) -> Result<Startup, String> {
    let lines = |cursor| screens::trust_dialog(sess.release, &sess.cwd, cursor, term::size().0);
    draw_top(canvas, &lines(0))?;
    let redraw = |cursor| {
        let _ = draw_top(canvas, &lines(cursor));
    };
    let accept = || {
        let setting = config::trust_setting(&sess.cwd_path);
        config::write_settings(&sess.config.path, &[setting])
    };
    dialog::trust(term, TRUST_MENU, redraw, accept)
}

/// A dialog umbel does not know: "Yes" goes on to the prompt, "No" or Esc exits 1.
pub fn unknown(
    term: &mut Terminal,
    canvas: &mut Canvas,
    question: &str,
) -> Result<Startup, String> {
    draw_top(canvas, &screens::unknown_dialog(question, 0))?;
    let redraw = |cursor| {
        let _ = draw_top(canvas, &screens::unknown_dialog(question, cursor));
    };
    dialog::trust(term, TRUST_MENU, redraw, || Ok(()))
}

/// "Trust and continue" first, then "Back…"; Ctrl-C exits 1 at once.
const TRUST_MENU: TrustMenu = TrustMenu {
    trust_at: 0,
    digits: Digits::Move,
    ctrl_c: CtrlC::Once(1),
};

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
    let choice = key_loop(term, CtrlC::Once(1), HookChoice::Exit, |key| {
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
