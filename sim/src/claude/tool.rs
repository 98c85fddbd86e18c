//! The permission part of a turn: the tool call, the dialog's answers
//! (approve, refuse), print mode's automatic denial, and the fake tool output.
//! Nothing is ever executed.

use std::time::{Duration, Instant};

use super::ask::QUESTION_TOOL;
use super::notice::{DEFAULT_EVERY_MS, Notice};
use super::question::ELICITATION;
use super::screens::{self, INTERRUPTED_LINE};
use super::session::{Mode, Session};
use super::transcript::{DENIED_DONT_ASK, DENIED_PRINT, REJECTED, text_block, tool_use_block};
use super::turn::{Block, Done, Outcome, Phase, ToolCall, Turn};
use crate::engine::ask::Asking;
use crate::engine::tool::fake_output;
use crate::obj;
use crate::scenario::Permission;

impl Turn {
    /// The model asked for a tool: records, `PreToolUse`, then the dialog
    /// (interactive), an automatic denial (print mode) or a run (bypass mode). The question
    /// tool asks its questions instead ([`super::ask`]), in bypass mode too.
    pub(super) fn tool_requested(&mut self, sess: &mut Session, p: Permission, now: Instant) {
        let asking = (p.tool == QUESTION_TOOL)
            .then(|| Asking::parse(&p.input))
            .flatten();
        let preamble = self.block.text.clone();
        self.core.commits.extend(self.block.take_rest());
        let id = format!("toolu_01{}", sess.ids.alnum(22));
        let rec = sess.rec_assistant(&self.message_id, text_block(&preamble), Some("tool_use"), 0);
        sess.append(&rec);
        let rec = sess.rec_assistant(
            &self.message_id,
            tool_use_block(&id, &p.tool, &p.input),
            Some("tool_use"),
            1,
        );
        let record_uuid = rec.to_value()["uuid"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        sess.append(&rec);
        self.displayed(sess, &preamble);
        let payload = sess.payload_pre_tool_use(&self.prompt_id, &p.tool, &p.input, &id);
        sess.fire("PreToolUse", Some(&p.tool), &payload);
        let tool = p.tool.clone();
        self.tool = Some(ToolCall {
            id,
            record_uuid,
            permission: p,
        });
        if sess.mode == Mode::BypassPermissions && asking.is_none() {
            return self.approve(sess, now);
        }
        // Don't-ask mode refuses at once: no dialog, no PermissionRequest.
        if sess.mode == Mode::DontAsk {
            return self.deny(sess, now, DENIED_DONT_ASK);
        }
        if let Some(t) = &self.tool {
            let input = &t.permission.input;
            let payload = match asking {
                Some(_) => sess.payload_question_request(&self.prompt_id, &tool, input),
                None => sess.payload_permission_request(&self.prompt_id, &tool, input),
            };
            sess.fire("PermissionRequest", Some(&tool), &payload);
        }
        if !sess.interactive {
            return self.deny(sess, now, DENIED_PRINT);
        }
        self.asking = asking;
        self.core.phase = Phase::Dialog(0);
        self.notify_pending = true;
    }

    /// Called once the screen shows the current state: fires a question's
    /// `elicitation_dialog` Notification once it is visible, and the permission dialog's
    /// `permission_prompt` Notification when its timer says ([`super::notice`]).
    pub fn after_draw(&mut self, sess: &mut Session) {
        let now = Instant::now();
        if std::mem::take(&mut self.notify_pending) {
            if let Some(text) = &self.question {
                let payload = sess.payload_notification(&self.prompt_id, text, ELICITATION);
                sess.fire("Notification", Some(ELICITATION), &payload);
                return;
            }
            let startup = &sess.script.scenario.startup;
            let ms = startup.permission_notify_ms.unwrap_or(DEFAULT_EVERY_MS);
            self.notice = Some(Notice::new(Duration::from_millis(ms), now));
        }
        if !self.notice.as_mut().is_some_and(|n| n.fire_at(now)) {
            return;
        }
        self.notice = None;
        let payload = sess.payload_notification(
            &self.prompt_id,
            "Claude needs your permission",
            "permission_prompt",
        );
        sess.fire("Notification", Some("permission_prompt"), &payload);
    }

    /// When the permission dialog's Notification timer looks next (the screen is redrawn then).
    pub fn notice_due(&self) -> Option<Instant> {
        self.notice.as_ref().map(Notice::due)
    }

    /// `1`/`2`/`3` or Enter on a Yes: run the (fake) tool and go on.
    pub(super) fn approve(&mut self, sess: &mut Session, now: Instant) {
        let Some(t) = self.tool.take() else { return };
        let p = &t.permission;
        let output = p
            .output
            .clone()
            .unwrap_or_else(|| fake_output(p.tool == "Bash", &p.input));
        self.core
            .commits
            .extend(screens::tool_call(&p.tool, &p.input, &output));
        let payload =
            sess.payload_post_tool_use(&self.prompt_id, &p.tool, &p.input, &output, &t.id);
        sess.fire("PostToolUse", Some(&p.tool), &payload);
        let rec = sess.rec_tool_result(&self.prompt_id, &t.id, &output, None, &t.record_uuid);
        sess.append(&rec);
        let payload =
            sess.payload_post_tool_batch(&self.prompt_id, &p.tool, &p.input, &output, &t.id);
        sess.fire("PostToolBatch", None, &payload);
        self.continue_after_tool(sess, now);
    }

    /// Refused without asking (print mode, don't-ask mode): the refusal is the tool's result
    /// and the model goes on.
    fn deny(&mut self, sess: &mut Session, now: Instant, message: &str) {
        let Some(t) = self.tool.take() else { return };
        let p = &t.permission;
        let text = message.replace("{tool}", &p.tool);
        self.core.commits.extend(screens::tool_call(
            &p.tool,
            &p.input,
            &format!("Error: {text}"),
        ));
        let rec = sess.rec_tool_result(&self.prompt_id, &t.id, "", Some(&text), &t.record_uuid);
        sess.append(&rec);
        self.denials.push(obj! { "tool_name" => p.tool.as_str(), "tool_use_id" => t.id.as_str(), "tool_input" => &p.input });
        self.continue_after_tool(sess, now);
    }

    pub(super) fn continue_after_tool(&mut self, sess: &mut Session, now: Instant) {
        self.num_turns += 1;
        self.message_id = format!("msg_01{}", sess.ids.alnum(22));
        self.block = Block::default();
        self.core.resume(now);
    }

    /// `4`, Esc or Ctrl-C in the dialog: the real CLI's refusal (no Stop). In the question
    /// dialog, Esc or Ctrl-C declines: the same records, another screen ([`Turn::declined`]).
    pub(super) fn refuse(&mut self, sess: &mut Session) -> Outcome {
        let Some(t) = self.tool.take() else {
            return self.interrupt(sess);
        };
        let p = &t.permission;
        let rec = sess.rec_tool_result(&self.prompt_id, &t.id, "", Some(REJECTED), &t.record_uuid);
        sess.append(&rec);
        let rec = sess.rec_interrupted(&self.prompt_id, true);
        sess.append(&rec);
        if let Some(asking) = self.asking.take() {
            return self.declined(&asking);
        }
        let mut lines = screens::tool_call(&p.tool, &p.input, "");
        lines.pop();
        self.core.commits.extend(lines);
        self.core.commits.push(INTERRUPTED_LINE.to_string());
        Outcome::Done(Done {
            interrupted: true,
            ..Done::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_before_a_bash_call_says_it_runs_a_command() {
        assert_eq!(screens::preamble("Bash"), "I will run a command.");
    }
}
