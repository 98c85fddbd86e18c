//! Startup dialogs before the prompt: folder trust (with the real CLI's
//! restart after trusting) and authentication (= not signed in).

use std::path::PathBuf;
use std::time::Duration;

use super::boxes::{self, AUTH_ESC, NO_AUTH, TRUST_ESC};
use super::cli::Options;
use super::headless::{auth_type, trusted_for_session};
use super::home::{self, Paths, Settings, TrustLevel};
use super::screens;
use crate::engine::dialog::{CtrlC, key_loop};
use crate::engine::shell::paint;
use crate::keys::Key;
use crate::scenario::Scenario;
use crate::screen::Screen;
use crate::term::{self, Terminal};

/// What the trust dialog decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// "Don't trust": go on untrusted.
    Untrusted,
    /// A trust level was saved: restart like the real CLI.
    Restart,
    /// Exit with this status.
    Exit(i32),
}

/// Where the startup dialogs leave the TUI.
#[derive(Debug, PartialEq, Eq)]
pub enum Gate {
    /// Go on to the prompt.
    Open {
        /// True when the folder is trusted for this session.
        trusted: bool,
        /// Header lines still to print (empty when a dialog already printed one).
        header: Vec<String>,
    },
    /// Exit with this status (the process may also have been replaced by its restart).
    Exit(i32),
}

/// The trust dialog when the folder's trust is unknown (or the scenario
/// forces it, once), then the auth dialog when no auth is configured (or the
/// scenario says `sign_in`).
pub fn gates(
    term: &mut Terminal,
    screen: &mut Screen,
    opts: &Options,
    scenario: &Scenario,
    paths: &Paths,
    settings: &Settings,
    restarted: bool,
) -> Result<Gate, String> {
    let width = term::size().0;
    let true_color = screens::true_color_env();
    let known = trusted_for_session(opts, paths, settings)?;
    let mut header_drawn = false;
    let trusted = if known.is_none() || (scenario.startup.trust_dialog && !restarted) {
        let mut header = screens::header(super::release::current(), None);
        header.extend(screens::notices(width, true, true_color));
        header_drawn = true;
        match trust(term, screen, paths, &header)? {
            Decision::Restart => return restart(term, paths).map(Gate::Exit),
            Decision::Untrusted => false,
            Decision::Exit(code) => return Ok(Gate::Exit(code)),
        }
    } else {
        known == Some(true)
    };
    let header = |auth: Option<&str>| {
        if header_drawn {
            return Vec::new();
        }
        let mut lines = screens::header(super::release::current(), auth);
        lines.extend(screens::notices(width, !trusted, true_color));
        lines
    };
    if let Some(question) = &scenario.startup.unknown_dialog
        && let Some(code) = unknown(term, screen, question)?
    {
        return Ok(Gate::Exit(code));
    }
    match auth_type(settings).filter(|_| !scenario.startup.sign_in) {
        Some(auth) => Ok(Gate::Open {
            trusted,
            header: header(Some(&auth)),
        }),
        None => auth_dialog(term, screen, &header(None)).map(Gate::Exit),
    }
}

/// A dialog umbel does not know: Up/Down move the `●`, Enter on "Yes" goes on (`None`), on
/// "No" or Esc exits 1.
fn unknown(
    term: &mut Terminal,
    screen: &mut Screen,
    question: &str,
) -> Result<Option<i32>, String> {
    let dialog = |cursor| boxes::unknown_dialog(term::size().0, question, cursor);
    write(screen, &[], &dialog(0))?;
    let mut cursor = 0usize;
    key_loop(term, CtrlC::Twice(0), Some, |key| {
        match key {
            Key::Up => cursor = 0,
            Key::Down => cursor = 1,
            Key::Enter if cursor == 0 => {
                let _ = write(screen, &[], &[]);
                return Some(None);
            }
            Key::Enter | Key::Esc => return Some(Some(1)),
            _ => return None,
        }
        let _ = write(screen, &[], &dialog(cursor));
        None
    })
}

/// Exit status of Esc in the trust dialog (`FATAL_CANCELLATION_ERROR`).
pub const CANCELLED_STATUS: i32 = 130;

fn marker(paths: &Paths) -> PathBuf {
    paths
        .dir
        .join(format!(".umbel-sim-restart-{}", std::process::id()))
}

/// True (once) when this process is the restart of a trusting dialog: the
/// parent left a marker named after the pid, which `exec` keeps.
pub fn take_restart_marker(paths: &Paths) -> bool {
    std::fs::remove_file(marker(paths)).is_ok()
}

fn write(screen: &mut Screen, commit: &[String], live: &[String]) -> Result<(), String> {
    paint(&screen.frame(commit, live, term::size()))
}

/// The folder trust dialog under `header`. `1`/`2` pick and apply at once,
/// Up/Down move the `●`, Enter applies; trusting writes `trustedFolders.json`
/// and asks for a restart, "Don't trust" records `DO_NOT_TRUST` and goes on,
/// Esc exits 130 with the real CLI's message.
pub fn trust(
    term: &mut Terminal,
    screen: &mut Screen,
    paths: &Paths,
    header: &[String],
) -> Result<Decision, String> {
    let width = || term::size().0;
    let dialog = |cursor: usize| {
        let mut lines = vec![String::new()];
        lines.extend(boxes::trust_dialog(width(), &paths.cwd, cursor));
        lines
    };
    let mut cursor = 0usize;
    write(screen, header, &dialog(cursor))?;
    let mut failed = None;
    let mut apply = |cursor: usize, screen: &mut Screen| {
        let level = [
            TrustLevel::TrustFolder,
            TrustLevel::TrustParent,
            TrustLevel::DoNotTrust,
        ][cursor.min(2)];
        if let Err(e) = home::set_trust(paths, level) {
            failed = Some(e);
            return Decision::Exit(1);
        }
        if level == TrustLevel::DoNotTrust {
            let _ = write(screen, &[], &[]);
            return Decision::Untrusted;
        }
        let mut live = dialog(cursor);
        live.extend([String::new(), boxes::restarting().to_string()]);
        let _ = write(screen, &[], &live);
        Decision::Restart
    };
    let decision = key_loop(term, CtrlC::Twice(0), Decision::Exit, |key| {
        let before = cursor;
        match key {
            Key::Up => cursor = cursor.saturating_sub(1),
            Key::Down => cursor = (cursor + 1).min(2),
            Key::Enter => return Some(apply(cursor, screen)),
            Key::Text(t) if matches!(t.as_str(), "1" | "2" | "3") => {
                cursor = usize::from(t.as_bytes()[0] - b'1');
                return Some(apply(cursor, screen));
            }
            Key::Esc => {
                let mut live = dialog(cursor);
                live.extend([String::new(), TRUST_ESC.to_string()]);
                let _ = write(screen, &[], &live);
                return Some(Decision::Exit(CANCELLED_STATUS));
            }
            _ => {}
        }
        if cursor != before {
            let _ = write(screen, &[], &dialog(cursor));
        }
        None
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(decision),
    }
}

/// Restarts the way the real CLI does after trusting a folder: after 250 ms
/// the process replaces itself (`exec`, same pid and arguments); the dialog
/// stays on screen above the new output. Returns only on failure.
pub fn restart(term: &mut Terminal, paths: &Paths) -> Result<i32, String> {
    use std::os::unix::process::CommandExt;
    std::thread::sleep(Duration::from_millis(250));
    home::write_in_place(&marker(paths), "restart\n")?;
    let _ = term::write_out(b"\r\n");
    term.restore();
    let exe = std::env::current_exe().map_err(|e| format!("cannot restart: {e}"))?;
    let err = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .exec();
    let _ = std::fs::remove_file(marker(paths));
    Err(format!("cannot restart: {err}"))
}

/// The auth dialog: drawn, then nothing happens (umbel reads it as "not
/// signed in"). Up/Down move the `●`, Esc shows the real reminder; only
/// Ctrl+C twice or a closed terminal ends it (status 0).
pub fn auth_dialog(
    term: &mut Terminal,
    screen: &mut Screen,
    header: &[String],
) -> Result<i32, String> {
    let width = || term::size().0;
    let dialog = |cursor: usize, message: &str| {
        let mut lines = vec![String::new()];
        match super::flavor::qwen() {
            true => lines.extend(boxes::rounded(
                &crate::qwen::data::sign_in_rows(),
                width().saturating_sub(4).min(100),
                2,
                1,
            )),
            false => lines.extend(boxes::auth_dialog(width(), cursor, message)),
        }
        lines
    };
    let (mut cursor, mut message) = (0usize, NO_AUTH);
    write(screen, header, &dialog(cursor, message))?;
    let decision = key_loop(term, CtrlC::Twice(0), Decision::Exit, |key| {
        match key {
            Key::Up => cursor = cursor.saturating_sub(1),
            Key::Down => cursor = (cursor + 1).min(2),
            Key::Esc => message = AUTH_ESC,
            _ => return None,
        }
        let _ = write(screen, &[], &dialog(cursor, message));
        None
    })?;
    let _ = write(screen, &[], &[]);
    Ok(match decision {
        Decision::Exit(code) => code,
        _ => 0,
    })
}
