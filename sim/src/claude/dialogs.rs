//! Startup screens before the prompt: onboarding (= not signed in) and the
//! workspace trust dialog.

use super::config;
use super::release::{Claude, TAKEN_TRUST_HELD_MS};
use super::screens;
use super::session::Session;
pub use crate::engine::dialog::Startup;
use crate::engine::dialog::{self, CtrlC, Digits, TrustMenu};
use crate::engine::shell::paint;
use crate::screen::Screen;
use crate::term::{self, Terminal};

fn draw_full(screen: &mut Screen, lines: &[String]) -> Result<(), String> {
    let mut bytes = screen.clear();
    bytes.extend(screen.frame(&[], lines, term::size()));
    paint(&bytes)
}

/// The onboarding theme chooser: drawn, then nothing happens (umbel reads it
/// as "not signed in"). Only Ctrl-C twice or a closed terminal ends it.
pub fn onboarding(term: &mut Terminal, screen: &mut Screen) -> Result<Startup, String> {
    draw_full(screen, &screens::onboarding())?;
    dialog::wait(term, CtrlC::Twice(0))
}

/// The trust dialog, cursor on its first option ("No, exit"; "1. Yes, I trust this folder"
/// before [`Claude::TrustNoFirst`], which then stays up [`TAKEN_TRUST_HELD_MS`] with the taken
/// option marked `✔`). Up/Down move, Enter picks, Esc cancels (exit 1). Digits do nothing in
/// 2.1.332. Accepting writes `hasTrustDialogAccepted` into `.claude.json`.
pub fn trust(term: &mut Terminal, screen: &mut Screen, sess: &Session) -> Result<Startup, String> {
    draw_full(
        screen,
        &screens::trust_dialog(sess.release, term::size().0, &sess.cwd, 0),
    )?;
    let redraw = |cursor| {
        let live = screens::trust_dialog(sess.release, term::size().0, &sess.cwd, cursor);
        let _ = term::write_out(&screen.frame(&[], &live, term::size()));
    };
    let accept = || config::accept_trust(&sess.paths.claude_json, &sess.paths.cwd);
    if sess.release.has(Claude::TrustNoFirst) {
        return dialog::trust(term, TRUST_MENU, redraw, accept);
    }
    let decision = dialog::trust(term, TRUST_MENU_YES_FIRST, redraw, accept)?;
    if decision == Startup::Continue {
        // The older release marks the taken option and keeps the dialog up a while.
        let taken = screens::trust_taken(sess.release, term::size().0, &sess.cwd);
        paint(&screen.frame(&[], &taken, term::size()))?;
        std::thread::sleep(std::time::Duration::from_millis(TAKEN_TRUST_HELD_MS));
    }
    Ok(decision)
}

/// "No, exit" first, then "Yes, I trust this folder"; Ctrl-C twice exits 1.
const TRUST_MENU: TrustMenu = TrustMenu {
    trust_at: 1,
    digits: Digits::Ignored,
    ctrl_c: CtrlC::Twice(1),
};

/// Before [`Claude::TrustNoFirst`]: "1. Yes, I trust this folder" first, then "2. No, exit";
/// a digit picks its option at once (recorded on 2.1.246: `2` exits 1, `1` trusts).
const TRUST_MENU_YES_FIRST: TrustMenu = TrustMenu {
    trust_at: 0,
    digits: Digits::Pick,
    ..TRUST_MENU
};
