//! One turn's timeline, shared by the TUI and print mode.
//!
//! A [`Turn`] is a small state machine: the caller asks for its next
//! [`Turn::deadline`], calls [`Turn::tick`] when it passes and
//! [`Turn::key`] on key presses. Side effects (transcript records, hooks) go
//! through the [`Session`]; lines to add to the screen's history collect in
//! `commits`. The end-of-turn hook is handed back in [`Outcome`] so the TUI
//! can draw the idle screen before firing it.

use std::time::Instant;

use super::screens::{self, INTERRUPTED_LINE};
use super::session::Session;
use super::transcript::{text_block, thinking_block};
use crate::engine::ask::Asking;
use crate::engine::menu::{Choice, Menu};
use crate::engine::timeline::{self, Core, Step, Timeline};
use crate::json::Obj;
use crate::keys::Key;
use crate::scenario::{End, Permission};

/// The answer being streamed, `●` first.
pub type Block = crate::stream::Stream<'●'>;

pub use crate::engine::timeline::{EndHook, Late, Phase};

/// What a finished turn hands back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Done {
    /// Hook to fire after drawing idle.
    pub hook: Option<EndHook>,
    /// Records to write later.
    pub late: Option<Late>,
    /// The final text (reply, or the API error text).
    pub text: String,
    /// `Some(status)` for an API error.
    pub api_error: Option<u16>,
    /// True when interrupted (Esc, refusal).
    pub interrupted: bool,
    /// Esc before any text: the prompt to put back into the input box, nothing
    /// recorded and no hook fired (as 2.1.332 does while it waits for the model).
    pub restored: Option<String>,
}

/// How a turn ended.
pub type Outcome = crate::engine::timeline::Outcome<Done>;

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
    /// Phase, pacing, history lines.
    pub core: Core,
    /// Tools denied in print mode (`permission_denials`).
    pub denials: Vec<Obj>,
    /// Model round trips (for print mode's `num_turns`).
    pub num_turns: u64,
    pub(super) turn_id: String,
    pub(super) block: Block,
    pub(super) message_id: String,
    pub(super) tool: Option<ToolCall>,
    pub(super) notify_pending: bool,
    /// The permission dialog's Notification timer, once the dialog shows.
    pub(super) notice: Option<super::notice::Notice>,
    pub(super) question: Option<String>,
    /// The question tool's dialog, when the tool asked is `AskUserQuestion` ([`super::ask`]).
    pub(super) asking: Option<Asking>,
    /// `UserPromptSubmit` already fired (the TUI fires it before its redraw).
    pub(super) submit_fired: bool,
}

impl Turn {
    /// Picks the scenario turn for `prompt`; nothing happens until [`Turn::start`].
    pub fn new(sess: &mut Session, prompt: String, now: Instant) -> Turn {
        let chosen = sess.script.select(&prompt);
        chosen.write_files();
        let prompt_id = sess.ids.uuid();
        sess.last_prompt_id = Some(prompt_id.clone());
        let chunks = match &chosen.end {
            End::Permission(p) => vec![screens::preamble(&p.tool)],
            _ => chosen.chunks(),
        };
        Turn {
            turn_id: sess.ids.uuid(),
            message_id: format!("msg_01{}", sess.ids.alnum(22)),
            core: Core::new(chosen, chunks, now, sess.clock.now_ms()),
            denials: Vec::new(),
            num_turns: 1,
            block: Block::default(),
            tool: None,
            notify_pending: false,
            notice: None,
            question: None,
            asking: None,
            submit_fired: false,
            prompt_id,
            prompt,
        }
    }

    /// Fires `UserPromptSubmit` now, while the input line still shows the prompt (the TUI,
    /// before it redraws); [`Timeline::start`] then does not fire it again.
    pub fn fire_submit(&mut self, sess: &mut Session) {
        let payload = sess.payload_user_prompt_submit(&self.prompt_id, &self.prompt);
        sess.fire("UserPromptSubmit", None, &payload);
        self.submit_fired = true;
    }

    /// The live part of the screen above the input box while busy, or the whole
    /// permission dialog.
    pub fn live(&self, sess: &Session, width: usize, now: Instant) -> Vec<String> {
        if let (Phase::Dialog(_), Some(q)) = (&self.core.phase, &self.question) {
            return screens::question(width, q);
        }
        if let Some(lines) = self.ask_lines(width) {
            return lines;
        }
        if let (Phase::Dialog(cursor), Some(t)) = (&self.core.phase, &self.tool) {
            return screens::permission_dialog(
                width,
                &t.permission.tool,
                &t.permission.input,
                *cursor,
                (sess.mode, &sess.cwd),
            );
        }
        let mut lines = self.block.live();
        lines.push(String::new());
        lines.push(screens::spinner(
            now.saturating_duration_since(self.core.started).as_secs(),
        ));
        lines
    }

    /// Advances the timeline when its deadline has passed.
    pub fn tick(&mut self, sess: &mut Session, now: Instant) -> Option<Outcome> {
        timeline::tick(self, sess, now)
    }

    /// Fires `MessageDisplay` for a text block shown in full.
    pub(super) fn displayed(&self, sess: &mut Session, text: &str) {
        let payload =
            sess.payload_message_display(&self.prompt_id, &self.turn_id, &self.message_id, text);
        sess.fire("MessageDisplay", None, &payload);
    }

    fn answer(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        let text = self.block.text.clone();
        self.core.commits.extend(self.block.take_rest());
        let secs = ((sess.clock.now_ms() - self.core.start_ms).max(0) / 1000) as u64;
        self.core.commits.extend(screens::done_line(
            screens::done_verb(&self.prompt_id),
            secs,
            &sess.clock.twelve_hour(),
        ));
        self.displayed(sess, &text);
        let hook = EndHook {
            event: "Stop",
            payload: sess.payload_stop(&self.prompt_id, &text),
        };
        let late_ms = self.core.late_ms(&mut sess.clock);
        // The model's thinking: its own record before the text's, as claude writes it.
        let thought = self.core.chosen.thinking.clone();
        let mut records: Vec<_> = thought
            .map(|t| sess.rec_assistant(&self.message_id, thinking_block(&t), Some("end_turn"), 0))
            .into_iter()
            .collect();
        records.push(sess.rec_assistant(&self.message_id, text_block(&text), Some("end_turn"), 0));
        let stop_commands = sess.hooks.commands("Stop");
        if !stop_commands.is_empty() {
            records.push(sess.rec_stop_hook_summary(&stop_commands));
        }
        let duration = (sess.clock.now_ms() - self.core.start_ms).max(0) as u64;
        records.push(sess.rec_turn_duration(duration));
        records.extend(sess.rec_noise(&self.prompt));
        let late = timeline::hold(late_ms, now, records, |r| {
            r.iter().for_each(|r| sess.append(r))
        });
        Outcome::Done(Done {
            hook: Some(hook),
            late,
            text,
            ..Done::default()
        })
    }

    fn api_error(&mut self, sess: &mut Session, status: u16, text: String) -> Outcome {
        let mut records = sess.rec_noise(&self.prompt);
        records.push(sess.rec_api_error(status, &text));
        records.iter().for_each(|r| sess.append(r));
        self.core.commits.extend(screens::answer(&text));
        self.displayed(sess, &text);
        let hook = EndHook {
            event: "StopFailure",
            payload: sess.payload_stop_failure(&self.prompt_id, &text),
        };
        Outcome::Done(Done {
            hook: Some(hook),
            late: None,
            text,
            api_error: Some(status),
            ..Done::default()
        })
    }

    /// Esc (or Ctrl-C) during the turn: keep what was streamed, mark the interruption.
    pub fn interrupt(&mut self, sess: &mut Session) -> Outcome {
        if let (Phase::Dialog(_), Some(_)) = (&self.core.phase, &self.tool) {
            return self.refuse(sess);
        }
        let text = self.block.text.clone();
        if text.is_empty() && self.tool.is_none() && self.question.is_none() {
            return Outcome::Done(Done {
                restored: Some(self.prompt.clone()),
                ..Done::default()
            });
        }
        if !text.is_empty() {
            let rec = sess.rec_assistant(&self.message_id, text_block(&text), None, 0);
            sess.append(&rec);
        }
        let rec = sess.rec_interrupted(&self.prompt_id, false);
        sess.append(&rec);
        self.core.commits.extend(self.block.take_rest());
        self.core.commits.push(INTERRUPTED_LINE.to_string());
        Outcome::Done(Done {
            hook: None,
            late: None,
            text,
            interrupted: true,
            ..Done::default()
        })
    }

    /// A key while this turn runs. Returns an outcome when the key ended it.
    pub fn key(&mut self, sess: &mut Session, key: &Key, now: Instant) -> Option<Outcome> {
        if !matches!(self.core.phase, Phase::Dialog(_)) {
            return matches!(key, Key::Esc).then(|| self.interrupt(sess));
        }
        if self.question.is_some() {
            return matches!(key, Key::Esc | Key::CtrlC).then(|| self.interrupt(sess));
        }
        if let Some(notice) = self.notice.as_mut() {
            notice.key(now);
        }
        if self.asking.is_some() {
            return self.ask_key(sess, key, now);
        }
        let choice = self.core.menu_key(&PERMISSION_MENU, key)?;
        self.notice = None;
        match choice {
            Choice::Refuse => Some(self.refuse(sess)),
            _ => {
                self.approve(sess, now);
                None
            }
        }
    }
}

/// The permission dialog: Yes, Yes for the session, Yes and don't ask, No.
const PERMISSION_MENU: Menu = Menu {
    last: 3,
    hotkeys: &[("1", 0), ("2", 1), ("3", 2), ("4", 3)],
    ctrl_c_refuses: true,
};

impl Timeline for Turn {
    crate::timeline_parts!(Session);

    /// Fires `UserPromptSubmit` and writes the prompt's records.
    fn start(&mut self, sess: &mut Session) {
        if !self.submit_fired {
            self.fire_submit(sess);
        }
        let uuid = sess.ids.uuid();
        let mut records = sess.rec_header();
        records.push(sess.rec_file_history(&uuid));
        records.push(sess.rec_user_prompt(&self.prompt_id, uuid, &self.prompt));
        records.extend(sess.rec_attachments());
        records.extend(sess.rec_noise(&self.prompt));
        records.iter().for_each(|r| sess.append(r));
    }

    fn delay_over(&mut self, sess: &mut Session, _now: Instant) -> Step<Outcome> {
        let End::ApiError(e) = &self.core.chosen.end else {
            return None;
        };
        let (status, text) = (e.status, format!("API Error: {} {}", e.status, e.message));
        Some(Some(self.api_error(sess, status, text)))
    }

    fn chunk(&mut self, chunk: String) {
        self.block.push(&chunk);
        self.core.commits.extend(self.block.take_complete());
    }

    fn commit_rest(&mut self) {
        self.core.commits.extend(self.block.take_rest());
    }

    fn text_over(&mut self, sess: &mut Session, now: Instant) -> Step<Outcome> {
        match &self.core.chosen.end {
            End::Permission(p) if !self.core.after_tool => {
                let p = p.clone();
                self.tool_requested(sess, p, now);
                Some(None)
            }
            End::Question(q) => {
                let q = q.text.clone();
                self.ask(sess, q).then_some(None)
            }
            _ => None,
        }
    }

    fn finish(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        self.answer(sess, now)
    }
}
