//! The interactive main loop the three fakes share.
//!
//! One thread, one loop: wait for input or the next deadline (turn timeline,
//! late record write, Esc timeout, Ctrl-C window, spinner second), handle it,
//! redraw. What happens at each step is the program's, through [`Program`]
//! (the fakes' [`super::shell::Shell`]); the order of the steps and the key
//! reading ([`Keyboard`]) are common.

use std::time::{Duration, Instant};

use crate::keys::{ESC_TIMEOUT_MS, Key, KeyParser};
use crate::term::{Input, Terminal};

/// What the loop does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Flow {
    /// Keep going.
    Go,
    /// Exit with this status.
    Exit(i32),
    /// Kill the process with this signal.
    Signal(String),
}

/// How long a first Ctrl-C waits for the second.
pub const CTRL_C_WINDOW: Duration = Duration::from_secs(2);

/// Turns terminal bytes into keys: the parser, the pending lone-Esc
/// deadline, and when the last unanswered Ctrl-C came.
pub struct Keyboard {
    parser: KeyParser,
    esc_at: Option<Instant>,
    /// The first of a possible Ctrl-C pair (cleared after [`CTRL_C_WINDOW`]).
    pub ctrl_c: Option<Instant>,
}

impl Default for Keyboard {
    fn default() -> Self {
        Keyboard::new()
    }
}

impl Keyboard {
    /// No keys pending.
    pub fn new() -> Keyboard {
        Keyboard {
            parser: KeyParser::new(),
            esc_at: None,
            ctrl_c: None,
        }
    }

    /// Keys in `input`; `None` when the terminal is gone.
    fn keys(&mut self, input: Input) -> Option<Vec<Key>> {
        Some(match input {
            Input::Bytes(b) => {
                let keys = self.parser.feed(&b);
                self.esc_at = self
                    .parser
                    .pending()
                    .then(|| Instant::now() + Duration::from_millis(ESC_TIMEOUT_MS));
                keys
            }
            Input::Timeout if self.esc_at.is_some_and(|t| Instant::now() >= t) => {
                self.esc_at = None;
                self.parser.flush()
            }
            Input::Timeout => Vec::new(),
            Input::Closed => return None,
        })
    }
}

/// A fake's interactive program, as the loop sees it.
pub trait Program {
    /// The key-reading state.
    fn keyboard(&mut self) -> &mut Keyboard;
    /// The terminal to read.
    fn terminal(&mut self) -> &mut Terminal;
    /// A fatal error raised since the last step (e.g. a failed write).
    fn take_fatal(&mut self) -> Option<String>;
    /// When records held back for later are due.
    fn late_due(&self) -> Option<Instant>;
    /// Writes the held-back records now.
    fn write_late(&mut self);
    /// When the running turn wants its next tick.
    fn turn_deadline(&self) -> Option<Instant>;
    /// The start of a turn that shows a busy spinner (redrawn every second).
    fn busy_since(&self) -> Option<Instant>;
    /// When the CLI opens a turn by itself (`then_self`), if it will.
    fn self_turn_due(&self) -> Option<Instant> {
        None
    }
    /// Opens that turn (its time has come).
    fn open_self_turn(&mut self) -> Result<Flow, String> {
        Ok(Flow::Go)
    }
    /// When the screen changes by itself with nothing running (a startup step finishing).
    fn wake_at(&self) -> Option<Instant> {
        None
    }
    /// Ticks the running turn (its deadline has passed).
    fn tick(&mut self, now: Instant) -> Result<Flow, String>;
    /// Submits a prompt.
    fn prompt(&mut self, text: String) -> Result<Flow, String>;
    /// Handles one key.
    fn key(&mut self, key: Key) -> Result<Flow, String>;
    /// The terminal went away.
    fn closed(&mut self) -> Flow;
    /// Redraws the screen.
    fn redraw(&mut self) -> Result<(), String>;
}

/// Submits `first_prompt` (when given and not empty), then loops until the
/// program exits, is killed or fails.
pub fn run(app: &mut impl Program, first_prompt: Option<String>) -> Result<Flow, String> {
    if let Some(p) = first_prompt.filter(|p| !p.is_empty()) {
        match app.prompt(p)? {
            Flow::Go => {}
            other => return Ok(other),
        }
    }
    loop {
        if let Some(err) = app.take_fatal() {
            return Err(err);
        }
        let now = Instant::now();
        if app.late_due().is_some_and(|t| now >= t) {
            app.write_late();
        }
        if app.self_turn_due().is_some_and(|t| now >= t) {
            match app.open_self_turn()? {
                Flow::Go => {}
                other => return Ok(other),
            }
            app.redraw()?;
            continue;
        }
        if app.turn_deadline().is_some_and(|d| now >= d) {
            match app.tick(now)? {
                Flow::Go => {}
                other => return Ok(other),
            }
            app.redraw()?;
            continue;
        }
        let wait = timeout(app, now);
        let input = app
            .terminal()
            .read(Some(wait))
            .map_err(|e| format!("cannot read the terminal: {e}"))?;
        let Some(keys) = app.keyboard().keys(input) else {
            return Ok(app.closed());
        };
        for key in keys {
            match app.key(key)? {
                Flow::Go => {}
                other => return Ok(other),
            }
        }
        let kb = app.keyboard();
        if kb.ctrl_c.is_some_and(|t| t.elapsed() >= CTRL_C_WINDOW) {
            kb.ctrl_c = None;
        }
        app.redraw()?;
    }
}

/// How long to wait for input: until the nearest deadline, at most an hour.
fn timeout(app: &mut impl Program, now: Instant) -> Duration {
    let mut until = now + Duration::from_secs(3600);
    let mut consider = |t: Option<Instant>| {
        if let Some(t) = t {
            until = until.min(t);
        }
    };
    consider(app.turn_deadline());
    consider(app.late_due());
    consider(app.self_turn_due());
    consider(app.wake_at().filter(|t| *t > now));
    let kb = app.keyboard();
    consider(kb.esc_at);
    consider(kb.ctrl_c.map(|t| t + CTRL_C_WINDOW));
    if let Some(started) = app.busy_since() {
        let elapsed = now.saturating_duration_since(started);
        consider(Some(started + Duration::from_secs(elapsed.as_secs() + 1)));
    }
    until.saturating_duration_since(now)
}
