//! The interactive program: startup screens, the composer, turns, `/quit`.
//!
//! One thread, one loop ([`crate::engine::event_loop`]): wait for input or the next deadline (turn
//! timeline, late rollout write, Esc timeout, busy-indicator second), handle
//! it, redraw. No SessionStart at startup: codex fires it with the first prompt.

use std::time::{Duration, Instant};

use super::cli::Options;
use super::config;
use super::dialogs::{self, HookChoice, Startup};
use super::hookcfg::review_needed;
use super::model_picker;
use super::release::Codex::HoldsEarlyPrompt;
use super::render::Canvas;
use super::screens;
use super::session::Session;
use super::turn::{Done, Turn};
use crate::engine::event_loop::Flow;
use crate::engine::picker::Picker;
use crate::engine::shell::{Face, Shell, paint};
use crate::keys::Key;
use crate::scenario::Startup as StartupCfg;
use crate::screen::CLEAR_ALL;
use crate::term::{self, Terminal};

/// fake-codex's screen: the canvas, and the Enter presses to swallow after a paste.
pub struct Codex {
    canvas: Canvas,
    swallow: u32,
    swallow_after_paste: u32,
    /// A swallowed Enter exits with this status (`swallowed_enter_exits`).
    exit_on_swallow: Option<i32>,
    /// The first swallowed Enter opens this dialog (`swallowed_enter_dialog`).
    dialog_on_swallow: Option<String>,
    no_daemon: bool,
    /// Until when the session is still being configured (`configure_ms`): no status line yet.
    configured_at: Option<Instant>,
    /// A prompt submitted before that, held until then ("Waiting for startup").
    held: bool,
    /// When the screen is blank (`blank_at_ms`, `blank_ms`).
    blank: Option<(Instant, Instant)>,
    /// Plan mode (Shift+Tab toggles it while idle).
    plan: bool,
    /// `/model`'s picker, while it is up.
    picker: Option<Picker>,
    /// The reasoning effort `/model` set, named on the status line.
    effort: Option<String>,
}

type App = Shell<Codex>;

/// How long codex 0.171.0 waits for the terminal to answer its colour queries (a poll of
/// 250 ms, seen with strace under tmux; tmux answers only when the pane has colours of its own).
const COLOUR_WAIT: Duration = Duration::from_millis(250);

/// Asks the terminal for its default colours (OSC 10 and 11) as codex does at its start, and
/// waits for both answers at most [`COLOUR_WAIT`]; records them (`colours.txt`: the answers, or
/// `none`) in the record directory.
fn query_colours(term: &mut Terminal) -> Result<(), String> {
    crate::term::write_out(b"\x1b]10;?\x1b\\\x1b]11;?\x1b\\").map_err(|e| e.to_string())?;
    let deadline = std::time::Instant::now() + COLOUR_WAIT;
    let mut got = Vec::new();
    let answered = |got: &[u8], osc: &[u8]| crate::keys::find(got, osc).is_some();
    while !(answered(&got, b"\x1b]10;") && answered(&got, b"\x1b]11;")) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            break;
        }
        match term.read(Some(left)).map_err(|e| e.to_string())? {
            crate::term::Input::Bytes(bytes) => got.extend(bytes),
            crate::term::Input::Timeout => {}
            crate::term::Input::Closed => break,
        }
    }
    let answers = String::from_utf8_lossy(&got).replace('\x1b', "ESC");
    let note = if got.is_empty() {
        "none".into()
    } else {
        answers
    };
    crate::record::record_file("colours.txt", &note);
    Ok(())
}

/// Runs the TUI and returns the exit status.
pub fn run(opts: &Options, mut sess: Session) -> Result<i32, String> {
    let startup: StartupCfg = sess.script.scenario.startup.clone();
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(startup.delay_ms));
    let mut term = Terminal::enter().map_err(|e| e.to_string())?;
    query_colours(&mut term)?;
    let mut canvas = Canvas::new();
    if startup.sign_in {
        let Startup::Exit(code) = dialogs::login(&mut term, &mut canvas)? else {
            return Ok(0);
        };
        return Ok(code);
    }
    if config::trust_needed(&sess.config, &sess.cwd_path, startup.trust_dialog)
        && let Startup::Exit(code) = dialogs::trust(&mut term, &mut canvas, &sess)?
    {
        return Ok(code);
    }
    let untrusted = sess.hook_file.untrusted();
    let all = if review_needed(untrusted, opts.bypass_hook_trust, startup.hook_review) {
        match dialogs::hooks(&mut term, &mut canvas, &sess)? {
            HookChoice::TrustAll => true,
            HookChoice::Skip => false,
            HookChoice::Exit(code) => return Ok(code),
        }
    } else {
        opts.bypass_hook_trust
    };
    if let Some(question) = &startup.unknown_dialog
        && let Startup::Exit(code) = dialogs::unknown(&mut term, &mut canvas, question)?
    {
        return Ok(code);
    }
    let on = sess.config.hooks_enabled();
    sess.hooks = sess.hook_file.to_hooks(|e| on && (all || e.trusted));
    let face = Codex {
        canvas,
        swallow: 0,
        swallow_after_paste: startup.swallow_enters,
        exit_on_swallow: startup.swallowed_enter_exits,
        dialog_on_swallow: startup.swallowed_enter_dialog.clone(),
        no_daemon: opts.no_daemon,
        configured_at: (startup.configure_ms > 0)
            .then(|| Instant::now() + Duration::from_millis(startup.configure_ms)),
        held: false,
        blank: (startup.blank_at_ms > 0).then(|| {
            let from = started + Duration::from_millis(startup.blank_at_ms);
            (from, from + Duration::from_millis(startup.blank_ms))
        }),
        plan: false,
        picker: None,
        effort: None,
    };
    Shell::new(sess, term, face).serve(opts.prompt.clone())
}

impl Face for Codex {
    const NAME: &'static str = "fake-codex";
    type Turn = Turn;

    fn open(app: &mut App) -> Result<(), String> {
        let width = term::size().0;
        app.face
            .canvas
            .commit(&screens::header(&app.sess.cwd), width);
        Codex::draw(app)
    }

    fn key(app: &mut App, key: Key) -> Result<Flow, String> {
        if key == Key::CtrlC && app.turn.as_ref().is_none_or(|t| t.core.busy()) {
            if let Some(turn) = app.turn.as_mut() {
                let outcome = turn.interrupt(&mut app.sess);
                return app.after(Some(outcome));
            }
            if !app.input.is_empty() {
                app.input.clear();
                return Ok(Flow::Go);
            }
            if app.second_ctrl_c() {
                return Ok(end_session(app, true));
            }
            app.keys.ctrl_c = Some(Instant::now());
            return Ok(Flow::Go);
        }
        if let Some(turn) = app.turn.as_mut()
            && (!turn.core.busy() || key == Key::Esc)
        {
            let outcome = turn.key(&mut app.sess, &key, Instant::now());
            return app.after(outcome);
        }
        if let Some(at) = app.face.configuring() {
            return hold(app, key, at);
        }
        if let Some(picker) = app.face.picker.take() {
            let (picker, taken) = model_picker::key(picker, &key);
            app.face.picker = picker;
            if let Some((model, effort, line)) = taken {
                app.sess.model = model;
                app.face.effort = Some(effort);
                app.face
                    .canvas
                    .commit(&[String::new(), line], term::size().0);
            }
            return Ok(Flow::Go);
        }
        if key == Key::ShiftTab && app.turn.is_none() {
            toggle_plan(app);
            return Ok(Flow::Go);
        }
        if key == Key::Enter && app.face.swallow > 0 {
            app.face.swallow -= 1;
            return swallowed(app);
        }
        app.edit(key)
    }

    fn closed(app: &mut App) -> Flow {
        end_session(app, false)
    }

    fn draw(app: &mut App) -> Result<(), String> {
        let now = Instant::now();
        if app
            .face
            .blank
            .is_some_and(|(from, to)| from <= now && now < to)
        {
            return paint(CLEAR_ALL);
        }
        let size = term::size();
        let mut live = Vec::new();
        if let Some(turn) = &app.turn {
            live = turn.live(Instant::now());
            if !turn.core.busy() {
                return paint(&app.face.canvas.frame(&live, size));
            }
        }
        if let Some(picker) = &app.face.picker {
            live.extend(model_picker::lines(picker));
            return paint(&app.face.canvas.frame(&live, size));
        }
        live.extend(screens::composer(&app.input.display()));
        live.push(String::new());
        if app.face.configuring().is_some() {
            live.push(if app.face.held {
                screens::FOOTER_STARTING.to_string()
            } else {
                screens::FOOTER_UNCONFIGURED.to_string()
            });
            return paint(&app.face.canvas.frame(&live, size));
        }
        live.push(screens::status_line(
            (
                &app.sess.model.display,
                (app.face.effort.as_deref()).unwrap_or(screens::effort(app.face.plan)),
            ),
            &app.sess.cwd,
            app.sess.title.as_deref(),
            size.0,
        ));
        live.push(if app.keys.ctrl_c.is_some() {
            screens::FOOTER_CTRL_C.to_string()
        } else {
            screens::footer(app.face.plan, app.input.is_empty(), size.0)
        });
        paint(&app.face.canvas.frame(&live, size))
    }

    fn paste(app: &mut App, bytes: &[u8]) {
        app.input.paste(bytes, screens::paste_label);
        app.face.swallow = app.face.swallow_after_paste;
    }

    fn command(app: &mut App, text: &str) -> Option<Result<Flow, String>> {
        match text.trim() {
            "/quit" | "/exit" => Some(Ok(end_session(app, true))),
            "/model" => {
                app.face.picker = Some(model_picker::open());
                Some(Ok(Flow::Go))
            }
            _ => None,
        }
    }

    fn begin(app: &mut App, text: String) -> Turn {
        if std::mem::take(&mut app.face.held) {
            app.input.clear();
        }
        let width = term::size().0;
        app.face.canvas.commit(&screens::echo(&text), width);
        Turn::new(&mut app.sess, text, Instant::now(), width)
    }

    fn commit(app: &mut App, lines: Vec<String>) {
        app.face.canvas.commit(&lines, term::size().0);
    }

    fn done(app: &mut App, _turn: Option<Turn>, done: Done) -> Result<Flow, String> {
        app.late = done.late;
        Codex::draw(app)?;
        if let Some(h) = done.hook {
            app.sess.fire(h.event, None, &h.payload);
        }
        app.next_queued()
    }

    fn sign_in(app: &mut App) -> Result<Flow, String> {
        // The session is gone: the startup login screen, until Ctrl-C.
        match dialogs::login(&mut app.term, &mut app.face.canvas)? {
            Startup::Exit(code) => Ok(Flow::Exit(code)),
            Startup::Continue => Ok(Flow::Exit(0)),
        }
    }

    fn wake_at(app: &App) -> Option<Instant> {
        let now = Instant::now();
        let blank = app.face.blank.into_iter().flat_map(|(from, to)| [from, to]);
        app.face
            .configuring()
            .into_iter()
            .chain(blank.filter(|at| *at > now))
            .min()
    }

    fn leave(app: &mut App) {
        let _ = term::write_out(&app.face.canvas.frame(&[], term::size()));
        app.term.restore();
        let _ = term::write_out(b"\r\n");
    }
}

impl Codex {
    /// When the session will be configured, while it is not yet.
    fn configuring(&self) -> Option<Instant> {
        self.configured_at.filter(|at| Instant::now() < *at)
    }
}

/// A key before the session is configured: typing and pasting work; an Enter on a prompt holds
/// it (it stays on the composer) until the session is, then submits it; keys after that wait.
/// A release before [`HoldsEarlyPrompt`] loses that Enter (the prompt stays typed).
fn hold(app: &mut App, key: Key, at: Instant) -> Result<Flow, String> {
    if app.face.held {
        return Ok(Flow::Go);
    }
    if key == Key::Enter {
        if !app.input.is_empty() && app.sess.release.has(HoldsEarlyPrompt) {
            app.face.held = true;
            app.self_turn = Some((at, app.input.expanded()));
            crate::record::record_file("held.txt", &app.input.expanded());
        }
        return Ok(Flow::Go);
    }
    app.edit(key)
}

/// Shift+Tab while idle: into plan mode (its history line says the model's effort changed),
/// or back to the default mode (no line: only the way in was recorded).
fn toggle_plan(app: &mut App) {
    app.face.plan = !app.face.plan;
    if app.face.plan {
        let notice = screens::plan_notice(&app.sess.model.display);
        app.face.canvas.commit(&notice, term::size().0);
    }
}

/// A swallowed Enter: nothing, or what the scenario scripts for it (exit, a dialog).
fn swallowed(app: &mut App) -> Result<Flow, String> {
    if let Some(code) = app.face.exit_on_swallow {
        return Ok(Flow::Exit(code));
    }
    if let Some(question) = app.face.dialog_on_swallow.take() {
        if let Startup::Exit(code) =
            dialogs::unknown(&mut app.term, &mut app.face.canvas, &question)?
        {
            return Ok(Flow::Exit(code));
        }
        Codex::draw(app)?;
    }
    Ok(Flow::Go)
}

/// `/quit`, Ctrl-C twice, or a closed terminal: SessionEnd, the resume hint, exit 0.
fn end_session(app: &mut App, hint: bool) -> Flow {
    app.flush_late();
    if hint {
        let s = &app.sess;
        let tokens = (s.thread_usage.input, s.thread_usage.output);
        let lines = screens::quit_lines(&s.id, s.title.as_deref(), app.face.no_daemon, tokens);
        let mut bytes = CLEAR_ALL.to_vec();
        for line in lines {
            bytes.extend_from_slice(line.as_bytes());
            bytes.extend_from_slice(b"\r\n");
        }
        let _ = term::write_out(&bytes);
    }
    let payload = app.sess.payload_session_end("other");
    app.sess.fire("SessionEnd", None, &payload);
    Flow::Exit(0)
}
