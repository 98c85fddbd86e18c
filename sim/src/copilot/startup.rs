//! What copilot shows before its composer takes prompts: the "Confirm folder trust" dialog
//! (every start, a resumed one too, unless the folder is remembered; recorded:
//! `copilot-1.0.102-trust-dialog.txt`), a scenario's `unknown_dialog`, and the not-signed-in
//! composer (`copilot-1.0.102-sign-in.txt`), which it sits on until Ctrl-C twice.
//!
//! Trust keys: a digit picks at once, ↑/↓ move, Enter picks the highlighted option, Esc is
//! "No". "Yes" goes on, "Yes, and remember…" also writes the folder to `config.json`
//! ([`super::home::remember`]), "No" exits with status 1 (not recorded).

use super::home;
use super::screens;
use super::session::Session;
use super::view::{View, paint_rows};
use crate::engine::dialog::{CtrlC, Startup, key_loop, wait};
use crate::keys::Key;
use crate::term::Terminal;

/// What a key does in a dialog of `count` options with the cursor at `cursor`: the option
/// picked (`Some(Some(i))`), Esc (`Some(None)`), or nothing yet (the cursor may have moved).
fn choose(key: &Key, cursor: &mut usize, count: usize) -> Option<Option<usize>> {
    match key {
        Key::Up => *cursor = cursor.saturating_sub(1),
        Key::Down => *cursor = (*cursor + 1).min(count - 1),
        Key::Enter => return Some(Some(*cursor)),
        Key::Esc => return Some(None),
        Key::Text(t) => {
            let digit = t.parse::<usize>().ok().filter(|d| (1..=count).contains(d));
            if let Some(d) = digit {
                return Some(Some(d - 1));
            }
        }
        _ => {}
    }
    None
}

/// Runs a dialog of `count` options drawn by `draw` (given the cursor) until one is picked
/// (`Some(i)`) or Esc (`None`); Ctrl-C twice is status 0.
fn dialog(
    term: &mut Terminal,
    count: usize,
    draw: impl Fn(usize) -> Result<(), String>,
) -> Result<Result<Option<usize>, i32>, String> {
    let mut cursor = 0;
    draw(cursor)?;
    let mut failed = None;
    let picked = key_loop(term, CtrlC::Twice(0), Err, |key| {
        let before = cursor;
        let picked = choose(key, &mut cursor, count);
        if picked.is_none() && cursor != before {
            failed = draw(cursor).err();
        }
        picked.map(Ok)
    })?;
    failed.map_or(Ok(picked), Err)
}

/// The trust dialog when the folder needs it (`forced`: even when remembered).
pub fn trust(
    term: &mut Terminal,
    sess: &Session,
    view: &View,
    forced: bool,
) -> Result<Startup, String> {
    let cwd = std::path::Path::new(&sess.who.cwd);
    if !forced && home::trusted(&sess.who.home, cwd) {
        return Ok(Startup::Continue);
    }
    let draw = |cursor| {
        let size = crate::term::size();
        paint_rows(&view.rows(size, &[], screens::trust(size.0, &sess.who.cwd, cursor)))
    };
    match dialog(term, 3, draw)? {
        Err(code) => Ok(Startup::Exit(code)),
        Ok(Some(0)) => Ok(Startup::Continue),
        Ok(Some(1)) => home::remember(&sess.who.home, cwd).map(|()| Startup::Continue),
        Ok(_) => Ok(Startup::Exit(1)),
    }
}

/// A scenario's dialog umbel does not know: "Yes" goes on, "No" or Esc exits 1.
pub fn unknown(term: &mut Terminal, view: &View, question: &str) -> Result<Startup, String> {
    let draw = |cursor| {
        let size = crate::term::size();
        paint_rows(&view.rows(size, &[], screens::unknown(size.0, question, cursor)))
    };
    Ok(match dialog(term, 2, draw)? {
        Err(code) => Startup::Exit(code),
        Ok(Some(0)) => Startup::Continue,
        Ok(_) => Startup::Exit(1),
    })
}

/// Sits on the not-signed-in composer (drawn already) until Ctrl-C twice (status 0).
pub fn signed_out(term: &mut Terminal) -> Result<i32, String> {
    Ok(match wait(term, CtrlC::Twice(0))? {
        Startup::Exit(code) => code,
        Startup::Continue => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_pick_arrows_move_and_esc_says_no() {
        let mut cursor = 0;
        assert_eq!(
            choose(&Key::Text("2".into()), &mut cursor, 3),
            Some(Some(1))
        );
        assert_eq!(choose(&Key::Text("4".into()), &mut cursor, 3), None);
        assert_eq!(choose(&Key::Down, &mut cursor, 3), None);
        assert_eq!(choose(&Key::Down, &mut cursor, 3), None);
        assert_eq!(choose(&Key::Down, &mut cursor, 3), None);
        assert_eq!(cursor, 2);
        assert_eq!(choose(&Key::Enter, &mut cursor, 3), Some(Some(2)));
        assert_eq!(choose(&Key::Esc, &mut cursor, 3), Some(None));
    }
}
