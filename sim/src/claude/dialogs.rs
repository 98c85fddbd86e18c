//! Startup screens before the prompt: onboarding (= not signed in) and the
//! workspace trust dialog.

use super::config;
use super::screens;
use super::session::Session;
pub use crate::engine::dialog::Startup;
use crate::engine::dialog::{self, CtrlC, TrustMenu};
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

/// The trust dialog, cursor on "No, exit" first. Up/Down move, Enter picks,
/// Esc cancels (exit 1). Digits do nothing in 2.1.332. Accepting writes
/// `hasTrustDialogAccepted` into `.claude.json`.
pub fn trust(term: &mut Terminal, screen: &mut Screen, sess: &Session) -> Result<Startup, String> {
    draw_full(screen, &screens::trust_dialog(term::size().0, &sess.cwd, 0))?;
    let redraw = |cursor| {
        let live = screens::trust_dialog(term::size().0, &sess.cwd, cursor);
        let _ = term::write_out(&screen.frame(&[], &live, term::size()));
    };
    let accept = || config::accept_trust(&sess.paths.claude_json, &sess.paths.cwd);
    dialog::trust(term, TRUST_MENU, redraw, accept)
}

/// "No, exit" first, then "Yes, I trust this folder"; Ctrl-C twice exits 1.
const TRUST_MENU: TrustMenu = TrustMenu {
    trust_at: 1,
    digits_move: false,
    ctrl_c: CtrlC::Twice(1),
};
