//! The interactive session: startup screens, the prompt, turns, exit.
//!
//! One thread, one loop ([`crate::event_loop`]): wait for input or the next deadline (turn timeline,
//! late transcript write, Esc timeout, spinner second), handle it, redraw.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::cli::Options;
use super::config;
use super::dialogs::{self, Startup};
use super::gates;
use super::screens::{self, Footer};
use super::session::{Mode, Session};
use super::turn::{Late, Outcome, Turn};
use crate::event_loop::{self, CTRL_C_WINDOW, Flow, Keyboard, Program};
use crate::input::InputBuffer;
use crate::keys::Key;
use crate::scenario::Scenario;
use crate::screen::Screen;
use crate::term::{self, Terminal};

struct App {
    sess: Session,
    term: Terminal,
    screen: Screen,
    keys: Keyboard,
    input: InputBuffer,
    turn: Option<Turn>,
    queue: VecDeque<String>,
    late: Option<Late>,
    pending: Vec<String>,
    /// A dialog over the idle prompt (a turn's `dialog_after`): its question and cursor.
    modal: Option<(String, usize)>,
}

/// Runs the TUI and returns the exit status.
pub fn run(opts: &Options, scenario: Scenario) -> Result<i32, String> {
    let (delay, sign_in) = (scenario.startup.delay_ms, scenario.startup.sign_in);
    let forced_trust = scenario.startup.trust_dialog;
    let sess = Session::open(opts, scenario, true)?;
    if gates::refuses_root(sess.mode) {
        eprintln!("{}", gates::ROOT_REFUSAL);
        return Ok(1);
    }
    let settings = config::load_settings(&sess.paths.config_dir, opts.settings.as_deref())?;
    let term = Terminal::enter().map_err(|e| e.to_string())?;
    let mut app = App {
        sess,
        term,
        screen: Screen::new(),
        keys: Keyboard::new(),
        input: InputBuffer::new(),
        turn: None,
        queue: VecDeque::new(),
        late: None,
        pending: Vec::new(),
        modal: None,
    };
    std::thread::sleep(Duration::from_millis(delay));
    app.sess.clock.advance(delay);
    let claude_json = config::read_claude_json(&app.sess.paths.claude_json)?;
    if sign_in || !config::onboarded(&claude_json) {
        let Startup::Exit(code) = dialogs::onboarding(&mut app.term, &mut app.screen)? else {
            return Ok(0);
        };
        return Ok(code);
    }
    if (forced_trust || !config::trusted(&claude_json, &app.sess.paths.cwd))
        && let Startup::Exit(code) = dialogs::trust(&mut app.term, &mut app.screen, &app.sess)?
    {
        return Ok(code);
    }
    if let Startup::Exit(code) = gates::run(&mut app.term, &mut app.screen, &app.sess, &settings)? {
        app.term.restore();
        return Ok(code);
    }
    let flow = app.main(opts.prompt.clone());
    app.sess.registry_remove();
    app.term.restore();
    match flow? {
        Flow::Exit(code) => Ok(code),
        Flow::Signal(name) => crate::selfkill::kill_self(&name),
        Flow::Go => Ok(0),
    }
}

impl Program for App {
    crate::program_plumbing!();

    fn closed(&mut self) -> Flow {
        self.end_session("other", false, 0)
    }

    fn redraw(&mut self) -> Result<(), String> {
        self.draw()
    }
}

impl App {
    fn main(&mut self, first_prompt: Option<String>) -> Result<Flow, String> {
        let payload = self.sess.payload_session_start("startup");
        self.sess.fire("SessionStart", Some("startup"), &payload);
        self.sess.registry("idle");
        self.draw_header(true)?;
        self.draw()?;
        event_loop::run(self, first_prompt)
    }

    fn on_key(&mut self, key: Key) -> Result<Flow, String> {
        if key == Key::CtrlC {
            if self
                .keys
                .ctrl_c
                .is_some_and(|t| t.elapsed() < CTRL_C_WINDOW)
            {
                return Ok(self.end_session("prompt_input_exit", true, 0));
            }
            self.keys.ctrl_c = Some(Instant::now());
            if let Some(turn) = self.turn.as_mut() {
                let outcome = turn.interrupt(&mut self.sess);
                return self.after(Some(outcome));
            }
            self.input.clear();
            return Ok(Flow::Go);
        }
        if let Some((_, cursor)) = self.modal.as_mut() {
            match key {
                Key::Up => *cursor = cursor.saturating_sub(1),
                Key::Down => *cursor = (*cursor + 1).min(1),
                Key::Enter | Key::Esc => self.modal = None,
                _ => {}
            }
            return Ok(Flow::Go);
        }
        if let Some(turn) = self.turn.as_mut() {
            let in_dialog = !turn.busy();
            if in_dialog || key == Key::Esc {
                let outcome = turn.key(&mut self.sess, &key, Instant::now());
                return self.after(outcome);
            }
        }
        match key {
            Key::Text(t) => self.input.insert_text(&t),
            Key::Newline => self.input.insert_text("\n"),
            Key::Paste(bytes) => self.input.paste(&bytes, screens::paste_label),
            Key::Backspace => self.input.backspace(),
            Key::CtrlU => self.input.kill_line(),
            Key::Enter if self.input.is_empty() => {}
            Key::Enter if self.turn.is_some() => {
                let text = self.input.take();
                self.queue.push_back(text);
            }
            Key::Enter => {
                let text = self.input.take();
                return self.submit(text);
            }
            _ => {}
        }
        Ok(Flow::Go)
    }

    fn submit(&mut self, text: String) -> Result<Flow, String> {
        self.flush_late();
        self.sess.record_prompt(&text);
        match text.trim() {
            "/exit" | "/quit" => return Ok(self.end_session("prompt_input_exit", true, 0)),
            "/clear" => return self.clear(),
            _ => {}
        }
        self.pending.extend(screens::echo(&text));
        let now = Instant::now();
        self.turn = Some(Turn::new(&mut self.sess, text, now));
        self.draw()?;
        self.sess.registry("busy");
        if let Some(turn) = self.turn.as_mut() {
            turn.start(&mut self.sess);
            let outcome = turn.tick(&mut self.sess, Instant::now());
            return self.after(outcome);
        }
        Ok(Flow::Go)
    }

    fn after(&mut self, outcome: Option<Outcome>) -> Result<Flow, String> {
        if let Some(turn) = self.turn.as_mut() {
            self.pending.append(&mut turn.commits);
        }
        let Some(outcome) = outcome else {
            return Ok(Flow::Go);
        };
        let dialog_after = self.turn.take().and_then(|t| t.chosen.dialog_after);
        match outcome {
            Outcome::Done { hook, late, .. } => {
                self.late = late;
                self.draw()?;
                self.sess.registry("idle");
                if let Some(h) = hook {
                    self.sess.fire(h.event, None, &h.payload);
                }
                if let Some(question) = dialog_after {
                    self.modal = Some((question, 0));
                    self.draw()?;
                    return Ok(Flow::Go);
                }
                match self.queue.pop_front() {
                    Some(next) => self.submit(next),
                    None => Ok(Flow::Go),
                }
            }
            Outcome::Restored(prompt) => {
                self.input.insert_text(&prompt);
                self.draw()?;
                self.sess.registry("idle");
                Ok(Flow::Go)
            }
            Outcome::Exit(code) => {
                self.leave_screen();
                eprintln!("fake-claude: simulated crash (exit status {code})");
                Ok(Flow::Exit(code))
            }
            Outcome::Signal(name) => {
                self.leave_screen();
                Ok(Flow::Signal(name))
            }
            Outcome::SignIn => {
                // The session is gone: the startup sign-in screen, until Ctrl-C twice.
                self.flush_late();
                match dialogs::onboarding(&mut self.term, &mut self.screen)? {
                    Startup::Exit(code) => Ok(Flow::Exit(code)),
                    Startup::Continue => Ok(Flow::Exit(0)),
                }
            }
        }
    }

    fn clear(&mut self) -> Result<Flow, String> {
        let payload = self.sess.payload_session_end("clear");
        self.sess.fire("SessionEnd", None, &payload);
        self.sess.registry_remove();
        self.sess.restart()?;
        let payload = self.sess.payload_session_start("clear");
        self.sess.fire("SessionStart", Some("clear"), &payload);
        self.sess.registry("idle");
        self.draw_header(true)?;
        self.pending.extend(screens::echo("/clear"));
        self.draw()?;
        Ok(Flow::Go)
    }

    fn end_session(&mut self, reason: &str, hint: bool, code: i32) -> Flow {
        self.flush_late();
        if hint {
            let mut bytes = self
                .screen
                .frame(&screens::echo("/exit"), &[], term::size());
            bytes.extend_from_slice(screens::resume_hint(&self.sess.id).as_bytes());
            let _ = term::write_out(&bytes);
        }
        let payload = self.sess.payload_session_end(reason);
        self.sess.fire("SessionEnd", None, &payload);
        Flow::Exit(code)
    }

    fn flush_late(&mut self) {
        if let Some(late) = self.late.take() {
            late.records.iter().for_each(|r| self.sess.append(r));
        }
    }

    fn leave_screen(&mut self) {
        self.flush_late();
        let commits = std::mem::take(&mut self.pending);
        let _ = term::write_out(&self.screen.frame(&commits, &[], term::size()));
        self.term.restore();
    }

    fn draw_header(&mut self, clear: bool) -> Result<(), String> {
        let mut bytes = if clear {
            self.screen.clear()
        } else {
            Vec::new()
        };
        let mut lines = screens::header(&self.sess.model, &self.sess.cwd);
        if self.sess.mode == Mode::Auto {
            lines.extend(screens::auto_notice());
        }
        bytes.extend(self.screen.frame(&lines, &[], term::size()));
        term::write_out(&bytes).map_err(|e| format!("cannot write to the terminal: {e}"))
    }

    fn draw(&mut self) -> Result<(), String> {
        let size = term::size();
        let width = size.0;
        let now = Instant::now();
        let mut live = Vec::new();
        let mut busy = false;
        if let Some(turn) = &self.turn {
            live = turn.live(&self.sess, width, now);
            busy = turn.busy();
            if !busy {
                let bytes = self
                    .screen
                    .frame(&std::mem::take(&mut self.pending), &live, size);
                term::write_out(&bytes)
                    .map_err(|e| format!("cannot write to the terminal: {e}"))?;
                if let Some(turn) = self.turn.as_mut() {
                    turn.after_draw(&mut self.sess);
                }
                return Ok(());
            }
        }
        if let Some((question, cursor)) = &self.modal {
            let lines = gates::boxed(gates::unknown(question, *cursor));
            let bytes = self
                .screen
                .frame(&std::mem::take(&mut self.pending), &lines, size);
            return term::write_out(&bytes)
                .map_err(|e| format!("cannot write to the terminal: {e}"));
        }
        let footer = if self.keys.ctrl_c.is_some() {
            Footer::ConfirmExit
        } else if busy {
            Footer::Busy
        } else if self.input.has_placeholder() {
            Footer::Pasted
        } else if !self.input.is_empty() {
            Footer::Typing
        } else {
            Footer::Idle
        };
        live.push(String::new());
        live.extend(screens::input_box(
            width,
            &self.input.display(),
            screens::footer(self.sess.mode, footer),
        ));
        let bytes = self
            .screen
            .frame(&std::mem::take(&mut self.pending), &live, size);
        term::write_out(&bytes).map_err(|e| format!("cannot write to the terminal: {e}"))
    }
}
