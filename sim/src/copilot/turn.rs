//! One turn on the engine's timeline, shared by the TUI and `-p`, with the session-log events,
//! hooks and screen blocks copilot 1.0.102 gives it (`copilot-1.0.102-events.jsonl`):
//!
//! - start: `SessionStart` (first prompt only; 1.0.89 fires it after the user message), the
//!   `UserPromptSubmit` hook, `user.message` (`system.message` once), `assistant.turn_start`;
//! - an answer: `session.usage_record`, `assistant.message`, `assistant.turn_end`, then the
//!   `Stop` hook once the screen is idle;
//! - an API error (`api_error`, `usage_limit`): `assistant.turn_end`, `session.error`, ` ✗ …`
//!   on the screen, no hook;
//! - Esc Esc (or Ctrl-C) while it runs: `assistant.turn_end`, `abort` (`user_abort`),
//!   ` ● Operation cancelled by user`, no hook (the streamed text stays on the screen, not in
//!   the log);
//! - Esc Esc before the model answered (no text, no tool call; 1.0.102,
//!   `copilot-1.0.102-esc-before-text.txt`): the turn is taken back ([`Turn::take_back`]) — the
//!   log loses every event written since the turn started, the prompt goes back into the input
//!   line, no hook (the ones fired at the start stay fired);
//! - a tool call ([`super::tool`]): the permission dialog, and a second model call (`turnId`
//!   `1`) after it.

use std::time::Instant;

use super::ephemeral;
use super::log::Mark;
use super::payloads;
use super::records::{self, Answer, Call, Exchange, Usage};
use super::release::Copilot;
use super::screens;
use super::session::Session;
use crate::engine::host::Host;
use crate::engine::timeline::{self, Core, Late, Step, Timeline};
use crate::json::Obj;
use crate::scenario::End;

/// How a finished turn ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Done {
    /// `Stop` fires (once the screen is idle).
    pub stop: bool,
    /// Events written after it (`late_transcript_ms`).
    pub late: Option<Late>,
    /// The answer.
    pub text: String,
    /// A failed model call: `<status> <message>`.
    pub error: Option<String>,
    /// Stopped by the person (Esc Esc, Esc on a permission dialog).
    pub cancelled: bool,
    /// Taken back before the model answered (Esc Esc): the prompt, to put back into the input
    /// line; nothing of the turn is left in the log and no hook fires.
    pub restored: Option<String>,
}

/// How a turn ended.
pub type Outcome = timeline::Outcome<Done>;

/// A running turn.
pub struct Turn {
    /// The prompt.
    pub prompt: String,
    /// Phase, pacing, screen lines to keep.
    pub core: Core,
    /// The answer streamed so far.
    pub text: String,
    /// The prompt's ids.
    pub x: Exchange,
    /// The model call (`turnId`): 0, then 1 after a tool.
    pub turn: u32,
    /// The tool call asked for.
    pub call: Option<Call>,
    /// The permission `Notification` waits for the dialog to be drawn.
    pub notify: bool,
    /// What a decision hook that refused the tool told the model.
    pub(super) refusal: Option<String>,
    /// The answer message's id (empty until its text starts).
    pub(super) answer_id: String,
    /// Streamed chunks not announced yet (`assistant.message_delta`).
    pub(super) deltas: Vec<String>,
    /// When the current model call started (virtual ms).
    pub(super) call_at: i64,
    /// The screen's width (the blocks are laid out for it).
    pub width: usize,
    /// Where the session log stood when the turn started (a take-back goes back there).
    mark: Mark,
    /// The system prompt was in the log before the turn started.
    system_before: bool,
}

impl Turn {
    /// Picks the scenario turn for `prompt`; nothing happens until [`Timeline::start`].
    pub fn new(sess: &mut Session, prompt: String, now: Instant) -> Turn {
        let chosen = sess.script.select(&prompt);
        chosen.write_files();
        // A tool call comes before any text (recorded: the call's message has no content).
        let chunks = match &chosen.end {
            End::Permission(_) => Vec::new(),
            _ => chosen.chunks(),
        };
        let x = Exchange {
            message: sess.uuid(),
            interaction: sess.uuid(),
            task: sess.uuid(),
        };
        Turn {
            core: Core::new(chosen, chunks, now, sess.clock.now_ms()),
            text: String::new(),
            x,
            turn: 0,
            call: None,
            notify: false,
            refusal: None,
            answer_id: String::new(),
            deltas: Vec::new(),
            call_at: sess.clock.now_ms(),
            width: crate::term::size().0,
            mark: Mark::default(),
            system_before: false,
            prompt,
        }
    }

    /// What the screen shows of the turn under its prompt: the text so far, a tool asked for.
    pub fn live(&self, sess: &Session) -> Vec<String> {
        let mut rows = Vec::new();
        if !self.text.is_empty() {
            rows.extend(screens::answer(&self.text, self.width));
        }
        if let (timeline::Phase::Dialog(_), Some(call)) = (&self.core.phase, &self.call) {
            rows.extend(screens::tool(
                call,
                screens::ToolState::Asked,
                sess.who.release,
            ));
        }
        rows
    }

    /// Announces the streamed chunks (`-p --output-format json` prints them).
    pub fn flush_deltas(&mut self, sess: &mut Session) {
        for chunk in std::mem::take(&mut self.deltas) {
            let data = ephemeral::message_delta(&self.answer_id, &chunk);
            sess.ephemeral("assistant.message_delta", data);
        }
    }

    /// The answer's text starts: its message id.
    pub(super) fn open_answer(&mut self, sess: &mut Session) {
        if self.answer_id.is_empty() {
            self.answer_id = sess.uuid();
            let data = ephemeral::message_start(&self.answer_id);
            sess.ephemeral("assistant.message_start", data);
        }
    }

    /// A model call's accounting (`tool`: the call it asked for); its `session.usage_record`
    /// data when the release writes one.
    pub(super) fn usage(
        &mut self,
        sess: &mut Session,
        tool: Option<&Call>,
    ) -> (Option<Obj>, String) {
        let api_call = format!("chatcmpl-{}", sess.ids.alnum(24));
        let asked = tool.map_or_else(|| self.text.clone(), |c| c.input.to_string());
        let context = self.call.as_ref().map(Call::result).unwrap_or_default();
        let u = Usage {
            input: 320 + records::tokens(&self.prompt) + records::tokens(&context),
            output: records::tokens(&asked),
            duration: (sess.clock.now_ms() - self.call_at).max(1) as u64,
            sequence: sess.totals.requests + 1,
            api_call: api_call.clone(),
            tool: tool.map(|c| c.name.clone()),
            initiator: if self.turn == 0 { "user" } else { "agent" },
        };
        let t = &mut sess.totals;
        (t.input, t.output, t.requests, t.api_ms) = (
            t.input + u.input,
            t.output + u.output,
            t.requests + 1,
            t.api_ms + u.duration,
        );
        let data = sess.who.release.has(Copilot::UsageRecords);
        (data.then(|| records::usage_record(&sess.who, &u)), api_call)
    }

    /// The answer is complete: its events (held back with `late_transcript_ms`), its block.
    fn answer(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        self.flush_deltas(sess);
        let (usage, api_call) = self.usage(sess, None);
        let ms = (sess.clock.now_ms() - self.call_at).max(1) as u64;
        sess.ephemeral(
            "model.call_finished",
            ephemeral::call_finished(self.turn, &self.x, ms, true),
        );
        let late_ms = self.core.late_ms(&mut sess.clock);
        let mut drafts: Vec<Obj> = usage
            .map(|u| sess.draft("session.usage_record", u))
            .into_iter()
            .collect();
        let a = Answer {
            id: &self.answer_id,
            content: &self.text,
            calls: Vec::new(),
            turn: self.turn,
            api_call: &api_call,
            reasoning: self.core.chosen.thinking.as_deref(),
        };
        let data = records::assistant_message(&sess.who, &self.x, &a);
        drafts.push(sess.draft("assistant.message", data));
        let end = sess.draft("assistant.turn_end", records::turn_end(self.turn));
        let result = ephemeral::call_final_result(&sess.who, None);
        let late = match late_ms {
            Some(_) => {
                sess.ephemeral("model.call_final_result", result);
                drafts.push(end);
                timeline::hold(late_ms, now, drafts, |_| {})
            }
            None => {
                sess.write(&drafts);
                sess.ephemeral("model.call_final_result", result);
                sess.write(&[end]);
                None
            }
        };
        self.core
            .commits
            .extend(screens::answer(&self.text, self.width));
        Outcome::Done(Done {
            stop: true,
            late,
            text: self.text.clone(),
            ..Done::default()
        })
    }

    /// The model call fails with `status`: `session.error`, ` ✗ <status> <message>`.
    fn fail(&mut self, sess: &mut Session, status: u16, message: &str) -> Outcome {
        let ms = (sess.clock.now_ms() - self.call_at).max(1) as u64;
        let failure = ephemeral::call_failure(&sess.who, status, message, ms);
        sess.ephemeral("model.call_failure", failure);
        sess.ephemeral(
            "model.call_finished",
            ephemeral::call_finished(self.turn, &self.x, ms, false),
        );
        let result = ephemeral::call_final_result(&sess.who, Some(status));
        sess.ephemeral("model.call_final_result", result);
        sess.record("assistant.turn_end", records::turn_end(self.turn));
        let text = format!("{status} {message}");
        let data = records::session_error(&sess.who, status, &text, &self.x);
        sess.record("session.error", data);
        self.core.commits.extend(screens::error(&text, self.width));
        Outcome::Done(Done {
            error: Some(text),
            ..Done::default()
        })
    }

    /// Esc Esc (or Ctrl-C) while the turn runs; on a permission dialog, a refusal.
    pub fn cancel(&mut self, sess: &mut Session) -> Outcome {
        if matches!(self.core.phase, timeline::Phase::Dialog(_)) && self.call.is_some() {
            return self.refuse(sess);
        }
        self.flush_deltas(sess);
        sess.record("assistant.turn_end", records::turn_end(self.turn));
        sess.record("abort", records::abort("user_abort"));
        if !self.text.is_empty() {
            self.core
                .commits
                .extend(screens::answer(&self.text, self.width));
        }
        self.core.commits.extend(screens::cancelled());
        Outcome::Done(Done {
            text: self.text.clone(),
            cancelled: true,
            ..Done::default()
        })
    }

    /// True while Esc Esc takes the turn back rather than interrupting it: the model has not
    /// answered yet (no text, no tool call asked for) and the release does so.
    pub fn takes_back(&self, sess: &Session) -> bool {
        sess.who.release.has(Copilot::EditPrompt)
            && self.answer_id.is_empty()
            && self.text.is_empty()
            && self.call.is_none()
            && !self.core.after_tool
    }

    /// Esc Esc before the model answered: the turn is taken back. The session log is rewritten
    /// without the events written since the turn started — the `sessionStart` (first prompt)
    /// and `userPromptSubmitted` hooks' `hook.start`/`hook.end`, `user.message`,
    /// `system.message` (first prompt; written again with the next one) and
    /// `assistant.turn_start` — and the next event chains to the last one kept. No hook fires;
    /// the hooks fired at the start are not undone. The prompt goes back to the input line.
    pub fn take_back(&mut self, sess: &mut Session) -> Outcome {
        sess.log.rewind(&self.mark, &mut sess.fatal);
        sess.system_sent = self.system_before;
        sess.totals.prompts = sess.totals.prompts.saturating_sub(1);
        // It never answered: no turn of its own follows it.
        self.core.chosen.then_self = None;
        Outcome::Done(Done {
            restored: Some(self.prompt.clone()),
            ..Done::default()
        })
    }

    /// The scenario's usage limit, as copilot would fail on it (not recorded).
    fn limit_message(retry_at: &str) -> String {
        format!("You have exceeded your usage limit. It resets at {retry_at}.")
    }
}

impl Timeline for Turn {
    crate::timeline_parts!(Session);

    /// The prompt's hooks and events, in the release's order.
    fn start(&mut self, sess: &mut Session) {
        sess.totals.prompts += 1;
        sess.log.open(&mut sess.fatal);
        self.mark = sess.log.mark();
        self.system_before = sess.system_sent;
        let first = sess.who.release.has(Copilot::SessionStartFirst);
        if first {
            sess.start(&self.prompt);
        }
        let hook = payloads::user_prompt_submit(&sess.ctx(), &self.prompt);
        sess.fire(hook);
        let at = sess.clock.iso();
        sess.record(
            "user.message",
            records::user_message(&self.x, &self.prompt, &at),
        );
        if !sess.system_sent {
            sess.system_sent = true;
            sess.record("system.message", records::system_message(&self.x));
        }
        if !first {
            sess.start(&self.prompt);
        }
        sess.record("assistant.turn_start", records::turn_start(0, &self.x));
        sess.ephemeral("model.call_start", ephemeral::call_start(&sess.who, 0));
        self.call_at = sess.clock.now_ms();
    }

    fn delay_over(&mut self, sess: &mut Session, now: Instant) -> Step<Outcome> {
        match self.core.chosen.end.clone() {
            End::ApiError(e) => Some(Some(self.fail(sess, e.status, &e.message))),
            End::UsageLimit(u) => Some(Some(self.fail(
                sess,
                429,
                &Turn::limit_message(&u.retry_at),
            ))),
            End::Permission(p) if !self.core.after_tool => self.ask(sess, &p, now),
            _ => None,
        }
    }

    fn text_starts(&mut self, sess: &mut Session) {
        self.open_answer(sess);
    }

    fn chunk(&mut self, chunk: String) {
        self.text.push_str(&chunk);
        self.deltas.push(chunk);
    }

    fn commit_rest(&mut self) {
        if !self.text.is_empty() {
            self.core
                .commits
                .extend(screens::answer(&self.text, self.width));
        }
    }

    fn finish(&mut self, sess: &mut Session, now: Instant) -> Outcome {
        self.answer(sess, now)
    }
}
