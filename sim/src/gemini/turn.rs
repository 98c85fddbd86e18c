//! One turn's timeline, shared by the TUI and headless mode.
//!
//! The caller fires `BeforeAgent`, then [`Turn::start`] writes the prompt's
//! record; afterwards it asks for [`Turn::deadline`], calls [`Turn::tick`]
//! when it passes and [`Turn::key`] on keys while the tool confirmation is
//! up. Lines for the screen's history collect in `commits`, stream-json
//! events in `events`. Every ending (answer, API error, cancel) hands back
//! the `AfterAgent` payload in [`Outcome::Done`], so the TUI can draw the
//! idle screen before firing it.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::chat::{history_form, token_counts, tokens};
use super::cli::ApprovalMode;
use super::screens::{self, CANCELLED, REQUEST_FAILED};
use super::session::Session;
use crate::engine::ask::Asking;
use crate::engine::menu::{Choice, Menu};
use crate::engine::timeline::{self, Core, Step, Timeline};
use crate::json::Obj;
use crate::keys::Key;
use crate::obj;
use crate::scenario::{ApiError, End};

pub use crate::engine::timeline::{Late, Phase};

/// An API failure: HTTP status and the raw error body.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// HTTP status.
    pub status: u16,
    /// `{"error":{"code":…,"message":…,"status":…}}`.
    pub raw: String,
}

/// What a finished turn hands back: fire `after_agent` once the screen shows idle.
#[derive(Clone, Debug, PartialEq)]
pub struct Done {
    /// The `AfterAgent` payload; `None` when the tool confirmation was refused (no hook fires).
    pub after_agent: Option<Obj>,
    /// Records to write later (`late_transcript_ms`).
    pub late: Option<Late>,
    /// The answer (empty on failure or cancel).
    pub response: String,
    /// The API error, if the turn failed.
    pub failure: Option<Failure>,
}

/// How a turn ended.
pub type Outcome = crate::engine::timeline::Outcome<Done>;

/// What `-o stream-json` reports while the turn runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A tool call was requested.
    ToolUse {
        /// Tool name.
        name: String,
        /// Call id.
        id: String,
        /// Arguments.
        params: Value,
    },
    /// A tool call finished.
    ToolResult {
        /// Call id.
        id: String,
        /// `success`.
        status: String,
        /// Its output.
        output: String,
    },
    /// A streamed piece of the answer.
    Delta(String),
}

/// A requested tool call.
pub struct ToolCall {
    /// Gemini's tool name (`run_shell_command`).
    pub name: String,
    /// The name boxes show (`Shell`).
    pub display: String,
    /// `<name>__<name>_<ms>_0`.
    pub call_id: String,
    /// Arguments.
    pub input: Value,
    /// Scripted output.
    pub output: Option<String>,
    /// The gemini record that asked for it (rewritten with `toolCalls`).
    pub record: Obj,
}

/// A running turn.
pub struct Turn {
    /// The expanded prompt.
    pub prompt: String,
    /// Phase, pacing, history lines.
    pub core: Core,
    /// Events for stream-json.
    pub events: Vec<Event>,
    /// True until the permission Notification has fired.
    pub notify_pending: bool,
    pub(super) width: usize,
    pub(super) text: String,
    committed: usize,
    pub(super) pending: Vec<Obj>,
    pub(super) tool: Option<ToolCall>,
    /// The question tool's dialog, when the call asks the person ([`super::ask`]).
    pub(super) asking: Option<Asking>,
}

/// The raw body of an API error, as Gemini's API returns it.
pub fn api_error_raw(e: &ApiError) -> String {
    // qwen's OpenAI client words it `<status> <message>`.
    if super::flavor::qwen() {
        return format!("{} {}", e.status, e.message);
    }
    let status = match e.status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        500 => "INTERNAL",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => "UNKNOWN",
    };
    let body = obj! {
        "error" => obj! { "code" => u64::from(e.status), "message" => e.message.as_str(), "status" => status },
    };
    body.to_line()
}

impl Turn {
    /// Picks the scenario turn for `prompt`. Headless runs without yolo do
    /// not offer tools to the model, so a permission end becomes a plain answer.
    pub fn new(sess: &mut Session, prompt: String, now: Instant, width: usize) -> Turn {
        let mut chosen = sess.script.select(&prompt);
        chosen.write_files();
        if !sess.interactive
            && sess.mode != ApprovalMode::Yolo
            && matches!(chosen.end, End::Permission(_))
        {
            chosen.end = End::Stop;
        }
        let chunks = chosen.chunks();
        Turn {
            core: Core::new(chosen, chunks, now, sess.clock.now_ms()),
            events: Vec::new(),
            notify_pending: false,
            text: String::new(),
            committed: 0,
            pending: Vec::new(),
            tool: None,
            asking: None,
            width,
            prompt,
        }
    }

    /// The answer lines not yet committed (shown above the composer).
    pub fn live(&self) -> Vec<String> {
        if self.text.is_empty() {
            return Vec::new();
        }
        screens::answer(&self.text)
            .into_iter()
            .skip(self.committed)
            .collect()
    }

    fn commit_complete(&mut self) {
        let lines = screens::answer(&self.text);
        let complete = lines.len().saturating_sub(1);
        if complete > self.committed {
            self.core
                .commits
                .extend(lines[self.committed..complete].iter().cloned());
            self.committed = complete;
        }
    }

    /// A tool call was answered: a new answer block streams from `now`.
    pub(super) fn resume(&mut self, now: Instant) {
        self.text.clear();
        self.committed = 0;
        self.core.resume(now);
    }

    /// Advances the timeline when its deadline has passed.
    pub fn tick(&mut self, sess: &mut Session, now: Instant) -> Option<Outcome> {
        timeline::tick(self, sess, now)
    }

    fn answer(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        let text = self.text.clone();
        self.commit_rest();
        let (input, output) = token_counts(&self.prompt, &text);
        sess.stats.input += input;
        sess.stats.output += output;
        let late_ms = self.core.chosen.late_transcript_ms.filter(|ms| *ms > 0);
        let thinking = self.core.chosen.thinking.clone();
        let (after_agent, rec, late) = match late_ms {
            Some(ms) => {
                let payload = sess.payload_after_agent(&self.prompt, &text);
                sess.clock.advance(ms);
                let rec = sess.gemini_record(&text, thinking.as_deref(), tokens(input, output));
                let ts = super::chat::field(&rec, "timestamp");
                let records = vec![rec.clone(), obj! { "$set" => obj! { "lastUpdated" => ts } }];
                let late = Late {
                    due: now + Duration::from_millis(ms),
                    records,
                };
                (payload, rec, Some(late))
            }
            None => {
                let rec = sess.gemini_record(&text, thinking.as_deref(), tokens(input, output));
                sess.chat_gemini(&rec, false);
                (sess.payload_after_agent(&self.prompt, &text), rec, None)
            }
        };
        self.pending.push(history_form(&rec, &[]));
        sess.history.append(&mut self.pending);
        self.account(sess);
        Outcome::Done(Done {
            after_agent: Some(after_agent),
            late,
            response: text,
            failure: None,
        })
    }

    fn account(&self, sess: &mut Session) {
        sess.stats.active_ms += (sess.clock.now_ms() - self.core.start_ms).max(0) as u64;
    }

    fn api_error(&mut self, sess: &mut Session, e: &ApiError) -> Outcome {
        let raw = api_error_raw(e);
        self.core
            .commits
            .extend(screens::api_error(self.width, &raw));
        self.core
            .commits
            .extend(screens::info(self.width, REQUEST_FAILED));
        sess.chat_rollback();
        sess.chat_note("error", &format!("[API Error: {raw}]"));
        sess.chat_note("info", REQUEST_FAILED);
        self.account(sess);
        Outcome::Done(Done {
            after_agent: Some(sess.payload_after_agent(&self.prompt, "")),
            late: None,
            response: String::new(),
            failure: Some(Failure {
                status: e.status,
                raw,
            }),
        })
    }

    /// Esc (or Ctrl+C) during the turn: `ℹ Request cancelled.`, AfterAgent
    /// still fires, with the text streamed so far (`[no response text]` before any; gemini
    /// 0.61.0), and no `gemini` record keeps that text. In the confirmation this refuses the
    /// tool ([`Turn::refuse`]).
    pub fn cancel(&mut self, sess: &mut Session) -> Outcome {
        if self.tool.is_some() {
            return self.refuse(sess);
        }
        self.commit_rest();
        self.core
            .commits
            .extend(screens::info(self.width, CANCELLED));
        self.cancelled(sess, true)
    }

    /// Esc, `3` (qwen `4`) or Ctrl+C in the confirmation: the call is cancelled (`-  Shell …`),
    /// the chat gets its `info` `Request cancelled.`, the CLI is back at its prompt and no hook
    /// fires at all (gemini 0.61.0 shows `ℹ Request cancelled.`; qwen 0.24.4 shows nothing more
    /// and fires only its `idle_prompt` Notification, later: the TUI's). Esc on a question
    /// declines it the same way (`ask.rs`: `declined_lines`).
    pub fn refuse(&mut self, sess: &mut Session) -> Outcome {
        self.refuse_tool(sess);
        self.commit_rest();
        if !super::flavor::qwen() {
            self.core
                .commits
                .extend(screens::info(self.width, CANCELLED));
        }
        self.cancelled(sess, false)
    }

    /// The end of a cancelled turn: the chat's `Request cancelled.` (the turn's records rolled
    /// back), its usage, and `AfterAgent` when it `fires` (Esc mid-turn, not on a refusal).
    fn cancelled(&mut self, sess: &mut Session, fires: bool) -> Outcome {
        sess.chat_note("info", CANCELLED);
        sess.chat_rollback();
        self.account(sess);
        Outcome::Done(Done {
            after_agent: fires.then(|| sess.payload_after_agent(&self.prompt, &self.text)),
            late: None,
            response: String::new(),
            failure: None,
        })
    }

    /// A key while the confirmation is up (other phases ignore keys here).
    pub fn key(&mut self, sess: &mut Session, key: &Key, now: Instant) -> Option<Outcome> {
        if self.asking.is_some() {
            self.ask_key(sess, key, now);
            return None;
        }
        let menu = if super::flavor::qwen() {
            &QWEN_CONFIRM_MENU
        } else {
            &CONFIRM_MENU
        };
        match self.core.menu_key(menu, key)? {
            Choice::Refuse => Some(self.refuse(sess)),
            _ => {
                self.approve(sess, now);
                None
            }
        }
    }
}

/// The tool confirmation: Allow once, Allow for this session, No (Ctrl+C is the shell's).
const CONFIRM_MENU: Menu = Menu {
    last: 2,
    hotkeys: &[("1", 0), ("2", 1), ("3", 2)],
    ctrl_c_refuses: false,
};

/// Qwen Code's: once, always in this project, always for this user, No.
const QWEN_CONFIRM_MENU: Menu = Menu {
    last: 3,
    hotkeys: &[("1", 0), ("2", 1), ("3", 2), ("4", 3)],
    ctrl_c_refuses: false,
};

impl Timeline for Turn {
    crate::timeline_parts!(Session);

    /// Writes the prompt's `user` record (after `BeforeAgent` has fired).
    fn start(&mut self, sess: &mut Session) {
        let rec = sess.chat_user(vec![obj! { "text" => self.prompt.as_str() }]);
        self.pending.push(rec);
        sess.stats.requests += 1;
    }

    fn delay_over(&mut self, sess: &mut Session, now: Instant) -> Step<Outcome> {
        match self.core.chosen.end.clone() {
            End::ApiError(e) => Some(Some(self.api_error(sess, &e))),
            End::Permission(p) if !self.core.after_tool => {
                self.tool_requested(sess, p, now);
                Some(None)
            }
            _ => None,
        }
    }

    fn chunk(&mut self, chunk: String) {
        self.text.push_str(&chunk);
        if !chunk.is_empty() {
            self.events.push(Event::Delta(chunk));
        }
        self.commit_complete();
    }

    fn commit_rest(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let lines = screens::answer(&self.text);
        self.core
            .commits
            .extend(lines.iter().skip(self.committed).cloned());
        self.committed = lines.len();
    }

    fn finish(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        self.answer(sess, now)
    }
}
