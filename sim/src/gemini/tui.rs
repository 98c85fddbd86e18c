//! The interactive session: startup dialogs, the composer, turns, `/quit`.
//!
//! One thread, one loop ([`crate::engine::event_loop`]): wait for input or the next deadline (turn timeline,
//! late chat write, Esc timeout, spinner second), handle it, redraw.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::boxes::{self, Summary};
use super::cli::Options;
use super::home;
use super::screens::{self, Composer};
use super::session::Session;
use super::startup::{self, Gate};
use super::turn::{Late, Outcome, Phase, Turn};
use crate::engine::event_loop::{self, CTRL_C_WINDOW, Flow, Keyboard, Program};
use crate::input::InputBuffer;
use crate::json::Obj;
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
    executing: Option<String>,
    home: Option<String>,
    /// `COLORTERM` announces 24-bit colour (the composer frame changes).
    true_color: bool,
}

const CTRL_C_NOTICE: &str = " Press Ctrl+C again to exit.";

/// Runs the TUI and returns the exit status.
pub fn run(opts: &Options, scenario: Scenario) -> Result<i32, String> {
    let paths = home::paths()?;
    let settings = home::load_settings(&paths)?;
    let restarted = startup::take_restart_marker(&paths);
    let delay = if restarted {
        0
    } else {
        scenario.startup.delay_ms
    };
    std::thread::sleep(Duration::from_millis(delay));
    let mut term = Terminal::enter().map_err(|e| e.to_string())?;
    let mut screen = Screen::new();
    let gate = startup::gates(
        &mut term,
        &mut screen,
        opts,
        &scenario,
        &paths,
        &settings,
        restarted,
    )?;
    let (trusted, first_header) = match gate {
        Gate::Open { trusted, header } => (trusted, header),
        Gate::Exit(code) => return Ok(code),
    };
    let mut sess = Session::open(opts, scenario, paths, settings, trusted, true)?;
    sess.skip_startup(delay);
    let home = std::env::var("HOME").ok();
    let mut app = App {
        sess,
        term,
        screen,
        keys: Keyboard::new(),
        input: InputBuffer::new(),
        turn: None,
        queue: VecDeque::new(),
        late: None,
        pending: first_header,
        executing: None,
        home,
        true_color: screens::true_color_env(),
    };
    let flow = app.main(opts.query.clone());
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
        // The real CLI outlives its terminal; the fake just leaves (no SessionEnd).
        Flow::Exit(0)
    }

    fn redraw(&mut self) -> Result<(), String> {
        self.draw()
    }
}

impl App {
    fn main(&mut self, first_prompt: Option<String>) -> Result<Flow, String> {
        self.sess.chat_open();
        self.draw_commits()?;
        // SessionStart runs before the composer is first drawn (no `Executing Hook` line).
        let payload = self.sess.payload_session_start("startup");
        self.sess.fire("SessionStart", Some("startup"), &payload);
        self.draw()?;
        event_loop::run(self, first_prompt)
    }

    fn on_key(&mut self, key: Key) -> Result<Flow, String> {
        if let Some(turn) = self.turn.as_mut() {
            let confirming = matches!(turn.phase, Phase::Dialog(_));
            let outcome = match key {
                Key::Esc | Key::CtrlC => Some(turn.cancel(&mut self.sess)),
                _ if confirming => turn.key(&mut self.sess, &key, Instant::now()),
                _ => None,
            };
            if outcome.is_some() || confirming {
                return self.after(outcome);
            }
        }
        match key {
            Key::CtrlC if !self.input.is_empty() => self.input.clear(),
            Key::CtrlC
                if self
                    .keys
                    .ctrl_c
                    .is_some_and(|t| t.elapsed() < CTRL_C_WINDOW) =>
            {
                return Ok(self.quit("/quit"));
            }
            Key::CtrlC => self.keys.ctrl_c = Some(Instant::now()),
            Key::Text(t) => self.input.insert_text(&t),
            Key::Newline => self.input.insert_text("\n"),
            Key::Paste(bytes) => self.input.paste_with(&bytes, screens::paste_label),
            Key::Backspace => self.input.backspace(),
            Key::CtrlU => self.input.kill_line(),
            Key::Enter if self.input.expanded().trim().is_empty() => {}
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
        self.keys.ctrl_c = None;
        self.sess.record_prompt(&text);
        if matches!(text.trim(), "/quit" | "/exit") {
            return Ok(self.quit(text.trim()));
        }
        self.pending.extend(screens::echo(&text));
        let width = term::size().0;
        let now = Instant::now();
        self.turn = Some(Turn::new(&mut self.sess, text.clone(), now, width));
        self.draw()?;
        let payload = self.sess.payload_before_agent(&text);
        self.fire("BeforeAgent", None, &payload)?;
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
            turn.events.clear();
        }
        let Some(outcome) = outcome else {
            return Ok(Flow::Go);
        };
        self.turn = None;
        match outcome {
            Outcome::Done {
                after_agent, late, ..
            } => {
                self.late = late;
                self.draw()?;
                self.fire("AfterAgent", None, &after_agent)?;
                match self.queue.pop_front() {
                    Some(next) => self.submit(next),
                    None => Ok(Flow::Go),
                }
            }
            Outcome::Exit(code) => {
                self.leave_screen();
                eprintln!("fake-gemini: simulated crash (exit status {code})");
                Ok(Flow::Exit(code))
            }
            Outcome::Signal(name) => {
                self.leave_screen();
                Ok(Flow::Signal(name))
            }
            Outcome::SignIn => {
                // The session is gone: the startup auth box under what was shown, until Ctrl+C twice.
                self.flush_late();
                let commits = std::mem::take(&mut self.pending);
                let code = startup::auth_dialog(&mut self.term, &mut self.screen, &commits)?;
                Ok(Flow::Exit(code))
            }
        }
    }

    /// Runs hooks, showing `Executing Hook: <name>` in the status line meanwhile.
    fn fire(&mut self, event: &str, target: Option<&str>, payload: &Obj) -> Result<(), String> {
        let Some(label) = self.sess.hook_label(event, target) else {
            return Ok(());
        };
        self.executing = Some(format!("Executing Hook: {label}"));
        self.draw()?;
        self.sess.fire(event, target, payload);
        self.executing = None;
        self.draw()
    }

    fn quit(&mut self, command: &str) -> Flow {
        self.flush_late();
        let width = term::size().0;
        let s = &self.sess.stats;
        let summary = Summary {
            session_id: &self.sess.id,
            tools: (s.tool_calls, s.tool_ok),
            wall_ms: self.sess.elapsed_ms(),
            active_ms: s.active_ms,
            model: (&self.sess.model.name, s.requests, s.input, s.output),
        };
        let mut lines = screens::echo(command);
        lines.extend(boxes::quit_summary(width, &summary));
        let mut bytes = self.screen.frame(&lines, &[], term::size());
        bytes.extend_from_slice(b"\r\n");
        let _ = term::write_out(&bytes);
        let payload = self.sess.payload_session_end("exit");
        self.sess.fire("SessionEnd", Some("exit"), &payload);
        Flow::Exit(0)
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

    fn draw_commits(&mut self) -> Result<(), String> {
        let commits = std::mem::take(&mut self.pending);
        let bytes = self.screen.frame(&commits, &[], term::size());
        term::write_out(&bytes).map_err(|e| format!("cannot write to the terminal: {e}"))
    }

    fn draw(&mut self) -> Result<(), String> {
        let size = term::size();
        let width = size.0;
        let now = Instant::now();
        let mut live = Vec::new();
        let mut status = String::new();
        if let Some(turn) = &self.turn {
            if !turn.busy() {
                let live = turn.confirm_lines();
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
            live = turn.live();
            live.push(String::new());
            status = screens::busy(now.saturating_duration_since(turn.started).as_secs());
        } else if self.keys.ctrl_c.is_some() {
            status = CTRL_C_NOTICE.to_string();
        }
        let right = match &self.executing {
            Some(label) => label.clone(),
            None if self.input.is_empty() => screens::SHORTCUTS.to_string(),
            None => String::new(),
        };
        let input = self.input.display();
        let cwd = screens::display_cwd(&self.sess.cwd, self.home.as_deref());
        live.extend(screens::composer(
            width,
            &Composer {
                status,
                right,
                input: &input,
                pasted: self.input.has_placeholder(),
                mode: self.sess.mode,
                true_color: self.true_color,
                cwd: &cwd,
                model: &self.sess.model.label,
            },
        ));
        let bytes = self
            .screen
            .frame(&std::mem::take(&mut self.pending), &live, size);
        term::write_out(&bytes).map_err(|e| format!("cannot write to the terminal: {e}"))
    }
}
