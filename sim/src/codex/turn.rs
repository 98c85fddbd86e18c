//! One turn's timeline, shared by the TUI and `exec`.
//!
//! A [`Turn`] is a small state machine: the caller asks for its next
//! [`Turn::deadline`], calls [`Turn::tick`] when it passes and [`Turn::key`]
//! on key presses. Rollout records and hooks go through the [`Session`];
//! history lines collect in `commits` (TUI) and `exec --json` events in
//! `events`. The end-of-turn hook (`Stop`, `Interrupt`) is handed back in
//! [`Outcome`] so the TUI can draw the idle screen before firing it.

use std::time::{Duration, Instant};

use super::screens::{self, INTERRUPTED};
use super::session::{Session, Usage};
use crate::json::Obj;
use crate::keys::Key;
use crate::obj;
use crate::scenario::{Chosen, End, Permission};

/// The answer being streamed, `•` first.
pub type Stream = crate::stream::Stream<'•'>;

use crate::timeline::Pacer;
pub use crate::timeline::{EndHook, Late, Phase};

/// How a turn ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Back to idle.
    Done {
        /// Hook to fire after drawing idle.
        hook: Option<EndHook>,
        /// Records to write later.
        late: Option<Late>,
        /// The final answer (empty when failed or interrupted).
        text: String,
        /// The error message of a failed turn (API error, usage limit).
        error: Option<String>,
    },
    /// Exit with this status now.
    Exit(i32),
    /// Kill the process with this signal now.
    Signal(String),
    /// The session is lost: show the sign-in screen and stay there.
    SignIn,
}

pub(super) struct ToolCall {
    pub(super) call_id: String,
    pub(super) item_id: String,
    pub(super) cmd: String,
    pub(super) reason: Option<String>,
    pub(super) started_ms: i64,
    pub(super) permission: Permission,
}

/// A running turn.
pub struct Turn {
    /// The submitted prompt.
    pub prompt: String,
    /// Its turn id.
    pub turn_id: String,
    /// Current phase.
    pub phase: Phase,
    /// Real start time (for the busy indicator).
    pub started: Instant,
    /// Lines to add to the screen's history.
    pub commits: Vec<String>,
    /// `exec --json` events produced so far.
    pub events: Vec<Obj>,
    /// Columns for wrapped error lines.
    pub width: usize,
    pub(super) chosen: Chosen,
    pub(super) start_ms: i64,
    pub(super) stream: Stream,
    pub(super) pacer: Pacer,
    pub(super) tool: Option<ToolCall>,
    pub(super) after_tool: bool,
    pub(super) usage: Usage,
    pub(super) text_started_ms: i64,
    pub(super) items: u64,
}

impl Turn {
    /// Picks the scenario turn for `prompt`; nothing happens until [`Turn::start`].
    pub fn new(sess: &mut Session, prompt: String, now: Instant, width: usize) -> Turn {
        let chosen = sess.script.select(&prompt);
        Turn {
            phase: Phase::Delay(now + Duration::from_millis(chosen.delay_ms)),
            turn_id: sess.uuid7(),
            start_ms: sess.clock.now_ms(),
            text_started_ms: sess.clock.now_ms(),
            started: now,
            commits: Vec::new(),
            events: Vec::new(),
            stream: Stream::default(),
            pacer: Pacer::new(chosen.chunks(), chosen.chunk_ms),
            tool: None,
            after_tool: false,
            usage: Usage::default(),
            items: 0,
            chosen,
            prompt,
            width,
        }
    }

    /// Starts the thread on the first prompt, writes the turn's opening
    /// records and fires `UserPromptSubmit`.
    pub fn start(&mut self, sess: &mut Session) {
        let first = !sess.started;
        sess.begin(&self.prompt);
        let records = sess.rec_turn_start(&self.turn_id, first);
        sess.append(&records);
        let payload = sess.payload_user_prompt_submit(&self.turn_id, &self.prompt);
        sess.fire("UserPromptSubmit", None, &payload);
        let records = sess.rec_user_message(&self.turn_id, &self.prompt);
        sess.append(&records);
    }

    /// When [`Turn::tick`] should next run (`None`: only keys move it on).
    pub fn deadline(&self) -> Option<Instant> {
        self.phase.deadline()
    }

    /// True while the busy indicator shows (not in the approval prompt).
    pub fn busy(&self) -> bool {
        self.phase.busy()
    }

    /// The live lines above the composer while busy, or the approval prompt.
    pub fn live(&self, now: Instant) -> Vec<String> {
        if let (Phase::Dialog(cursor), Some(t)) = (&self.phase, &self.tool) {
            return screens::approval(&t.cmd, t.reason.as_deref(), *cursor);
        }
        let mut lines = self.stream.live();
        lines.push(String::new());
        // 0.171.0 shows `• Working` only until text streams: while an answer arrives the screen
        // has no busy marker at all (codex-0.171.0-busy-streaming-no-indicator.txt).
        if lines.len() == 1 {
            let secs = now.saturating_duration_since(self.started).as_secs();
            lines.push(screens::working(secs));
        } else {
            lines.push(String::new());
        }
        lines.push(String::new());
        lines.push(String::new());
        lines
    }

    /// A usage count for one model response.
    pub(super) fn response_usage(&self, output_text: &str) -> Usage {
        Usage {
            input: 300 + self.prompt.chars().count() as u64 / 4,
            output: (output_text.chars().count() as u64 / 4).max(1),
        }
    }

    pub(super) fn next_item_id(&mut self) -> String {
        self.items += 1;
        format!("item_{}", self.items - 1)
    }

    /// Advances the timeline when its deadline has passed.
    pub fn tick(&mut self, sess: &mut Session, now: Instant) -> Option<Outcome> {
        match self.phase {
            Phase::Delay(t) if now >= t => {
                sess.clock.advance(self.chosen.delay_ms);
                match self.chosen.end.clone() {
                    End::ApiError(e) => {
                        let body = screens::api_error_body(e.status, &e.message);
                        return Some(self.fail(sess, body, "other", false));
                    }
                    End::UsageLimit(u) => {
                        let text = screens::usage_limit_text(&u.retry_at);
                        return Some(self.fail(sess, text, "usage_limit_exceeded", true));
                    }
                    End::Permission(p) if !self.after_tool => {
                        self.tool_requested(sess, p, now);
                        return None;
                    }
                    _ => {}
                }
                self.text_started_ms = sess.clock.now_ms();
                self.phase = Phase::Stream(now);
                self.tick(sess, now)
            }
            Phase::Stream(t) if now >= t => {
                let (chunk, due) = self.pacer.step(&mut sess.clock, now);
                self.stream.push(&chunk);
                self.commits.extend(self.stream.take_complete());
                if let Some(due) = due {
                    self.phase = Phase::Stream(due);
                    return None;
                }
                self.text_done(sess, now)
            }
            _ => None,
        }
    }

    fn text_done(&mut self, sess: &mut Session, now: Instant) -> Option<Outcome> {
        match self.chosen.end.clone() {
            End::Wedge => {
                self.phase = Phase::Wedged;
                None
            }
            End::Crash(n) => {
                self.commits.extend(self.stream.take_rest());
                Some(Outcome::Exit(n))
            }
            End::Signal(s) => {
                self.commits.extend(self.stream.take_rest());
                Some(Outcome::Signal(s))
            }
            End::SignIn => {
                self.commits.extend(self.stream.take_rest());
                Some(Outcome::SignIn)
            }
            _ => Some(self.finish(sess, now)),
        }
    }

    fn finish(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        let text = self.stream.text.clone();
        self.commits.extend(self.stream.take_rest());
        let duration = sess.clock.now_ms() - self.start_ms;
        let iso = sess.clock.iso();
        let hhmm = iso.get(11..16).unwrap_or("00:00");
        self.commits.extend(screens::worked(duration, hhmm));
        let item_id = self.next_item_id();
        self.events.push(obj! {
            "type" => "item.completed",
            "item" => obj! { "id" => item_id, "type" => "agent_message", "text" => text.as_str() },
        });
        let hook = EndHook {
            event: "Stop",
            payload: sess.payload_stop(&self.turn_id, &text),
        };
        let late_ms = self.chosen.late_transcript_ms.filter(|ms| *ms > 0);
        if let Some(ms) = late_ms {
            sess.clock.advance(ms);
        }
        let usage = self.response_usage(&text);
        self.usage.add(usage);
        let mut records = sess.rec_agent_message(&self.turn_id, &text, self.text_started_ms);
        records.push(sess.rec_token_usage(&self.turn_id, usage, self.usage));
        records.push(sess.rec_token_count());
        let ttft = (self.text_started_ms - self.start_ms).max(0) as u64;
        records.push(sess.rec_task_complete(&self.turn_id, Ok(&text), self.start_ms, ttft));
        let late = match late_ms {
            Some(ms) => Some(Late {
                due: now + Duration::from_millis(ms),
                records,
            }),
            None => {
                sess.append(&records);
                None
            }
        };
        Outcome::Done {
            hook: Some(hook),
            late,
            text,
            error: None,
        }
    }

    /// A failed turn (API error, usage limit): the `■` line, `task_complete`
    /// with an `error`, and no Stop.
    fn fail(
        &mut self,
        sess: &mut Session,
        message: String,
        info: &str,
        token_count: bool,
    ) -> Outcome {
        self.commits
            .extend(screens::error_cell(&message, self.width));
        let mut records = Vec::new();
        if token_count {
            records.push(sess.rec_token_count());
        }
        records.push(sess.rec_task_complete(
            &self.turn_id,
            Err((&message, info)),
            self.start_ms,
            0,
        ));
        sess.append(&records);
        self.events
            .push(obj! { "type" => "error", "message" => message.as_str() });
        Outcome::Done {
            hook: None,
            late: None,
            text: String::new(),
            error: Some(message),
        }
    }

    /// Esc during the turn: keep what was streamed, record the abort, fire `Interrupt`.
    pub fn interrupt(&mut self, sess: &mut Session) -> Outcome {
        if let (Phase::Dialog(_), Some(_)) = (&self.phase, &self.tool) {
            return self.refuse(sess);
        }
        self.commits.extend(self.stream.take_rest());
        self.aborted(sess)
    }

    pub(super) fn aborted(&mut self, sess: &mut Session) -> Outcome {
        self.commits.push(String::new());
        self.commits.push(INTERRUPTED.to_string());
        let records = sess.rec_turn_aborted(&self.turn_id, self.start_ms);
        sess.append(&records);
        Outcome::Done {
            hook: Some(EndHook {
                event: "Interrupt",
                payload: sess.payload_interrupt(&self.turn_id),
            }),
            late: None,
            text: String::new(),
            error: None,
        }
    }

    /// A key while this turn runs; returns an outcome when the key ended it.
    pub fn key(&mut self, sess: &mut Session, key: &Key, now: Instant) -> Option<Outcome> {
        let Phase::Dialog(cursor) = self.phase else {
            return matches!(key, Key::Esc).then(|| self.interrupt(sess));
        };
        match key {
            Key::Up => self.phase = Phase::Dialog(cursor.saturating_sub(1)),
            Key::Down => self.phase = Phase::Dialog((cursor + 1).min(2)),
            Key::Enter if cursor == 2 => return Some(self.refuse(sess)),
            Key::Enter => self.approve(sess, now, cursor == 1),
            Key::Text(t) => match t.as_str() {
                "y" | "1" => self.approve(sess, now, false),
                "p" | "2" => self.approve(sess, now, true),
                "3" => return Some(self.refuse(sess)),
                _ => {}
            },
            Key::Esc | Key::CtrlC => return Some(self.refuse(sess)),
            _ => {}
        }
        None
    }
}
