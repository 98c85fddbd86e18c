//! The interactive program: startup screens, the composer, turns, `/quit`.
//!
//! One thread, one loop ([`crate::event_loop`]): wait for input or the next deadline (turn
//! timeline, late rollout write, Esc timeout, busy-indicator second), handle
//! it, redraw. No SessionStart at startup: codex fires it with the first prompt.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::cli::Options;
use super::config;
use super::dialogs::{self, HookChoice, Startup};
use super::hookcfg::review_needed;
use super::render::Canvas;
use super::screens;
use super::session::Session;
use super::turn::{Late, Outcome, Turn};
use crate::event_loop::{self, CTRL_C_WINDOW, Flow, Keyboard, Program};
use crate::input::InputBuffer;
use crate::keys::Key;
use crate::scenario::Startup as StartupCfg;
use crate::term::{self, Terminal};

struct App {
    sess: Session,
    term: Terminal,
    canvas: Canvas,
    keys: Keyboard,
    input: InputBuffer,
    turn: Option<Turn>,
    queue: VecDeque<String>,
    late: Option<Late>,
    swallow: u32,
    swallow_after_paste: u32,
    no_daemon: bool,
}

/// Runs the TUI and returns the exit status.
pub fn run(opts: &Options, mut sess: Session) -> Result<i32, String> {
    let startup: StartupCfg = sess.script.scenario.startup.clone();
    std::thread::sleep(Duration::from_millis(startup.delay_ms));
    let term = Terminal::enter().map_err(|e| e.to_string())?;
    let mut canvas = Canvas::new();
    let mut term = term;
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
    let on = sess.config.hooks_enabled();
    sess.hooks = sess.hook_file.to_hooks(|e| on && (all || e.trusted));
    let mut app = App {
        sess,
        term,
        canvas,
        keys: Keyboard::new(),
        input: InputBuffer::new(),
        turn: None,
        queue: VecDeque::new(),
        late: None,
        swallow: 0,
        swallow_after_paste: startup.swallow_enters,
        no_daemon: opts.no_daemon,
    };
    let flow = app.main(opts.prompt.clone());
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
        self.end_session(false)
    }

    fn redraw(&mut self) -> Result<(), String> {
        self.draw()
    }
}

impl App {
    fn main(&mut self, first_prompt: Option<String>) -> Result<Flow, String> {
        let width = term::size().0;
        self.canvas.commit(&screens::header(&self.sess.cwd), width);
        self.draw()?;
        event_loop::run(self, first_prompt)
    }

    fn on_key(&mut self, key: Key) -> Result<Flow, String> {
        if key == Key::CtrlC && self.turn.as_ref().is_none_or(Turn::busy) {
            if let Some(turn) = self.turn.as_mut() {
                let outcome = turn.interrupt(&mut self.sess);
                return self.after(Some(outcome));
            }
            if !self.input.is_empty() {
                self.input.clear();
                return Ok(Flow::Go);
            }
            if self
                .keys
                .ctrl_c
                .is_some_and(|t| t.elapsed() < CTRL_C_WINDOW)
            {
                return Ok(self.end_session(true));
            }
            self.keys.ctrl_c = Some(Instant::now());
            return Ok(Flow::Go);
        }
        if let Some(turn) = self.turn.as_mut()
            && (!turn.busy() || key == Key::Esc)
        {
            let outcome = turn.key(&mut self.sess, &key, Instant::now());
            return self.after(outcome);
        }
        match key {
            Key::Text(t) => self.input.insert_text(&t),
            Key::Newline => self.input.insert_text("\n"),
            Key::Paste(bytes) => {
                self.input.paste(&bytes, screens::paste_label);
                self.swallow = self.swallow_after_paste;
            }
            Key::Backspace => self.input.backspace(),
            Key::CtrlU => self.input.kill_line(),
            Key::Enter if self.swallow > 0 => self.swallow -= 1,
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
        if matches!(text.trim(), "/quit" | "/exit") {
            return Ok(self.end_session(true));
        }
        let width = term::size().0;
        self.canvas.commit(&screens::echo(&text), width);
        let now = Instant::now();
        self.turn = Some(Turn::new(&mut self.sess, text, now, width));
        self.draw()?;
        if let Some(turn) = self.turn.as_mut() {
            turn.start(&mut self.sess);
            let outcome = turn.tick(&mut self.sess, Instant::now());
            return self.after(outcome);
        }
        Ok(Flow::Go)
    }

    fn after(&mut self, outcome: Option<Outcome>) -> Result<Flow, String> {
        if let Some(turn) = self.turn.as_mut() {
            let commits = std::mem::take(&mut turn.commits);
            self.canvas.commit(&commits, term::size().0);
        }
        let Some(outcome) = outcome else {
            return Ok(Flow::Go);
        };
        self.turn = None;
        match outcome {
            Outcome::Done { hook, late, .. } => {
                self.late = late;
                self.draw()?;
                if let Some(h) = hook {
                    self.sess.fire(h.event, None, &h.payload);
                }
                match self.queue.pop_front() {
                    Some(next) => self.submit(next),
                    None => Ok(Flow::Go),
                }
            }
            Outcome::Exit(code) => {
                self.leave_screen();
                eprintln!("fake-codex: simulated crash (exit status {code})");
                Ok(Flow::Exit(code))
            }
            Outcome::Signal(name) => {
                self.leave_screen();
                Ok(Flow::Signal(name))
            }
            Outcome::SignIn => {
                // The session is gone: the startup login screen, until Ctrl-C.
                self.flush_late();
                match dialogs::login(&mut self.term, &mut self.canvas)? {
                    Startup::Exit(code) => Ok(Flow::Exit(code)),
                    Startup::Continue => Ok(Flow::Exit(0)),
                }
            }
        }
    }

    /// `/quit`, Ctrl-C twice, or a closed terminal: SessionEnd, the resume hint, exit 0.
    fn end_session(&mut self, hint: bool) -> Flow {
        self.flush_late();
        if hint {
            let s = &self.sess;
            let tokens = (s.thread_usage.input, s.thread_usage.output);
            let lines = screens::quit_lines(&s.id, s.title.as_deref(), self.no_daemon, tokens);
            let mut bytes = b"\x1b[2J\x1b[3J\x1b[H".to_vec();
            for line in lines {
                bytes.extend_from_slice(line.as_bytes());
                bytes.extend_from_slice(b"\r\n");
            }
            let _ = term::write_out(&bytes);
        }
        let payload = self.sess.payload_session_end("other");
        self.sess.fire("SessionEnd", None, &payload);
        Flow::Exit(0)
    }

    fn flush_late(&mut self) {
        if let Some(late) = self.late.take() {
            self.sess.append(&late.records);
        }
    }

    fn leave_screen(&mut self) {
        self.flush_late();
        let _ = term::write_out(&self.canvas.frame(&[], term::size()));
        self.term.restore();
        let _ = term::write_out(b"\r\n");
    }

    fn draw(&mut self) -> Result<(), String> {
        let size = term::size();
        let now = Instant::now();
        let mut live = Vec::new();
        if let Some(turn) = &self.turn {
            live = turn.live(now);
            if !turn.busy() {
                return term::write_out(&self.canvas.frame(&live, size))
                    .map_err(|e| format!("cannot write to the terminal: {e}"));
            }
        }
        live.extend(screens::composer(&self.input.display()));
        live.push(String::new());
        live.push(screens::status_line(
            &self.sess.model.display,
            &self.sess.cwd,
            self.sess.title.as_deref(),
            size.0,
        ));
        if self.keys.ctrl_c.is_some() {
            live.push(screens::FOOTER_CTRL_C.to_string());
        } else if self.input.is_empty() {
            live.push(screens::FOOTER.to_string());
        } else {
            live.push(String::new());
        }
        term::write_out(&self.canvas.frame(&live, size))
            .map_err(|e| format!("cannot write to the terminal: {e}"))
    }
}
