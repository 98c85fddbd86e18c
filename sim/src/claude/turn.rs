//! One turn's timeline, shared by the TUI and print mode.
//!
//! A [`Turn`] is a small state machine: the caller asks for its next
//! [`Turn::deadline`], calls [`Turn::tick`] when it passes and
//! [`Turn::key`] on key presses. Side effects (transcript records, hooks) go
//! through the [`Session`]; lines to add to the screen's history collect in
//! `commits`. The end-of-turn hook is handed back in [`Outcome`] so the TUI
//! can draw the idle screen before firing it.

use std::time::{Duration, Instant};

use super::screens::{self, INTERRUPTED_LINE};
use super::session::Session;
use super::tool::preamble;
use super::transcript::text_block;
use crate::json::Obj;
use crate::keys::Key;
use crate::scenario::{Chosen, End, Permission};

/// The answer being streamed, `●` first.
pub type Block = crate::stream::Stream<'●'>;

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
        /// The final text (reply, or the API error text).
        text: String,
        /// `Some(status)` for an API error.
        api_error: Option<u16>,
        /// True when interrupted (Esc, refusal).
        interrupted: bool,
    },
    /// Esc before any text: back to idle with the prompt put back into the input box, nothing
    /// recorded and no hook fired (as 2.1.332 does while it waits for the model).
    Restored(String),
    /// Exit with this status now.
    Exit(i32),
    /// Kill the process with this signal now.
    Signal(String),
    /// The session is lost: show the sign-in screen and stay there.
    SignIn,
}

pub(super) struct ToolCall {
    pub(super) id: String,
    pub(super) record_uuid: String,
    pub(super) permission: Permission,
}

/// A running turn.
pub struct Turn {
    /// The expanded prompt.
    pub prompt: String,
    /// Its id (payloads, records).
    pub prompt_id: String,
    /// Current phase.
    pub phase: Phase,
    /// Real start time (for the spinner).
    pub started: Instant,
    /// Lines to append to the screen's history.
    pub commits: Vec<String>,
    /// Tools denied in print mode (`permission_denials`).
    pub denials: Vec<Obj>,
    /// Model round trips (for print mode's `num_turns`).
    pub num_turns: u64,
    pub(super) chosen: Chosen,
    pub(super) turn_id: String,
    pub(super) start_ms: i64,
    pub(super) block: Block,
    pub(super) pacer: Pacer,
    pub(super) message_id: String,
    pub(super) tool: Option<ToolCall>,
    pub(super) after_tool: bool,
    pub(super) notify_pending: bool,
    pub(super) question: Option<String>,
}

impl Turn {
    /// Picks the scenario turn for `prompt`; nothing happens until [`Turn::start`].
    pub fn new(sess: &mut Session, prompt: String, now: Instant) -> Turn {
        let chosen = sess.script.select(&prompt);
        let prompt_id = sess.ids.uuid();
        sess.last_prompt_id = Some(prompt_id.clone());
        let chunks = match &chosen.end {
            End::Permission(p) => vec![preamble(&p.tool)],
            _ => chosen.chunks(),
        };
        Turn {
            phase: Phase::Delay(now + Duration::from_millis(chosen.delay_ms)),
            turn_id: sess.ids.uuid(),
            message_id: format!("msg_01{}", sess.ids.alnum(22)),
            start_ms: sess.clock.now_ms(),
            started: now,
            commits: Vec::new(),
            denials: Vec::new(),
            num_turns: 1,
            block: Block::default(),
            tool: None,
            after_tool: false,
            notify_pending: false,
            question: None,
            pacer: Pacer::new(chunks, chosen.chunk_ms),
            chosen,
            prompt_id,
            prompt,
        }
    }

    /// Fires `UserPromptSubmit` and writes the prompt's records.
    pub fn start(&mut self, sess: &mut Session) {
        let payload = sess.payload_user_prompt_submit(&self.prompt_id, &self.prompt);
        sess.fire("UserPromptSubmit", None, &payload);
        let uuid = sess.ids.uuid();
        let mut records = sess.rec_header();
        records.push(sess.rec_file_history(&uuid));
        records.push(sess.rec_user_prompt(&self.prompt_id, uuid, &self.prompt));
        records.extend(sess.rec_attachments());
        records.extend(sess.rec_noise(&self.prompt));
        records.iter().for_each(|r| sess.append(r));
    }

    /// When [`Turn::tick`] should next be called (`None`: only keys move it on).
    pub fn deadline(&self) -> Option<Instant> {
        self.phase.deadline()
    }

    /// True while the busy spinner should show.
    pub fn busy(&self) -> bool {
        self.phase.busy()
    }

    /// The live part of the screen above the input box while busy, or the whole
    /// permission dialog.
    pub fn live(&self, sess: &Session, width: usize, now: Instant) -> Vec<String> {
        if let (Phase::Dialog(_), Some(q)) = (&self.phase, &self.question) {
            return super::question::dialog(width, q);
        }
        if let (Phase::Dialog(cursor), Some(t)) = (&self.phase, &self.tool) {
            return screens::permission_dialog(
                width,
                &t.permission.tool,
                &t.permission.input,
                *cursor,
                sess.mode,
            );
        }
        let mut lines = self.block.live();
        lines.push(String::new());
        lines.push(screens::spinner(
            now.saturating_duration_since(self.started).as_secs(),
        ));
        lines
    }

    /// Advances the timeline when its deadline has passed.
    pub fn tick(&mut self, sess: &mut Session, now: Instant) -> Option<Outcome> {
        match self.phase {
            Phase::Delay(t) if now >= t => {
                sess.clock.advance(self.chosen.delay_ms);
                if let End::ApiError(e) = &self.chosen.end {
                    let (status, text) =
                        (e.status, format!("API Error: {} {}", e.status, e.message));
                    return Some(self.api_error(sess, status, text));
                }
                self.phase = Phase::Stream(now);
                self.tick(sess, now)
            }
            Phase::Stream(t) if now >= t => {
                let (chunk, due) = self.pacer.step(&mut sess.clock, now);
                self.block.push(&chunk);
                self.commits.extend(self.block.take_complete());
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
        if let (End::Permission(p), false) = (&self.chosen.end, self.after_tool) {
            let p = p.clone();
            self.tool_requested(sess, p, now);
            return None;
        }
        if let End::Question(q) = &self.chosen.end
            && self.ask(sess, q.text.clone())
        {
            return None;
        }
        match self.chosen.end.clone() {
            End::Wedge => {
                self.phase = Phase::Wedged;
                None
            }
            End::Crash(n) => {
                self.commits.extend(self.block.take_rest());
                Some(Outcome::Exit(n))
            }
            End::Signal(s) => {
                self.commits.extend(self.block.take_rest());
                Some(Outcome::Signal(s))
            }
            End::SignIn => {
                self.commits.extend(self.block.take_rest());
                Some(Outcome::SignIn)
            }
            _ => Some(self.finish(sess, now)),
        }
    }

    fn finish(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        let text = self.block.text.clone();
        self.commits.extend(self.block.take_rest());
        let secs = ((sess.clock.now_ms() - self.start_ms).max(0) / 1000) as u64;
        self.commits.extend(screens::done_line(
            screens::done_verb(&self.prompt_id),
            secs,
            &sess.clock.twelve_hour(),
        ));
        let display =
            sess.payload_message_display(&self.prompt_id, &self.turn_id, &self.message_id, &text);
        sess.fire("MessageDisplay", None, &display);
        let hook = EndHook {
            event: "Stop",
            payload: sess.payload_stop(&self.prompt_id, &text),
        };
        let late_ms = self.chosen.late_transcript_ms.filter(|ms| *ms > 0);
        if let Some(ms) = late_ms {
            sess.clock.advance(ms);
        }
        let mut records =
            vec![sess.rec_assistant(&self.message_id, text_block(&text), Some("end_turn"), 0)];
        let stop_commands: Vec<String> = sess
            .hooks
            .matching("Stop", None)
            .into_iter()
            .map(|c| c.command)
            .collect();
        if !stop_commands.is_empty() {
            records.push(sess.rec_stop_hook_summary(&stop_commands));
        }
        let duration = (sess.clock.now_ms() - self.start_ms).max(0) as u64;
        records.push(sess.rec_turn_duration(duration));
        records.extend(sess.rec_noise(&self.prompt));
        let late = match late_ms {
            Some(ms) => Some(Late {
                due: now + Duration::from_millis(ms),
                records,
            }),
            None => {
                records.iter().for_each(|r| sess.append(r));
                None
            }
        };
        Outcome::Done {
            hook: Some(hook),
            late,
            text,
            api_error: None,
            interrupted: false,
        }
    }

    fn api_error(&mut self, sess: &mut Session, status: u16, text: String) -> Outcome {
        let mut records = sess.rec_noise(&self.prompt);
        records.push(sess.rec_api_error(status, &text));
        records.iter().for_each(|r| sess.append(r));
        self.commits.extend(screens::answer(&text));
        let display =
            sess.payload_message_display(&self.prompt_id, &self.turn_id, &self.message_id, &text);
        sess.fire("MessageDisplay", None, &display);
        let hook = EndHook {
            event: "StopFailure",
            payload: sess.payload_stop_failure(&self.prompt_id, &text),
        };
        Outcome::Done {
            hook: Some(hook),
            late: None,
            text,
            api_error: Some(status),
            interrupted: false,
        }
    }

    /// Esc (or Ctrl-C) during the turn: keep what was streamed, mark the interruption.
    pub fn interrupt(&mut self, sess: &mut Session) -> Outcome {
        if let (Phase::Dialog(_), Some(_)) = (&self.phase, &self.tool) {
            return self.refuse(sess);
        }
        let text = self.block.text.clone();
        if text.is_empty() && self.tool.is_none() && self.question.is_none() {
            return Outcome::Restored(self.prompt.clone());
        }
        if !text.is_empty() {
            let rec = sess.rec_assistant(&self.message_id, text_block(&text), None, 0);
            sess.append(&rec);
        }
        let rec = sess.rec_interrupted(&self.prompt_id, false);
        sess.append(&rec);
        self.commits.extend(self.block.take_rest());
        self.commits.push(INTERRUPTED_LINE.to_string());
        Outcome::Done {
            hook: None,
            late: None,
            text,
            api_error: None,
            interrupted: true,
        }
    }

    /// A key while this turn runs. Returns an outcome when the key ended it.
    pub fn key(&mut self, sess: &mut Session, key: &Key, now: Instant) -> Option<Outcome> {
        let Phase::Dialog(cursor) = self.phase else {
            return matches!(key, Key::Esc).then(|| self.interrupt(sess));
        };
        if self.question.is_some() {
            return matches!(key, Key::Esc | Key::CtrlC).then(|| self.interrupt(sess));
        }
        match key {
            Key::Up => self.phase = Phase::Dialog(cursor.saturating_sub(1)),
            Key::Down => self.phase = Phase::Dialog((cursor + 1).min(3)),
            Key::Enter if cursor == 3 => return Some(self.refuse(sess)),
            Key::Enter => self.approve(sess, now),
            Key::Text(t) if matches!(t.as_str(), "1" | "2" | "3") => self.approve(sess, now),
            Key::Text(t) if t == "4" => return Some(self.refuse(sess)),
            Key::Esc | Key::CtrlC => return Some(self.refuse(sess)),
            _ => {}
        }
        None
    }
}
