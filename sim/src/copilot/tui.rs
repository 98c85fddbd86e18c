//! The interactive copilot: the engine's [`Shell`] with copilot's screens ([`super::screens`])
//! and keys. Full-screen on the alternate screen, redrawn whole each frame.
//!
//! Keys: a paste is held 200 ms before it shows ([`super::held_paste`]); Enter submits (a
//! prompt typed while a turn runs waits its turn); Esc twice within
//! [`ARMED`] interrupts a running turn (the first shows `esc again to interrupt`, and lapses),
//! or, before the model answered (`esc esc edit prompt`), takes it back: the prompt returns to
//! the input line and the conversation loses the turn and the startup notices (recorded:
//! `copilot-1.0.102-esc-before-text.txt`);
//! the permission dialog takes `1`, `2`, ↑/↓ and Enter, Esc refuses; Ctrl-C cancels a running
//! turn or clears the input, and a second one within 2 s leaves, as `/exit`, `/quit` and Ctrl-D
//! on an empty input do (`SessionEnd` `user_exit` once the session started); Shift+Tab with no
//! turn running cycles the agent mode ([`super::mode`]) the status line names.

use std::time::{Duration, Instant};

use super::cli::Options;
use super::held_paste::{Drawn, HeldPaste};
use super::screens::{self, Status};
use super::session::Session;
use super::startup;
use super::turn::{Done, Turn};
use super::view::{View, paint_rows};
use crate::engine::dialog::Startup;
use crate::engine::event_loop::Flow;
use crate::engine::shell::{Face, Shell, paint};
use crate::engine::timeline::Phase;
use crate::keys::Key;
use crate::scenario::Scenario;
use crate::term::{self, Terminal};

/// How long the first Esc waits for the second.
pub const ARMED: Duration = Duration::from_millis(500);

/// Enters the alternate screen and hides the cursor.
const ENTER: &[u8] = b"\x1b[?1049h\x1b[?25l\x1b[2J";
/// Leaves it.
const LEAVE: &[u8] = b"\x1b[?25h\x1b[?1049l";

/// fake-copilot's screen state.
pub struct Tui {
    view: View,
    /// The conversation after the header.
    history: Vec<String>,
    /// How many rows at the history's start are startup notices (the MCP line).
    notices: usize,
    /// Where the running turn's prompt echo starts in the history.
    turn_mark: usize,
    /// When the first Esc of an interrupt was pressed.
    armed: Option<Instant>,
    /// The session was lost: the sign-in notice shows.
    signed_out: bool,
    /// The alternate screen was left (leaving it twice would put the cursor back at the top).
    left: bool,
    /// A paste not drawn yet ([`super::held_paste`]).
    held: HeldPaste,
    /// How each held paste reached the input line, in order (`pastes.txt`).
    drawn: Vec<Drawn>,
    /// Until when the status line says it is still loading (its input line drawn already).
    loading_until: Instant,
}

/// How long the status line says `Loading:` under a drawn input line (recorded on 1.0.102:
/// ~170 ms, looks 150 ms apart).
const LOADING: Duration = Duration::from_millis(200);

impl Tui {
    /// Leaves the alternate screen, once.
    fn leave_screen(&mut self) {
        if !std::mem::replace(&mut self.left, true) {
            let _ = paint(LEAVE);
        }
    }
}

type App = Shell<Tui>;

/// Runs the TUI on a new or resumed session; returns the exit status.
pub fn run(opts: &Options, scenario: Scenario) -> Result<i32, String> {
    let startup = scenario.startup.clone();
    let mut sess = Session::open(opts, scenario, true)?;
    let mut term = Terminal::enter()
        .map_err(|e| e.to_string())?
        .lagging(Duration::from_millis(startup.key_lag_ms));
    paint(ENTER)?;
    std::thread::sleep(Duration::from_millis(startup.delay_ms));
    sess.clock.advance(startup.delay_ms);
    let signed_in = sess.auth.signed_in() && !startup.sign_in;
    let view = View::of(&sess, signed_in);
    let history = screens::mcp();
    let gate = before_prompts(&mut term, &sess, &view, &startup, signed_in, &history);
    match gate {
        Ok(None) => {}
        other => {
            let _ = paint(LEAVE);
            return other.map(|code| code.unwrap_or(0));
        }
    }
    let face = Tui {
        view,
        notices: history.len(),
        turn_mark: 0,
        history,
        armed: None,
        signed_out: false,
        left: false,
        held: HeldPaste::default(),
        drawn: Vec::new(),
        loading_until: Instant::now() + LOADING,
    };
    Shell::new(sess, term, face).serve(opts.interactive.clone())
}

/// The screens before the composer takes prompts: the trust dialog, a scenario's unknown
/// dialog, the not-signed-in composer. `Some(status)` when the run ends there.
fn before_prompts(
    term: &mut Terminal,
    sess: &Session,
    view: &View,
    startup: &crate::scenario::Startup,
    signed_in: bool,
    history: &[String],
) -> Result<Option<i32>, String> {
    let mut gate = startup::trust(term, sess, view, startup.trust_dialog)?;
    if let (Startup::Continue, Some(q)) = (&gate, &startup.unknown_dialog) {
        gate = startup::unknown(term, view, q)?;
    }
    match gate {
        Startup::Exit(code) => Ok(Some(code)),
        Startup::Continue if !signed_in => {
            let size = term::size();
            let bottom = view.composer(size.0, "", Status::Idle, Some(screens::SIGN_IN));
            paint_rows(&view.rows(size, history, bottom))?;
            startup::signed_out(term).map(Some)
        }
        Startup::Continue => Ok(None),
    }
}

/// Leaves: `SessionEnd` (`user_exit`) and `session.shutdown`, status 0.
fn leave(app: &mut App) -> Flow {
    app.flush_late();
    app.sess.end("user_exit");
    Flow::Exit(0)
}

/// Ctrl-C: the second within 2 s leaves; else it cancels a running turn or clears the input.
fn ctrl_c(app: &mut App) -> Result<Flow, String> {
    if app.second_ctrl_c() {
        return Ok(leave(app));
    }
    app.keys.ctrl_c = Some(Instant::now());
    if let Some(turn) = app.turn.as_mut() {
        let outcome = turn.cancel(&mut app.sess);
        return app.after(Some(outcome));
    }
    app.input.clear();
    Ok(Flow::Go)
}

impl Tui {
    /// The status line's state.
    fn status(app: &App) -> Status {
        match app.turn.as_ref() {
            Some(t) => Status::Busy {
                bytes: t.text.len(),
                armed: app.face.armed.is_some_and(|a| a.elapsed() < ARMED),
                edit: t.takes_back(&app.sess),
            },
            None if app.keys.ctrl_c.is_some() => Status::ConfirmExit,
            None if !app.input.is_empty() => Status::Typed,
            None if Instant::now() < app.face.loading_until => Status::Loading,
            None => Status::Idle,
        }
    }

    /// A turn taken back (Esc Esc before the model answered): the conversation is drawn again
    /// without it and without the startup notices, the logo alone above the turns before it;
    /// `prompt` is back in the input line, before whatever was typed meanwhile.
    fn take_back(app: &mut App, prompt: &str) {
        let face = &mut app.face;
        face.history.truncate(face.turn_mark);
        face.history.drain(..face.notices.min(face.history.len()));
        face.notices = 0;
        face.view.header = screens::logo(face.view.release);
        let typed = app.input.take();
        app.input.insert_text(prompt);
        if !typed.is_empty() {
            app.input.insert_text(&typed);
        }
    }

    /// The running turn's dialog, if one is up.
    fn dialog(app: &App, width: usize) -> Option<Vec<String>> {
        let turn = app.turn.as_ref()?;
        let Phase::Dialog(cursor) = turn.core.phase else {
            return None;
        };
        Some(screens::permission(width, turn.call.as_ref()?, cursor))
    }
}

impl Tui {
    /// A key while a paste is held ([`super::held_paste`]): text (or more paste) adds to it, Enter
    /// submits the input line with it, any other key has its effect and then draws it.
    fn key_while_held(app: &mut App, key: Key) -> Result<Flow, String> {
        match key {
            Key::Text(text) => app.face.held.add(&text, Instant::now()),
            Key::Paste(bytes) => Tui::paste(app, &bytes),
            Key::Enter => {
                let text = app.face.held.take().unwrap_or_default();
                Tui::draw_held(app, &text, Drawn::Enter);
                return Tui::key_now(app, Key::Enter);
            }
            other => {
                let text = app.face.held.take().unwrap_or_default();
                let flow = Tui::key_now(app, other);
                Tui::draw_held(app, &text, Drawn::Key);
                return flow;
            }
        }
        Ok(Flow::Go)
    }

    /// Puts the held paste on the input line and notes how it got there.
    fn draw_held(app: &mut App, text: &str, how: Drawn) {
        app.input.insert_text(text);
        app.face.drawn.push(how);
        let words: Vec<&str> = app.face.drawn.iter().map(|d| d.word()).collect();
        crate::record::record_file("pastes.txt", &(words.join("\n") + "\n"));
    }

    /// A key, with no paste held.
    fn key_now(app: &mut App, key: Key) -> Result<Flow, String> {
        if key == Key::CtrlC {
            return ctrl_c(app);
        }
        if let Some(turn) = app.turn.as_mut() {
            if matches!(turn.core.phase, Phase::Dialog(_)) {
                let outcome = turn.key(&mut app.sess, &key, Instant::now());
                return app.after(outcome);
            }
            if key == Key::Esc {
                if app.face.armed.take().is_some_and(|t| t.elapsed() < ARMED) {
                    let outcome = match turn.takes_back(&app.sess) {
                        true => turn.take_back(&mut app.sess),
                        false => turn.cancel(&mut app.sess),
                    };
                    return app.after(Some(outcome));
                }
                app.face.armed = Some(Instant::now());
                return Ok(Flow::Go);
            }
        }
        if key == Key::ShiftTab && app.turn.is_none() {
            app.face.view.mode = app.face.view.mode.next();
            return Ok(Flow::Go);
        }
        if key == Key::CtrlD && app.input.is_empty() && app.turn.is_none() {
            return Ok(leave(app));
        }
        app.edit(key)
    }

    /// Draws the screen.
    fn paint(app: &mut App) -> Result<(), String> {
        let size = term::size();
        let width = size.0;
        let mut more = app.face.history.clone();
        if let Some(turn) = app.turn.as_ref() {
            more.extend(turn.live(&app.sess));
        }
        let bottom = match Tui::dialog(app, width) {
            Some(rows) => rows,
            None => {
                let notice = app.face.signed_out.then_some(screens::SIGN_IN);
                let input = app.input.display();
                app.face
                    .view
                    .composer(width, &input, Tui::status(app), notice)
            }
        };
        paint_rows(&app.face.view.rows(size, &more, bottom))?;
        if let Some(turn) = app.turn.as_mut() {
            turn.after_draw(&mut app.sess);
        }
        Ok(())
    }
}

impl Face for Tui {
    const NAME: &'static str = "fake-copilot";
    type Turn = Turn;

    fn open(app: &mut App) -> Result<(), String> {
        Tui::draw(app)
    }

    fn key(app: &mut App, key: Key) -> Result<Flow, String> {
        match app.face.held.holding() {
            true => Tui::key_while_held(app, key),
            false => Tui::key_now(app, key),
        }
    }

    fn closed(app: &mut App) -> Flow {
        leave(app)
    }

    fn draw(app: &mut App) -> Result<(), String> {
        if let Some(text) = app.face.held.take_due(Instant::now()) {
            Tui::draw_held(app, &text, Drawn::Timer);
        }
        Tui::paint(app)
    }

    fn paste(app: &mut App, bytes: &[u8]) {
        app.face
            .held
            .add(&String::from_utf8_lossy(bytes), Instant::now());
    }

    fn command(app: &mut App, text: &str) -> Option<Result<Flow, String>> {
        if let Some(model) = text.trim().strip_prefix("/model --session ") {
            return Some(Ok(session_model(app, model.trim())));
        }
        matches!(text.trim(), "/exit" | "/quit").then(|| Ok(leave(app)))
    }

    fn begin(app: &mut App, text: String) -> Turn {
        let (width, time) = (term::size().0, screens::time_of(&app.sess.clock.iso()));
        app.face.turn_mark = app.face.history.len();
        app.face
            .history
            .extend(screens::prompt(&text, &time, width));
        app.face.armed = None;
        Turn::new(&mut app.sess, text, Instant::now())
    }

    fn commit(app: &mut App, lines: Vec<String>) {
        app.face.history.extend(lines);
    }

    fn done(app: &mut App, _turn: Option<Turn>, done: Done) -> Result<Flow, String> {
        app.face.armed = None;
        if let Some(prompt) = done.restored {
            Tui::take_back(app, &prompt);
            // Prompts queued meanwhile wait for the next turn to end.
            return Tui::draw(app).map(|()| Flow::Go);
        }
        app.late = done.late;
        Tui::draw(app)?;
        if done.stop {
            app.sess.stop();
        }
        app.next_queued()
    }

    fn sign_in(app: &mut App) -> Result<Flow, String> {
        app.face.signed_out = true;
        app.face.view.model.clear();
        Tui::draw(app)?;
        let status = startup::signed_out(&mut app.term)?;
        Ok(Flow::Exit(status))
    }

    fn leave(app: &mut App) {
        let _ = Tui::draw(app);
        app.face.leave_screen();
        app.term.restore();
    }

    fn wake_at(app: &App) -> Option<Instant> {
        // The armed interrupt lapses (the busy hint again); a held paste is drawn; its loading
        // ends.
        let lapse = app.face.armed.map(|t| t + ARMED);
        let loaded = Some(app.face.loading_until).filter(|t| *t > Instant::now());
        [lapse, app.face.held.due(), loaded]
            .into_iter()
            .flatten()
            .min()
    }

    fn finish(app: &mut App) {
        app.face.leave_screen();
    }
}

/// `/model --session ID` (1.0.102): any name taken for this session, said in the history, named
/// at the status line's right; the session's records name it from the next turn on.
fn session_model(app: &mut App, model: &str) -> Flow {
    let line = format!(
        " ● Model changed from {} (medium) to {model} for this session",
        app.sess.who.model
    );
    app.face.history.extend([line, String::new()]);
    app.sess.who.model = model.to_string();
    app.face.view.model = model.to_string();
    Flow::Go
}
