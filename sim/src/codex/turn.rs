//! One turn's timeline, shared by the TUI and `exec`.
//!
//! A [`Turn`] is a small state machine: the caller asks for its next
//! [`Turn::deadline`], calls [`Turn::tick`] when it passes and [`Turn::key`]
//! on key presses. Rollout records and hooks go through the [`Session`];
//! history lines collect in `commits` (TUI) and `exec --json` events in
//! `events`. The end-of-turn hook (`Stop`, `Interrupt`) is handed back in
//! [`Outcome`] so the TUI can draw the idle screen before firing it.

use std::time::Instant;

use super::release::Codex;
use super::screens::{self, INTERRUPTED};
use super::session::{Session, Usage};
use crate::engine::menu::{Choice, Menu};
use crate::engine::timeline::{self, Core, Step, Timeline};
use crate::json::Obj;
use crate::keys::Key;
use crate::obj;
use crate::scenario::{End, Permission};

/// The answer being streamed, `•` first.
pub type Stream = crate::stream::Stream<'•'>;

pub use crate::engine::timeline::{EndHook, Late, Phase};

/// What a finished turn hands back.
#[derive(Clone, Debug, PartialEq)]
pub struct Done {
    /// Hook to fire after drawing idle.
    pub hook: Option<EndHook>,
    /// Records to write later.
    pub late: Option<Late>,
    /// The final answer (empty when failed or interrupted).
    pub text: String,
    /// The error message of a failed turn (API error, usage limit).
    pub error: Option<String>,
}

/// How a turn ended.
pub type Outcome = crate::engine::timeline::Outcome<Done>;

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
    /// Phase, pacing, history lines.
    pub core: Core,
    /// `exec --json` events produced so far.
    pub events: Vec<Obj>,
    /// Columns for wrapped error lines.
    pub width: usize,
    pub(super) stream: Stream,
    pub(super) tool: Option<ToolCall>,
    pub(super) usage: Usage,
    pub(super) text_started_ms: i64,
    pub(super) items: u64,
}

impl Turn {
    /// Picks the scenario turn for `prompt`; nothing happens until [`Turn::start`].
    pub fn new(sess: &mut Session, prompt: String, now: Instant, width: usize) -> Turn {
        let chosen = sess.script.select(&prompt);
        chosen.write_files();
        let chunks = chosen.chunks();
        Turn {
            turn_id: sess.uuid7(),
            text_started_ms: sess.clock.now_ms(),
            core: Core::new(chosen, chunks, now, sess.clock.now_ms()),
            events: Vec::new(),
            stream: Stream::default(),
            tool: None,
            usage: Usage::default(),
            items: 0,
            prompt,
            width,
        }
    }

    /// The live lines above the composer while busy, or the approval prompt.
    pub fn live(&self, now: Instant) -> Vec<String> {
        if let (Phase::Dialog(cursor), Some(t)) = (&self.core.phase, &self.tool) {
            return screens::approval(&t.cmd, t.reason.as_deref(), *cursor);
        }
        let mut lines = self.stream.live();
        lines.push(String::new());
        // 0.171.0 shows `• Working` only until text streams: while an answer arrives the screen
        // has no busy marker at all (codex-0.171.0-busy-streaming-no-indicator.txt).
        if lines.len() == 1 {
            let secs = now.saturating_duration_since(self.core.started).as_secs();
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
        timeline::tick(self, sess, now)
    }

    fn answer(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        let text = self.stream.text.clone();
        self.core.commits.extend(self.stream.take_rest());
        let duration = sess.clock.now_ms() - self.core.start_ms;
        let iso = sess.clock.iso();
        let hhmm = iso.get(11..16).unwrap_or("00:00");
        self.core.commits.extend(screens::worked(duration, hhmm));
        let item_id = self.next_item_id();
        self.events.push(obj! {
            "type" => "item.completed",
            "item" => obj! { "id" => item_id, "type" => "agent_message", "text" => text.as_str() },
        });
        let hook = EndHook {
            event: "Stop",
            payload: sess.payload_stop(&self.turn_id, &text),
        };
        let late_ms = self.core.late_ms(&mut sess.clock);
        let usage = self.response_usage(&text);
        self.usage.add(usage);
        let thought = self.core.chosen.thinking.clone();
        let mut records: Vec<_> = thought
            .map(|t| sess.rec_reasoning(&self.turn_id, &t))
            .into_iter()
            .collect();
        records.extend(sess.rec_agent_message(&self.turn_id, &text, self.text_started_ms));
        records.push(sess.rec_token_usage(&self.turn_id, usage, self.usage));
        records.push(sess.rec_token_count());
        let ttft = (self.text_started_ms - self.core.start_ms).max(0) as u64;
        records.push(sess.rec_task_complete(&self.turn_id, Ok(&text), self.core.start_ms, ttft));
        let late = timeline::hold(late_ms, now, records, |r| sess.append(r));
        Outcome::Done(Done {
            hook: Some(hook),
            late,
            text,
            error: None,
        })
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
        self.core
            .commits
            .extend(screens::error_cell(&message, self.width));
        let mut records = Vec::new();
        if token_count {
            records.push(sess.rec_token_count());
        }
        records.push(sess.rec_task_complete(
            &self.turn_id,
            Err((&message, info)),
            self.core.start_ms,
            0,
        ));
        sess.append(&records);
        self.events
            .push(obj! { "type" => "error", "message" => message.as_str() });
        Outcome::Done(Done {
            hook: None,
            late: None,
            text: String::new(),
            error: Some(message),
        })
    }

    /// Esc during the turn: keep what was streamed, record the abort, fire `Interrupt`.
    pub fn interrupt(&mut self, sess: &mut Session) -> Outcome {
        if let (Phase::Dialog(_), Some(_)) = (&self.core.phase, &self.tool) {
            return self.refuse(sess);
        }
        self.core.commits.extend(self.stream.take_rest());
        self.aborted(sess)
    }

    pub(super) fn aborted(&mut self, sess: &mut Session) -> Outcome {
        self.core.commits.push(String::new());
        self.core.commits.push(INTERRUPTED.to_string());
        let records = sess.rec_turn_aborted(&self.turn_id, self.core.start_ms);
        sess.append(&records);
        Outcome::Done(Done {
            hook: sess.release.has(Codex::InterruptHook).then(|| EndHook {
                event: "Interrupt",
                payload: sess.payload_interrupt(&self.turn_id),
            }),
            late: None,
            text: String::new(),
            error: None,
        })
    }

    /// A key while this turn runs; returns an outcome when the key ended it.
    pub fn key(&mut self, sess: &mut Session, key: &Key, now: Instant) -> Option<Outcome> {
        if !matches!(self.core.phase, Phase::Dialog(_)) {
            return matches!(key, Key::Esc).then(|| self.interrupt(sess));
        }
        match self.core.menu_key(&APPROVAL_MENU, key)? {
            Choice::Refuse => Some(self.refuse(sess)),
            choice => {
                self.approve(sess, now, choice == Choice::Pick(1));
                None
            }
        }
    }
}

/// The approval prompt: Yes, Yes and don't ask again for this command, No.
const APPROVAL_MENU: Menu = Menu {
    last: 2,
    hotkeys: &[("y", 0), ("1", 0), ("p", 1), ("2", 1), ("3", 2)],
    ctrl_c_refuses: true,
};

impl Timeline for Turn {
    crate::timeline_parts!(Session);

    /// Starts the thread on the first prompt, writes the turn's opening
    /// records and fires `UserPromptSubmit`.
    fn start(&mut self, sess: &mut Session) {
        let first = !sess.started;
        sess.begin(&self.prompt);
        let records = sess.rec_turn_start(&self.turn_id, first);
        sess.append(&records);
        let payload = sess.payload_user_prompt_submit(&self.turn_id, &self.prompt);
        sess.fire("UserPromptSubmit", None, &payload);
        let records = sess.rec_user_message(&self.turn_id, &self.prompt);
        sess.append(&records);
    }

    fn delay_over(&mut self, sess: &mut Session, now: Instant) -> Step<Outcome> {
        match self.core.chosen.end.clone() {
            End::ApiError(e) => {
                let body = screens::api_error_body(e.status, &e.message);
                Some(Some(self.fail(sess, body, "other", false)))
            }
            End::UsageLimit(u) => {
                let text = screens::usage_limit_text(&u.retry_at);
                Some(Some(self.fail(sess, text, "usage_limit_exceeded", true)))
            }
            End::Permission(p) if !self.core.after_tool => {
                self.tool_requested(sess, p, now);
                Some(None)
            }
            _ => None,
        }
    }

    fn text_starts(&mut self, sess: &mut Session) {
        self.text_started_ms = sess.clock.now_ms();
    }

    fn chunk(&mut self, chunk: String) {
        self.stream.push(&chunk);
        self.core.commits.extend(self.stream.take_complete());
    }

    fn commit_rest(&mut self) {
        self.core.commits.extend(self.stream.take_rest());
    }

    fn finish(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        self.answer(sess, now)
    }
}
