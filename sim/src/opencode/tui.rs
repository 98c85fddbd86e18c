//! The interactive opencode: the engine's [`Shell`] with opencode's screens ([`super::screens`])
//! and keys. Full-screen on the alternate screen, redrawn whole each frame.
//!
//! Keys: Enter submits (a prompt typed while a turn runs waits its turn), Esc twice within 5 s
//! interrupts a running turn (the first shows `esc again to interrupt`), the permission dialog takes ⇆ (Left/Right, Tab) and Enter, Esc rejects
//! ("Allow always" asks "Confirm / Cancel" first, where Esc goes back); the question tool's
//! dialog takes a digit, ↑↓ and Enter, Esc dismisses ([`super::ask`]);
//! Ctrl-C clears the input, and on an empty input leaves (as `/exit` does); Tab while idle
//! switches the agent Build ↔ Plan ([`super::agent`]).

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
    /// The caret went to the input's start (after Ctrl-U on its last line's text).
    caret_at_start: bool,
    /// After an Esc abort: when opencode publishes its idle events a second time.
    idle_again: Option<Instant>,
}

/// How long after an abort the real 1.18.33 published `session.status` idle and `session.idle`
/// again (seen between 50 and 300 ms, before the next prompt was taken). The fake publishes them
/// then, or before it takes a prompt submitted sooner — the order umbel must survive: a `send`
/// can take its event-log position before them.
const IDLE_AGAIN: std::time::Duration = std::time::Duration::from_millis(150);

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
        caret_at_start: false,
        idle_again: None,
    };
    Shell::new(sess, term, face).serve(None)
}

/// A bracketed paste as opencode 1.18.33's prompt takes it: line ends made `\n`; nothing for a
/// blank paste; with the paste summary on, a paste of 3 lines or more (or over 150 characters)
/// is trimmed and held behind `[Pasted ~N lines]` followed by a typed space (so the prompt
/// submitted ends with that space); anything else goes in as pasted.
fn take_paste(input: &mut InputBuffer, bytes: &[u8], summary: bool) {
    let text = String::from_utf8_lossy(bytes)
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return;
    }
    let lines = trimmed.split('\n').count();
    if summary && (lines >= 3 || trimmed.chars().count() > 150) {
        input.paste_with(trimmed.as_bytes(), |_, _| {
            Some(format!("[Pasted ~{lines} lines]"))
        });
        input.insert_text(" ");
    } else {
        input.insert_text(&text);
    }
}

/// Ctrl-U, Ctrl-K and Backspace on the input as the real 1.18.33 was seen to take them after a
/// paste (its caret is not on the screen): Ctrl-U deletes the last line's text and the line
/// break before it and leaves the caret at the input's start, where Backspace deletes nothing
/// and Ctrl-K deletes the first line and the break after it. So Ctrl-U + Backspace leaves the
/// first line of a two-line input; Ctrl-U + Ctrl-K + Backspace empties it.
fn edit_line(app: &mut App, key: &Key) {
    let text = app.input.expanded();
    if let Some((text, at_start)) = line_key(text, app.face.caret_at_start, key) {
        app.input.clear();
        app.input.insert_text(&text);
        app.face.caret_at_start = at_start && !text.is_empty();
    }
}

/// [`edit_line`] on the input's text and where its caret is: the new text and caret, or `None`
/// when the key changes nothing.
fn line_key(mut text: String, at_start: bool, key: &Key) -> Option<(String, bool)> {
    match key {
        Key::CtrlU if !at_start => {
            let start = text.rfind('\n').map_or(0, |i| i + 1);
            if start < text.len() {
                text.truncate(start.saturating_sub(1));
                return Some((text, true));
            }
            // An empty last line: the break before it goes (a join), the caret stays.
            text.pop().map(|_| (text, false))
        }
        Key::CtrlK if at_start => {
            let end = text.find('\n').map_or(text.len(), |i| i + 1);
            text.replace_range(..end, "");
            Some((text, true))
        }
        Key::Backspace if !at_start => text.pop().map(|_| (text, false)),
        _ => None,
    }
}

impl Opencode {
    /// The idle events opencode publishes a second time after an abort.
    fn idle_again(app: &mut App) {
        for (kind, properties) in Turn::idle_events(&app.sess) {
            app.sess.publish(kind, properties);
        }
    }

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
            rows.extend(screens::answer_block(&shown, &Opencode::agent(app)));
        }
        rows
    }

    /// `Build · Claude Sonnet 4.5 (latest)`: the agent in use and the model.
    fn agent(app: &App) -> String {
        format!("{} · {}", app.sess.who.agent.name(), app.face.model.0)
    }

    /// What the running turn asks in the input box's place, if anything: its questions, or a
    /// permission question.
    fn dialog(app: &App, width: usize) -> Option<Vec<String>> {
        let turn = app.turn.as_ref()?;
        let Phase::Dialog(cursor) = turn.core.phase else {
            return None;
        };
        if let Some(asking) = &turn.asking {
            return Some(super::ask::dialog(asking));
        }
        let call = &turn.running.as_ref()?.call;
        let (permission, detail) = super::bus::permission_of(call);
        let (kind, detail) = match permission {
            "bash" => ("# Shell command", format!("$ {detail}")),
            "edit" => ("# Edit", detail),
            "webfetch" => ("# Web fetch", detail),
            _ => ("# Access", detail),
        };
        let dialog = Dialog {
            kind,
            detail,
            cursor,
            always: turn.always_asked(),
        };
        Some(screens::permission(&dialog, width))
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
            Key::CtrlU | Key::CtrlK | Key::Backspace => edit_line(app, &key),
            // Tab switches the agent while idle (a running turn keeps its own).
            Key::Tab if app.turn.is_none() => app.sess.who.agent = app.sess.who.agent.next(),
            key => {
                app.face.caret_at_start = false;
                return app.edit(key);
            }
        }
        Ok(Flow::Go)
    }

    fn closed(_app: &mut App) -> Flow {
        Flow::Exit(0)
    }

    fn draw(app: &mut App) -> Result<(), String> {
        if app.face.idle_again.is_some_and(|t| Instant::now() >= t) {
            app.face.idle_again = None;
            Opencode::idle_again(app);
        }
        let input = app.input.display();
        let view = View {
            size: term::size(),
            input: &input,
            agent: format!("{} {}", Opencode::agent(app), app.face.model.1),
            cwd: &app.face.cwd,
            busy: app.turn.as_ref().is_some_and(|t| t.core.busy()),
            armed: app.face.armed.is_some_and(|t| t.elapsed() < ARMED),
        };
        let rows = if app.sess.history.is_empty() && app.turn.is_none() {
            screens::home(&view)
        } else {
            let dialog = Opencode::dialog(app, view.size.0);
            screens::session(&view, &Opencode::conversation(app), dialog)
        };
        paint(&crate::screen::frame(&rows))
    }

    fn paste(app: &mut App, bytes: &[u8]) {
        take_paste(&mut app.input, bytes, app.sess.paste_summary);
    }

    fn blank(input: &InputBuffer) -> bool {
        input.expanded().trim().is_empty()
    }

    fn command(app: &mut App, text: &str) -> Option<Result<Flow, String>> {
        let _ = app;
        matches!(text.trim(), "/exit" | "/quit" | "/q").then_some(Ok(Flow::Exit(0)))
    }

    fn begin(app: &mut App, text: String) -> Turn {
        if app.face.idle_again.take().is_some() {
            Opencode::idle_again(app);
        }
        Turn::new(&mut app.sess, text, Instant::now(), true, false)
    }

    fn commit(_app: &mut App, _lines: Vec<String>) {}

    fn done(app: &mut App, turn: Option<Turn>, done: Done) -> Result<Flow, String> {
        app.late = done.late;
        app.face.armed = None;
        let aborted = done.error.as_ref().and_then(|e| e.get("name"));
        if aborted.and_then(|n| n.as_str()) == Some("MessageAbortedError") {
            app.face.idle_again = Some(Instant::now() + IDLE_AGAIN);
        }
        if let Some(turn) = turn {
            let footer = match &done.error {
                Some(error) => error_line(error),
                None if done.rejected => Opencode::agent(app),
                None => {
                    let secs = turn.core.started.elapsed().as_secs_f64();
                    format!("{} · {secs:.1}s", Opencode::agent(app))
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
        let lapse = app.face.armed.map(|t| t + ARMED);
        match (lapse, app.face.idle_again) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(bytes: &[u8], summary: bool) -> (String, String) {
        let mut input = InputBuffer::new();
        take_paste(&mut input, bytes, summary);
        (input.display(), input.take())
    }

    #[test]
    fn a_long_paste_is_trimmed_behind_its_label_and_a_space() {
        // What the real 1.18.33 sent the model for `p1\nx\ny\n` pasted and submitted.
        let (shown, sent) = taken(b"p1\rx\ry\r", true);
        assert_eq!(shown, "[Pasted ~3 lines] ");
        assert_eq!(sent, "p1\nx\ny ");
    }

    #[test]
    fn without_the_summary_a_paste_goes_in_as_pasted() {
        let (shown, sent) = taken(b"p1\nx\ny\n", false);
        assert_eq!(shown, "p1\nx\ny\n");
        assert_eq!(sent, "p1\nx\ny\n");
    }

    fn keys(text: &str, pressed: &[Key]) -> String {
        let (mut text, mut at_start) = (text.to_string(), false);
        for key in pressed {
            if let Some((t, a)) = line_key(text.clone(), at_start, key) {
                (text, at_start) = (t, a);
            }
        }
        text
    }

    #[test]
    fn ctrl_u_and_backspace_leave_a_first_line_that_ctrl_k_takes() {
        let two = "half a prompt\nand its second line";
        let old = || [Key::CtrlU, Key::Backspace];
        assert_eq!(keys(two, &[old(), old(), old()].concat()), "half a prompt");
        let round = || [Key::CtrlU, Key::CtrlK, Key::Backspace];
        assert_eq!(keys(two, &round()), "");
        assert_eq!(
            keys("one\ntwo two\n\nfour", &[round(), round()].concat()),
            ""
        );
        assert_eq!(keys("one line", &round()), "");
        assert_eq!(keys("abc", &[Key::Backspace]), "ab");
    }

    #[test]
    fn a_short_paste_keeps_its_line_end_and_a_blank_one_is_nothing() {
        assert_eq!(taken(b"p4 x y\n", true).1, "p4 x y\n");
        assert_eq!(taken(b" \n ", true).1, "");
    }
}
