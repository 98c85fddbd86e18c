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
use super::tool::ToolCall;
use crate::json::Obj;
use crate::keys::Key;
use crate::obj;
use crate::scenario::{ApiError, Chosen, End};

use crate::engine::timeline::Pacer;
pub use crate::engine::timeline::{Late, Phase};

/// An API failure: HTTP status and the raw error body.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// HTTP status.
    pub status: u16,
    /// `{"error":{"code":…,"message":…,"status":…}}`.
    pub raw: String,
}

/// How a turn ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Back to idle; fire `after_agent` once the screen shows it.
    Done {
        /// The `AfterAgent` payload.
        after_agent: Obj,
        /// Records to write later (`late_transcript_ms`).
        late: Option<Late>,
        /// The answer (empty on failure or cancel).
        response: String,
        /// The API error, if the turn failed.
        failure: Option<Failure>,
    },
    /// Exit with this status now.
    Exit(i32),
    /// Kill the process with this signal now.
    Signal(String),
    /// The session is lost: show the sign-in screen and stay there.
    SignIn,
}

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

/// A running turn.
pub struct Turn {
    /// The expanded prompt.
    pub prompt: String,
    /// Current phase.
    pub phase: Phase,
    /// Real start time (for the spinner).
    pub started: Instant,
    /// Lines to append to the screen's history.
    pub commits: Vec<String>,
    /// Events for stream-json.
    pub events: Vec<Event>,
    /// True until the permission Notification has fired.
    pub notify_pending: bool,
    pub(super) chosen: Chosen,
    pub(super) width: usize,
    pub(super) text: String,
    committed: usize,
    pacer: Pacer,
    start_ms: i64,
    pub(super) pending: Vec<Obj>,
    pub(super) tool: Option<ToolCall>,
    pub(super) after_tool: bool,
}

/// The raw body of an API error, as Gemini's API returns it.
pub fn api_error_raw(e: &ApiError) -> String {
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
        if !sess.interactive
            && sess.mode != ApprovalMode::Yolo
            && matches!(chosen.end, End::Permission(_))
        {
            chosen.end = End::Stop;
        }
        Turn {
            phase: Phase::Delay(now + Duration::from_millis(chosen.delay_ms)),
            start_ms: sess.clock.now_ms(),
            started: now,
            commits: Vec::new(),
            events: Vec::new(),
            notify_pending: false,
            pacer: Pacer::new(chosen.chunks(), chosen.chunk_ms),
            text: String::new(),
            committed: 0,
            pending: Vec::new(),
            tool: None,
            after_tool: false,
            chosen,
            width,
            prompt,
        }
    }

    /// Writes the prompt's `user` record (after `BeforeAgent` has fired).
    pub fn start(&mut self, sess: &mut Session) {
        let rec = sess.chat_user(vec![obj! { "text" => self.prompt.as_str() }]);
        self.pending.push(rec);
        sess.stats.requests += 1;
    }

    /// When [`Turn::tick`] should next be called (`None`: only keys move it on).
    pub fn deadline(&self) -> Option<Instant> {
        self.phase.deadline()
    }

    /// True while the busy line should show (not during the confirmation).
    pub fn busy(&self) -> bool {
        self.phase.busy()
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
            self.commits
                .extend(lines[self.committed..complete].iter().cloned());
            self.committed = complete;
        }
    }

    pub(super) fn commit_rest(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let lines = screens::answer(&self.text);
        self.commits
            .extend(lines.iter().skip(self.committed).cloned());
        self.committed = lines.len();
    }

    /// Starts a new answer block (after a tool call).
    pub(super) fn restart_stream(&mut self, now: Instant) {
        self.text.clear();
        self.committed = 0;
        self.pacer.restart(self.chosen.chunks());
        self.phase = Phase::Stream(now);
    }

    /// Advances the timeline when its deadline has passed.
    pub fn tick(&mut self, sess: &mut Session, now: Instant) -> Option<Outcome> {
        match self.phase {
            Phase::Delay(t) if now >= t => {
                sess.clock.advance(self.chosen.delay_ms);
                match self.chosen.end.clone() {
                    End::ApiError(e) => return Some(self.api_error(sess, &e)),
                    End::Permission(p) if !self.after_tool => {
                        self.tool_requested(sess, p, now);
                        return None;
                    }
                    _ => {}
                }
                self.phase = Phase::Stream(now);
                self.tick(sess, now)
            }
            Phase::Stream(t) if now >= t => {
                let (chunk, due) = self.pacer.step(&mut sess.clock, now);
                self.text.push_str(&chunk);
                if !chunk.is_empty() {
                    self.events.push(Event::Delta(chunk));
                }
                self.commit_complete();
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
                self.commit_rest();
                Some(Outcome::Exit(n))
            }
            End::Signal(s) => {
                self.commit_rest();
                Some(Outcome::Signal(s))
            }
            End::SignIn => {
                self.commit_rest();
                Some(Outcome::SignIn)
            }
            _ => Some(self.finish(sess, now)),
        }
    }

    fn finish(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        let text = self.text.clone();
        self.commit_rest();
        let (input, output) = token_counts(&self.prompt, &text);
        sess.stats.input += input;
        sess.stats.output += output;
        let late_ms = self.chosen.late_transcript_ms.filter(|ms| *ms > 0);
        let (after_agent, rec, late) = match late_ms {
            Some(ms) => {
                let payload = sess.payload_after_agent(&self.prompt, &text);
                sess.clock.advance(ms);
                let rec = sess.gemini_record(&text, tokens(input, output));
                let ts = super::chat::field(&rec, "timestamp");
                let records = vec![rec.clone(), obj! { "$set" => obj! { "lastUpdated" => ts } }];
                let late = Late {
                    due: now + Duration::from_millis(ms),
                    records,
                };
                (payload, rec, Some(late))
            }
            None => {
                let rec = sess.gemini_record(&text, tokens(input, output));
                sess.chat_gemini(&rec, false);
                (sess.payload_after_agent(&self.prompt, &text), rec, None)
            }
        };
        self.pending.push(history_form(&rec, &[]));
        sess.history.append(&mut self.pending);
        self.account(sess);
        Outcome::Done {
            after_agent,
            late,
            response: text,
            failure: None,
        }
    }

    fn account(&self, sess: &mut Session) {
        sess.stats.active_ms += (sess.clock.now_ms() - self.start_ms).max(0) as u64;
    }

    fn api_error(&mut self, sess: &mut Session, e: &ApiError) -> Outcome {
        let raw = api_error_raw(e);
        self.commits.extend(screens::api_error(self.width, &raw));
        self.commits
            .extend(screens::info(self.width, REQUEST_FAILED));
        sess.chat_rollback();
        sess.chat_note("error", &format!("[API Error: {raw}]"));
        sess.chat_note("info", REQUEST_FAILED);
        self.account(sess);
        Outcome::Done {
            after_agent: sess.payload_after_agent(&self.prompt, ""),
            late: None,
            response: String::new(),
            failure: Some(Failure {
                status: e.status,
                raw,
            }),
        }
    }

    /// Esc (or Ctrl+C) during the turn: `ℹ Request cancelled.`, AfterAgent
    /// still fires (with `[no response text]`). In the confirmation this refuses the tool.
    pub fn cancel(&mut self, sess: &mut Session) -> Outcome {
        if self.tool.is_some() {
            self.refuse_tool(sess);
        }
        self.commit_rest();
        self.commits.extend(screens::info(self.width, CANCELLED));
        sess.chat_note("info", CANCELLED);
        sess.chat_rollback();
        self.account(sess);
        Outcome::Done {
            after_agent: sess.payload_after_agent(&self.prompt, ""),
            late: None,
            response: String::new(),
            failure: None,
        }
    }

    /// A key while the confirmation is up (other phases ignore keys here).
    pub fn key(&mut self, sess: &mut Session, key: &Key, now: Instant) -> Option<Outcome> {
        let Phase::Dialog(cursor) = self.phase else {
            return None;
        };
        match key {
            Key::Up => self.phase = Phase::Dialog(cursor.saturating_sub(1)),
            Key::Down => self.phase = Phase::Dialog((cursor + 1).min(2)),
            Key::Enter if cursor == 2 => return Some(self.cancel(sess)),
            Key::Enter => self.approve(sess, now),
            Key::Text(t) if t == "1" || t == "2" => self.approve(sess, now),
            Key::Text(t) if t == "3" => return Some(self.cancel(sess)),
            Key::Esc => return Some(self.cancel(sess)),
            _ => {}
        }
        None
    }
}
