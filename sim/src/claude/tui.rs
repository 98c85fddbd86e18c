//! The interactive session: startup screens, the prompt, turns, exit.
//!
//! One thread, one loop ([`crate::engine::event_loop`]): wait for input or the next deadline (turn timeline,
//! late transcript write, Esc timeout, spinner second), handle it, redraw.

use std::time::{Duration, Instant};

use super::cli::Options;
use super::config;
use super::dialogs::{self, Startup};
use super::gates;
use super::model_picker;
use super::screens::{self, Footer};
use super::session::{Mode, Session};
use super::turn::{Done, Turn};
use crate::engine::event_loop::Flow;
use crate::engine::picker::Picker;
use crate::engine::shell::{Face, Scroll, Shell, paint};
use crate::keys::Key;
use crate::scenario::Scenario;
use crate::term::{self, Terminal};

/// fake-claude's screen: the scrollback it draws and the dialog over the idle prompt.
pub struct Claude {
    scroll: Scroll,
    /// A dialog over the idle prompt (a turn's `dialog_after`): its question and cursor.
    modal: Option<(String, usize)>,
    /// `/model`'s picker, while it is up.
    picker: Option<Picker>,
}

type App = Shell<Claude>;

/// Runs the TUI and returns the exit status.
pub fn run(opts: &Options, scenario: Scenario) -> Result<i32, String> {
    let (delay, sign_in) = (scenario.startup.delay_ms, scenario.startup.sign_in);
    let lag = Duration::from_millis(scenario.startup.key_lag_ms);
    let forced_trust = scenario.startup.trust_dialog;
    let sess = Session::open(opts, scenario, true)?;
    if gates::refuses_root(sess.mode) {
        eprintln!("{}", gates::ROOT_REFUSAL);
        return Ok(1);
    }
    let settings = config::load_settings(&sess.paths.config_dir, opts.settings.as_deref())?;
    let term = Terminal::enter().map_err(|e| e.to_string())?.lagging(lag);
    let face = Claude {
        scroll: Scroll::default(),
        modal: None,
        picker: None,
    };
    let mut app = Shell::new(sess, term, face);
    std::thread::sleep(Duration::from_millis(delay));
    app.sess.clock.advance(delay);
    let claude_json = config::read_claude_json(&app.sess.paths.claude_json)?;
    let (term, screen) = (&mut app.term, &mut app.face.scroll.screen);
    if sign_in || !config::onboarded(&claude_json) {
        let Startup::Exit(code) = dialogs::onboarding(term, screen)? else {
            return Ok(0);
        };
        return Ok(code);
    }
    if (forced_trust || !config::trusted(&claude_json, &app.sess.paths.cwd))
        && let Startup::Exit(code) = dialogs::trust(term, screen, &app.sess)?
    {
        return Ok(code);
    }
    if let Startup::Exit(code) = gates::run(term, screen, &app.sess, &settings)? {
        app.term.restore();
        return Ok(code);
    }
    app.serve(opts.prompt.clone())
}

impl Face for Claude {
    const NAME: &'static str = "fake-claude";
    type Turn = Turn;

    fn open(app: &mut App) -> Result<(), String> {
        let source = if app.sess.resumed {
            "resume"
        } else {
            "startup"
        };
        let payload = app.sess.payload_session_start(source);
        app.sess.fire("SessionStart", Some("startup"), &payload);
        app.sess.registry("idle");
        draw_header(app)?;
        Claude::draw(app)
    }

    fn key(app: &mut App, key: Key) -> Result<Flow, String> {
        if key == Key::CtrlC {
            if app.second_ctrl_c() {
                return Ok(end_session(app, "prompt_input_exit", true, 0));
            }
            app.keys.ctrl_c = Some(Instant::now());
            if let Some(turn) = app.turn.as_mut() {
                let outcome = turn.interrupt(&mut app.sess);
                return app.after(Some(outcome));
            }
            app.input.clear();
            return Ok(Flow::Go);
        }
        if let Some(picker) = app.face.picker.as_mut() {
            if let Some((model, line)) = model_picker::key(picker, &key, &app.sess.model) {
                app.face.picker = None;
                app.sess.model = model;
                app.face.scroll.pending.push(line);
            }
            return Ok(Flow::Go);
        }
        if let Some((_, cursor)) = app.face.modal.as_mut() {
            match key {
                Key::Up => *cursor = cursor.saturating_sub(1),
                Key::Down => *cursor = (*cursor + 1).min(1),
                Key::Enter | Key::Esc => app.face.modal = None,
                _ => {}
            }
            return Ok(Flow::Go);
        }
        if let Some(turn) = app.turn.as_mut()
            && (!turn.core.busy() || key == Key::Esc)
        {
            let outcome = turn.key(&mut app.sess, &key, Instant::now());
            return app.after(outcome);
        }
        if key == Key::ShiftTab && app.turn.is_none() {
            // The footer, later tool calls and hook payloads all read the session's mode.
            app.sess.mode = app.sess.mode.next();
            return Ok(Flow::Go);
        }
        app.edit(key)
    }

    fn closed(app: &mut App) -> Flow {
        end_session(app, "other", false, 0)
    }

    fn draw(app: &mut App) -> Result<(), String> {
        let width = term::size().0;
        if let Some(turn) = app.turn.as_mut()
            && !turn.core.busy()
        {
            app.face
                .scroll
                .draw(&turn.live(&app.sess, width, Instant::now()))?;
            turn.after_draw(&mut app.sess);
            return Ok(());
        }
        if let Some(picker) = &app.face.picker {
            return app.face.scroll.draw(&model_picker::lines(picker, width));
        }
        if let Some((question, cursor)) = &app.face.modal {
            return app
                .face
                .scroll
                .draw(&gates::boxed(gates::unknown(question, *cursor)));
        }
        let now = Instant::now();
        let mut live = (app.turn.as_ref()).map_or_else(Vec::new, |t| t.live(&app.sess, width, now));
        let footer = if app.keys.ctrl_c.is_some() {
            Footer::ConfirmExit
        } else if app.turn.is_some() {
            Footer::Busy
        } else if app.input.has_placeholder() {
            Footer::Pasted
        } else if !app.input.is_empty() {
            Footer::Typing
        } else {
            Footer::Idle
        };
        live.push(String::new());
        live.extend(screens::input_box(
            width,
            &app.input.display(),
            screens::footer(app.sess.mode, footer),
        ));
        app.face.scroll.draw(&live)
    }

    fn paste(app: &mut App, bytes: &[u8]) {
        app.input.paste(bytes, screens::paste_label);
    }

    fn command(app: &mut App, text: &str) -> Option<Result<Flow, String>> {
        match text.trim() {
            "/exit" | "/quit" => Some(Ok(end_session(app, "prompt_input_exit", true, 0))),
            "/clear" => Some(clear(app)),
            "/model" => {
                app.face.scroll.pending.extend(screens::echo("/model"));
                app.face.picker = Some(model_picker::open(&app.sess.model));
                Some(Ok(Flow::Go))
            }
            _ => None,
        }
    }

    /// The real claude fires `UserPromptSubmit` before it clears its input box: the hook runs
    /// with the prompt still on screen, which stays there `startup.submit_redraw_ms` more.
    fn begin(app: &mut App, text: String) -> Turn {
        app.face.scroll.pending.extend(screens::echo(&text));
        let mut turn = Turn::new(&mut app.sess, text, Instant::now());
        turn.fire_submit(&mut app.sess);
        let redraw = app.sess.script.scenario.startup.submit_redraw_ms;
        std::thread::sleep(std::time::Duration::from_millis(redraw));
        turn
    }

    fn starting(app: &mut App, _text: &str) -> Result<(), String> {
        app.sess.registry("busy");
        Ok(())
    }

    fn commit(app: &mut App, lines: Vec<String>) {
        app.face.scroll.pending.extend(lines);
    }

    fn done(app: &mut App, turn: Option<Turn>, done: Done) -> Result<Flow, String> {
        if let Some(prompt) = done.restored {
            app.input.insert_text(&prompt);
            Claude::draw(app)?;
            app.sess.registry("idle");
            return Ok(Flow::Go);
        }
        app.late = done.late;
        // A dialog that opens once the turn has ended is on screen before the end-of-turn hook
        // fires, so whoever the hook wakes sees it (the real CLIs draw such dialogs moments
        // after the turn; a fake that drew it after the hook would race its own tests).
        let dialog = turn.and_then(|t| t.core.chosen.dialog_after);
        if let Some(question) = &dialog {
            app.face.modal = Some((question.clone(), 0));
        }
        Claude::draw(app)?;
        app.sess.registry("idle");
        if let Some(h) = done.hook {
            app.sess.fire(h.event, None, &h.payload);
        }
        if dialog.is_some() {
            return Ok(Flow::Go);
        }
        app.next_queued()
    }

    fn sign_in(app: &mut App) -> Result<Flow, String> {
        // The session is gone: the startup sign-in screen, until Ctrl-C twice.
        match dialogs::onboarding(&mut app.term, &mut app.face.scroll.screen)? {
            Startup::Exit(code) => Ok(Flow::Exit(code)),
            Startup::Continue => Ok(Flow::Exit(0)),
        }
    }

    fn finish(app: &mut App) {
        app.sess.registry_remove();
    }

    fn wake_at(app: &App) -> Option<Instant> {
        // The permission dialog's Notification timer looks next then.
        app.turn.as_ref().and_then(Turn::notice_due)
    }

    fn leave(app: &mut App) {
        let _ = app.face.scroll.draw(&[]);
        app.term.restore();
    }
}

fn clear(app: &mut App) -> Result<Flow, String> {
    let payload = app.sess.payload_session_end("clear");
    app.sess.fire("SessionEnd", None, &payload);
    app.sess.registry_remove();
    app.sess.restart()?;
    let payload = app.sess.payload_session_start("clear");
    app.sess.fire("SessionStart", Some("clear"), &payload);
    app.sess.registry("idle");
    draw_header(app)?;
    app.face.scroll.pending.extend(screens::echo("/clear"));
    Claude::draw(app)?;
    Ok(Flow::Go)
}

fn end_session(app: &mut App, reason: &str, hint: bool, code: i32) -> Flow {
    app.flush_late();
    if hint {
        let mut bytes = app
            .face
            .scroll
            .screen
            .frame(&screens::echo("/exit"), &[], term::size());
        bytes.extend_from_slice(screens::resume_hint(&app.sess.id).as_bytes());
        let _ = term::write_out(&bytes);
    }
    let payload = app.sess.payload_session_end(reason);
    app.sess.fire("SessionEnd", None, &payload);
    Flow::Exit(code)
}

fn draw_header(app: &mut App) -> Result<(), String> {
    let mut lines = screens::header(app.sess.release.version, &app.sess.model, &app.sess.cwd);
    if app.sess.mode == Mode::Auto {
        lines.extend(screens::auto_notice());
    }
    let mut bytes = app.face.scroll.screen.clear();
    bytes.extend(app.face.scroll.screen.frame(&lines, &[], term::size()));
    paint(&bytes)
}
