//! The interactive program the three fakes share: one [`Shell`] per TUI run.
//!
//! The shell owns what every fake's TUI has — the session, the terminal, the
//! keyboard, the input box, the running turn, the queue of prompts typed while
//! busy and the records held back for later — and does what they all do the
//! same way: edit the input, submit a prompt (record it, echo it, start its
//! turn), take a turn's history lines and endings, leave on a crash or signal,
//! and run [`crate::engine::event_loop`]. What differs (the screens, Ctrl-C's
//! rules, the startup hooks, the sign-in screen) is the provider's [`Face`].

use std::collections::VecDeque;
use std::time::Instant;

use super::event_loop::{self, CTRL_C_WINDOW, Flow, Keyboard, Program};
use super::host::Host;
use super::timeline::{self, Core, Late, Outcome, Timeline};
use crate::input::InputBuffer;
use crate::keys::Key;
use crate::screen::Screen;
use crate::term::{self, Terminal};

/// The session of a face's turns.
pub type Sess<F> = <<F as Face>::Turn as Timeline>::Sess;
/// What a face's finished turn hands back.
pub type Done<F> = <<F as Face>::Turn as Timeline>::Done;

/// A provider's screen and rules, plugged into the [`Shell`].
pub trait Face: Sized {
    /// The binary's name (`fake-claude`), for the crash line.
    const NAME: &'static str;
    /// The provider's turn (its session is the shell's).
    type Turn: Timeline<Sess: Host>;

    /// Draws the first screen and fires what the CLI fires at startup.
    fn open(sh: &mut Shell<Self>) -> Result<(), String>;
    /// One key (the provider's Ctrl-C and dialog rules, then [`Shell::edit`]).
    fn key(sh: &mut Shell<Self>, key: Key) -> Result<Flow, String>;
    /// The terminal went away.
    fn closed(sh: &mut Shell<Self>) -> Flow;
    /// Redraws the screen.
    fn draw(sh: &mut Shell<Self>) -> Result<(), String>;
    /// Pastes `bytes` into the input box (each CLI labels large pastes its way).
    fn paste(sh: &mut Shell<Self>, bytes: &[u8]);
    /// True when Enter on this input does nothing.
    fn blank(input: &InputBuffer) -> bool {
        input.is_empty()
    }
    /// A submitted slash command the CLI handles itself (`/quit`): what it does.
    fn command(sh: &mut Shell<Self>, text: &str) -> Option<Result<Flow, String>>;
    /// Echoes `text` into the history and picks its turn.
    fn begin(sh: &mut Shell<Self>, text: String) -> Self::Turn;
    /// Between the first busy draw and the turn's start (hooks the CLI fires first).
    fn starting(_sh: &mut Shell<Self>, _text: &str) -> Result<(), String> {
        Ok(())
    }
    /// Adds a turn's finished lines to the history.
    fn commit(sh: &mut Shell<Self>, lines: Vec<String>);
    /// The turn is over; back to idle (the queue is the shell's).
    fn done(
        sh: &mut Shell<Self>,
        turn: Option<Self::Turn>,
        done: Done<Self>,
    ) -> Result<Flow, String>;
    /// The session was lost mid-run: the sign-in screen, until the user leaves.
    fn sign_in(sh: &mut Shell<Self>) -> Result<Flow, String>;
    /// Draws the last frame before a crash or signal and restores the terminal.
    fn leave(sh: &mut Shell<Self>);
    /// When the screen changes by itself (a redraw is due then).
    fn wake_at(_sh: &Shell<Self>) -> Option<Instant> {
        None
    }
    /// The loop is over, however it ended: tidy up before the terminal is
    /// restored and the process exits or kills itself.
    fn finish(_sh: &mut Shell<Self>) {}
}

/// One interactive run of a fake.
pub struct Shell<F: Face> {
    /// The provider's session.
    pub sess: Sess<F>,
    /// The terminal (raw mode until restored).
    pub term: Terminal,
    /// Key parsing, Esc and Ctrl-C timing.
    pub keys: Keyboard,
    /// The input box.
    pub input: InputBuffer,
    /// The running turn.
    pub turn: Option<F::Turn>,
    /// Prompts submitted while busy.
    pub queue: VecDeque<String>,
    /// Records held back for later.
    pub late: Option<Late>,
    /// A turn the CLI opens by itself (`then_self`): when, and its prompt.
    pub self_turn: Option<(Instant, String)>,
    /// The provider's screen state.
    pub face: F,
}

impl<F: Face> Shell<F> {
    /// A shell over a terminal already entered.
    pub fn new(sess: Sess<F>, term: Terminal, face: F) -> Shell<F> {
        Shell {
            sess,
            term,
            keys: Keyboard::new(),
            input: InputBuffer::new(),
            turn: None,
            queue: VecDeque::new(),
            late: None,
            self_turn: None,
            face,
        }
    }

    /// Opens, submits `first_prompt`, loops; restores the terminal and returns the exit status.
    pub fn serve(&mut self, first_prompt: Option<String>) -> Result<i32, String> {
        let flow = F::open(self).and_then(|()| event_loop::run(self, first_prompt));
        F::finish(self);
        self.term.restore();
        match flow? {
            Flow::Exit(code) => Ok(code),
            Flow::Signal(name) => crate::selfkill::kill_self(&name),
            Flow::Go => Ok(0),
        }
    }

    /// True when a Ctrl-C now is the second of a pair.
    pub fn second_ctrl_c(&self) -> bool {
        self.keys
            .ctrl_c
            .is_some_and(|t| t.elapsed() < CTRL_C_WINDOW)
    }

    /// The running turn's shared state.
    pub fn core(&self) -> Option<&Core> {
        self.turn.as_ref().map(Timeline::core_ref)
    }

    /// A key for the input box: typing, paste, Enter (submit, or queue while busy).
    pub fn edit(&mut self, key: Key) -> Result<Flow, String> {
        match key {
            Key::Text(t) => self.input.insert_text(&t),
            Key::Newline => self.input.insert_text("\n"),
            Key::Paste(bytes) => F::paste(self, &bytes),
            Key::Backspace => self.input.backspace(),
            Key::CtrlU => self.input.kill_line(),
            Key::Enter if F::blank(&self.input) => {}
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

    /// Submits a prompt: records it, runs a slash command, or starts its turn.
    pub fn submit(&mut self, text: String) -> Result<Flow, String> {
        self.flush_late();
        self.sess.record_prompt(&text);
        if let Some(flow) = F::command(self, &text) {
            return flow;
        }
        let turn = F::begin(self, text.clone());
        self.turn = Some(turn);
        F::draw(self)?;
        F::starting(self, &text)?;
        if let Some(turn) = self.turn.as_mut() {
            turn.start(&mut self.sess);
            let outcome = timeline::tick(turn, &mut self.sess, Instant::now());
            return self.after(outcome);
        }
        Ok(Flow::Go)
    }

    /// After a turn moved: its new history lines, and its ending if it ended.
    pub fn after(&mut self, outcome: Option<Outcome<Done<F>>>) -> Result<Flow, String> {
        if let Some(turn) = self.turn.as_mut() {
            let lines = std::mem::take(&mut turn.core_mut().commits);
            F::commit(self, lines);
        }
        let Some(outcome) = outcome else {
            return Ok(Flow::Go);
        };
        let turn = self.turn.take();
        match outcome {
            Outcome::Done(done) => {
                let then_self = turn
                    .as_ref()
                    .and_then(|t| t.core_ref().chosen.then_self.clone());
                let flow = F::done(self, turn, done);
                if let Some(next) = then_self {
                    let due = Instant::now() + std::time::Duration::from_millis(next.after_ms);
                    self.self_turn = Some((due, next.prompt));
                }
                flow
            }
            Outcome::Exit(code) => {
                self.flush_late();
                F::leave(self);
                eprintln!("{}: simulated crash (exit status {code})", F::NAME);
                Ok(Flow::Exit(code))
            }
            Outcome::Signal(name) => {
                self.flush_late();
                F::leave(self);
                Ok(Flow::Signal(name))
            }
            Outcome::SignIn => {
                self.flush_late();
                F::sign_in(self)
            }
        }
    }

    /// Idle again after `late` was set: the next queued prompt, if any.
    pub fn next_queued(&mut self) -> Result<Flow, String> {
        match self.queue.pop_front() {
            Some(next) => self.submit(next),
            None => Ok(Flow::Go),
        }
    }

    /// Writes the held-back records now.
    pub fn flush_late(&mut self) {
        if let Some(late) = self.late.take() {
            self.sess.write(&late.records);
        }
    }
}

/// Writes `bytes` to the terminal.
pub fn paint(bytes: &[u8]) -> Result<(), String> {
    term::write_out(bytes).map_err(|e| format!("cannot write to the terminal: {e}"))
}

impl<F: Face> Program for Shell<F> {
    fn keyboard(&mut self) -> &mut Keyboard {
        &mut self.keys
    }

    fn terminal(&mut self) -> &mut Terminal {
        &mut self.term
    }

    fn take_fatal(&mut self) -> Option<String> {
        self.sess.take_fatal()
    }

    fn late_due(&self) -> Option<Instant> {
        self.late.as_ref().map(|l| l.due)
    }

    fn write_late(&mut self) {
        self.flush_late();
    }

    fn turn_deadline(&self) -> Option<Instant> {
        self.core().and_then(Core::deadline)
    }

    fn busy_since(&self) -> Option<Instant> {
        self.core().filter(|c| c.busy()).map(|c| c.started)
    }

    fn wake_at(&self) -> Option<Instant> {
        F::wake_at(self)
    }

    fn self_turn_due(&self) -> Option<Instant> {
        self.self_turn.as_ref().map(|(due, _)| *due)
    }

    fn open_self_turn(&mut self) -> Result<Flow, String> {
        match self.self_turn.take() {
            // A prompt typed meanwhile runs instead (the real CLI would queue the wake-up).
            Some(_) if self.turn.is_some() => Ok(Flow::Go),
            Some((_, prompt)) => self.submit(prompt),
            None => Ok(Flow::Go),
        }
    }

    fn tick(&mut self, now: Instant) -> Result<Flow, String> {
        let outcome = match self.turn.as_mut() {
            Some(turn) => timeline::tick(turn, &mut self.sess, now),
            None => return Ok(Flow::Go),
        };
        self.after(outcome)
    }

    fn prompt(&mut self, text: String) -> Result<Flow, String> {
        self.submit(text)
    }

    fn key(&mut self, key: Key) -> Result<Flow, String> {
        F::key(self, key)
    }

    fn closed(&mut self) -> Flow {
        F::closed(self)
    }

    fn redraw(&mut self) -> Result<(), String> {
        F::draw(self)
    }
}

/// A scrollback screen with the history lines not drawn yet (fake-claude's
/// and fake-gemini's way of drawing: history, then the live region below it).
#[derive(Default)]
pub struct Scroll {
    /// The screen model.
    pub screen: Screen,
    /// History lines to draw with the next frame.
    pub pending: Vec<String>,
    /// The history lines drawn so far (drawn again after a [`Scroll::rewind`]).
    drawn: Vec<String>,
}

impl Scroll {
    /// A screen with `pending` history lines to draw first.
    pub fn new(screen: Screen, pending: Vec<String>) -> Scroll {
        Scroll {
            screen,
            pending,
            drawn: Vec::new(),
        }
    }

    /// Draws the pending history lines, then `live` below them.
    pub fn draw(&mut self, live: &[String]) -> Result<(), String> {
        let commits = std::mem::take(&mut self.pending);
        self.drawn.extend(commits.iter().cloned());
        paint(&self.screen.frame(&commits, live, term::size()))
    }

    /// The number of history lines so far, drawn and pending.
    pub fn mark(&self) -> usize {
        self.drawn.len() + self.pending.len()
    }

    /// Takes the history back to `mark` lines: the terminal is wiped and they are drawn again
    /// with the next frame (qwen's rewind of a cancelled turn, `refreshStatic`).
    pub fn rewind(&mut self, mark: usize) -> Result<(), String> {
        let mut lines = std::mem::take(&mut self.drawn);
        lines.append(&mut self.pending);
        lines.truncate(mark);
        self.pending = lines;
        paint(&self.screen.clear())
    }
}
