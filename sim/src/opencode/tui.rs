//! The interactive opencode: the engine's [`Shell`] with opencode's screens ([`super::screens`])
//! and keys. Full-screen on the alternate screen, redrawn whole each frame.
//!
//! Keys: Enter submits (a prompt typed while a turn runs waits its turn), Esc twice within 5 s
//! interrupts a running turn (the first shows `esc again to interrupt`), the permission dialog takes ⇆ (Left/Right, Tab) and Enter, Esc rejects;
//! Ctrl-C clears the input, and on an empty input leaves (as `/exit` does).

use std::time::Instant;

use super::screens::{self, Dialog, View};
use super::session::{Exchange, Session};
use super::turn::{Done, Turn};
use crate::engine::event_loop::Flow;
use crate::engine::shell::{Face, Shell, paint};
use crate::engine::timeline::Phase;
use crate::input::InputBuffer;
use crate::keys::Key;
use crate::term::{self, Terminal};

/// fake-opencode's screen state.
pub struct Opencode {
    /// The folder as the home screen shows it.
    cwd: String,
    /// `Claude Sonnet 4.5 (latest)`, `Anthropic`.
    model: (String, String),
    /// When the first Esc of an interrupt was pressed (the second within [`ARMED`] interrupts).
    armed: Option<Instant>,
}

/// How long the first Esc waits for the second (opencode's `session_interrupt`).
const ARMED: std::time::Duration = std::time::Duration::from_secs(5);

type App = Shell<Opencode>;

/// Enters the alternate screen and hides the cursor.
const ENTER: &[u8] = b"\x1b[?1049h\x1b[?25l\x1b[2J";
/// Leaves it.
const LEAVE: &[u8] = b"\x1b[?25h\x1b[?1049l";

/// Runs the TUI on `sess` and returns the exit status.
pub fn run(sess: Session) -> Result<i32, String> {
    let term = Terminal::enter().map_err(|e| e.to_string())?;
    let face = Opencode {
        cwd: sess.who.cwd.clone(),
        model: super::session::model_label(&sess.who.model),
        armed: None,
    };
    Shell::new(sess, term, face).serve(None)
}

/// `[Pasted ~N lines]` for a paste of 3 lines or more, or over 150 characters.
fn paste_label(_existing: &[&str], content: &str) -> Option<String> {
    let lines = content.split('\n').count();
    (lines >= 3 || content.chars().count() > 150).then(|| format!("[Pasted ~{lines} lines]"))
}

impl Opencode {
    /// The conversation's rows: finished exchanges, then the running turn.
    fn conversation(app: &App) -> Vec<String> {
        let mut rows = Vec::new();
        for x in &app.sess.history {
            rows.extend(screens::prompt_block(&x.prompt));
            rows.extend(screens::answer_block(&x.shown, &x.footer));
        }
        if let Some(turn) = &app.turn {
            rows.extend(screens::prompt_block(&turn.prompt));
            let mut shown = turn.shown.clone();
            shown.push(turn.text.clone());
            rows.extend(screens::answer_block(&shown, &app.face.agent()));
        }
        rows
    }

    fn agent(&self) -> String {
        format!("Build · {}", self.model.0)
    }

    /// The permission question the running turn asks, if any.
    fn dialog(app: &App) -> Option<Dialog<'static>> {
        let turn = app.turn.as_ref()?;
        let Phase::Dialog(cursor) = turn.core.phase else {
            return None;
        };
        let call = &turn.running.as_ref()?.call;
        let (permission, detail) = super::bus::permission_of(call);
        let (kind, detail) = match permission {
            "bash" => ("# Shell command", format!("$ {detail}")),
            "edit" => ("# Edit", detail),
            "webfetch" => ("# Web fetch", detail),
            _ => ("# Access", detail),
        };
        Some(Dialog {
            kind,
            detail,
            cursor,
        })
    }
}

impl Face for Opencode {
    const NAME: &'static str = "fake-opencode";
    type Turn = Turn;

    fn open(app: &mut App) -> Result<(), String> {
        // opencode loads its plugins before its TUI draws.
        app.sess.load_plugins();
        paint(ENTER)?;
        Opencode::draw(app)
    }

    fn key(app: &mut App, key: Key) -> Result<Flow, String> {
        if let Some(turn) = app.turn.as_mut() {
            if matches!(turn.core.phase, Phase::Dialog(_)) {
                let outcome = turn.key(&mut app.sess, &key, Instant::now());
                return app.after(outcome);
            }
            if key == Key::Esc {
                let armed = app.face.armed.take().is_some_and(|t| t.elapsed() < ARMED);
                if !armed {
                    app.face.armed = Some(Instant::now());
                    return Ok(Flow::Go);
                }
                let outcome = turn.cancel(&mut app.sess);
                return app.after(Some(outcome));
            }
        }
        match key {
            Key::CtrlC if !app.input.is_empty() => app.input.clear(),
            Key::CtrlC | Key::CtrlD => return Ok(Flow::Exit(0)),
            key => return app.edit(key),
        }
        Ok(Flow::Go)
    }

    fn closed(_app: &mut App) -> Flow {
        Flow::Exit(0)
    }

    fn draw(app: &mut App) -> Result<(), String> {
        let input = app.input.display();
        let view = View {
            size: term::size(),
            input: &input,
            agent: format!("{} {}", app.face.agent(), app.face.model.1),
            cwd: &app.face.cwd,
            busy: app.turn.as_ref().is_some_and(|t| t.core.busy()),
            armed: app.face.armed.is_some_and(|t| t.elapsed() < ARMED),
        };
        let rows = if app.sess.history.is_empty() && app.turn.is_none() {
            screens::home(&view)
        } else {
            let dialog = Opencode::dialog(app);
            screens::session(&view, &Opencode::conversation(app), dialog.as_ref())
        };
        paint(&frame(&rows))
    }

    fn paste(app: &mut App, bytes: &[u8]) {
        app.input.paste_with(bytes, paste_label);
    }

    fn blank(input: &InputBuffer) -> bool {
        input.expanded().trim().is_empty()
    }

    fn command(app: &mut App, text: &str) -> Option<Result<Flow, String>> {
        let _ = app;
        matches!(text.trim(), "/exit" | "/quit" | "/q").then_some(Ok(Flow::Exit(0)))
    }

    fn begin(app: &mut App, text: String) -> Turn {
        Turn::new(&mut app.sess, text, Instant::now(), true, false)
    }

    fn commit(_app: &mut App, _lines: Vec<String>) {}

    fn done(app: &mut App, turn: Option<Turn>, done: Done) -> Result<Flow, String> {
        app.late = done.late;
        app.face.armed = None;
        if let Some(turn) = turn {
            let footer = match &done.error {
                Some(error) => error_line(error),
                None => {
                    let secs = turn.core.started.elapsed().as_secs_f64();
                    format!("{} · {secs:.1}s", app.face.agent())
                }
            };
            let mut shown = turn.shown;
            shown.push(turn.text);
            let prompt = turn.prompt;
            app.sess.remember(Exchange {
                prompt,
                shown,
                footer,
            });
        }
        Opencode::draw(app)?;
        for (kind, properties) in done.events {
            app.sess.publish(kind, properties);
        }
        app.next_queued()
    }

    fn sign_in(_app: &mut App) -> Result<Flow, String> {
        // opencode has no sign-in screen; the turn fails instead (Turn::text_over).
        Ok(Flow::Go)
    }

    fn leave(app: &mut App) {
        let _ = Opencode::draw(app);
        let _ = paint(LEAVE);
        app.term.restore();
    }

    fn wake_at(app: &App) -> Option<Instant> {
        // The armed interrupt lapses: `esc interrupt` again.
        app.face.armed.map(|t| t + ARMED)
    }

    fn finish(_app: &mut App) {
        let _ = paint(LEAVE);
    }
}

/// What the footer says of a failed turn.
fn error_line(error: &serde_json::Value) -> String {
    let message = error.pointer("/data/message").and_then(|m| m.as_str());
    message.unwrap_or("Error").to_string()
}

/// A whole frame: every row from the top, each line's rest erased.
fn frame(rows: &[String]) -> Vec<u8> {
    let mut out = b"\x1b[H".to_vec();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(crate::screen::sanitize(row).as_bytes());
        out.extend_from_slice(b"\x1b[K");
    }
    out.extend_from_slice(b"\x1b[J");
    out
}
