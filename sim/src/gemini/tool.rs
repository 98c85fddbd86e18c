//! The tool part of a turn: the model's function call, `BeforeTool`, the
//! confirmation (or yolo), `AfterTool`, and the chat's upsert of the gemini
//! record with its `toolCalls`. Nothing is ever executed.

use std::time::Instant;

use serde_json::Value;

use super::boxes;
use super::chat::{function_response, history_form, result_display, token_counts, tokens};
use super::cli::ApprovalMode;
use super::payloads::confirmation_details;
use super::session::Session;
use super::turn::{Event, Phase, ToolCall, Turn};
use crate::engine::ask::Asking;
use crate::engine::tool::fake_output;
use crate::json::{J, Obj};
use crate::obj;
use crate::scenario::Permission;

/// What the refused call answers.
pub const REFUSED: &str = "[Operation Cancelled] Reason: User did not allow tool call";

/// Tools `gemini -p` does not offer the model (0.61.0, compared with `--yolo`'s tool list):
/// in `default` mode all of these, in `auto_edit` those that are not edits.
pub const HEADLESS_EXCLUDED: &[&str] = &[
    "run_shell_command",
    "activate_skill",
    "list_background_processes",
    "read_background_output",
    "write_file",
    "replace",
    "web_fetch",
];

/// Scenario tool names mapped to Gemini's: `Bash`/`Shell` → `run_shell_command`.
pub fn tool_names(tool: &str) -> (String, String) {
    match tool {
        "Bash" | "Shell" | "shell" | "run_shell_command" => {
            ("run_shell_command".into(), "Shell".into())
        }
        "ask_user" => ("ask_user".into(), "Ask User".into()),
        "ask_user_question" => ("ask_user_question".into(), "AskUserQuestion".into()),
        other => (other.to_string(), other.to_string()),
    }
}

impl Turn {
    /// The model asked for a tool: the empty gemini record, `BeforeTool`,
    /// then the confirmation — or, in yolo mode, the run.
    pub(super) fn tool_requested(&mut self, sess: &mut Session, p: Permission, now: Instant) {
        let (name, display) = tool_names(&p.tool);
        let call_id = format!("{name}__{name}_{}_0", sess.clock.now_ms());
        let (input_tokens, output_tokens) = token_counts(&self.prompt, "");
        sess.stats.input += input_tokens;
        sess.stats.output += output_tokens;
        let record = sess.gemini_record("", None, tokens(input_tokens, output_tokens));
        if super::flavor::qwen() {
            sess.qwen.call = Some((call_id.clone(), name.clone(), p.input.clone()));
        }
        sess.chat_gemini(&record, false);
        self.events.push(Event::ToolUse {
            name: name.clone(),
            id: call_id.clone(),
            params: p.input.clone(),
        });
        if !sess.excluded_tools.contains(&name) {
            if super::flavor::qwen() {
                // Qwen Code fires `PreToolUse` once the call is allowed, just before it runs
                // ([`Turn::approve`]); its `PermissionRequest` names the call meanwhile.
                sess.qwen.asking = Some((name.clone(), p.input.clone()));
            } else {
                let payload = sess.payload_before_tool(&name, &p.input);
                sess.fire("BeforeTool", Some(&name), &payload);
            }
        }
        self.tool = Some(ToolCall {
            input: p.input,
            output: p.output,
            name,
            display,
            call_id,
            record,
        });
        if self
            .tool
            .as_ref()
            .is_some_and(|t| sess.excluded_tools.contains(&t.name))
        {
            self.unknown_tool(sess, now);
            return;
        }
        let asking = self.tool.as_ref().and_then(|t| {
            let question = sess.interactive && t.name == super::ask::question_tool();
            question.then(|| Asking::parse(&t.input)).flatten()
        });
        if sess.mode == ApprovalMode::Yolo && asking.is_none() {
            sess.stats.auto_accepted += 1;
            self.approve(sess, now);
            return;
        }
        self.asking = asking;
        self.core.phase = Phase::Dialog(0);
        self.notify_pending = true;
    }

    /// The confirmation box (live region while waiting).
    pub fn confirm_lines(&self) -> Vec<String> {
        if let Some(lines) = self.ask_lines() {
            return lines;
        }
        match (&self.core.phase, &self.tool) {
            (Phase::Dialog(cursor), Some(t)) => {
                let mut lines = vec![String::new(), String::new()];
                lines.extend(boxes::confirm(self.width, &t.display, &t.input, *cursor));
                lines
            }
            _ => Vec::new(),
        }
    }

    /// Called once the screen shows the confirmation: fires `Notification`.
    pub fn after_draw(&mut self, sess: &mut Session) {
        if !std::mem::take(&mut self.notify_pending) {
            return;
        }
        if let Some(t) = &self.tool {
            let payload = match &self.asking {
                Some(_) => sess.payload_ask_notification(),
                None => {
                    let (title, details) = confirmation_details(&t.name, &t.display, &t.input);
                    sess.payload_notification(&title, details)
                }
            };
            sess.fire("Notification", Some("ToolPermission"), &payload);
        }
    }

    fn tool_call(t: &ToolCall, status: &str, response: Obj, display: J, ts: String) -> Obj {
        let description = t
            .input
            .get("command")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| serde_json::to_string(&t.input).unwrap_or_default());
        obj! {
            "id" => t.call_id.as_str(),
            "name" => t.name.as_str(),
            "args" => &t.input,
            "result" => vec![function_response(&t.call_id, &t.name, response)],
            "status" => status,
            "timestamp" => ts,
            "resultDisplay" => display,
            "description" => description,
            "displayName" => t.display.as_str(),
            "renderOutputAsMarkdown" => false,
        }
    }

    /// `1`, `2`, Enter on an Allow, or yolo: run the (fake) tool and go on.
    pub(super) fn approve(&mut self, sess: &mut Session, now: Instant) {
        let Some(t) = self.tool.take() else { return };
        if matches!(self.core.phase, Phase::Dialog(_)) {
            sess.stats.accepted += 1;
        }
        if super::flavor::qwen() {
            let payload = sess.payload_before_tool(&t.name, &t.input);
            sess.fire("BeforeTool", Some(&t.name), &payload);
        }
        let output = t
            .output
            .clone()
            .unwrap_or_else(|| fake_output(t.name == "run_shell_command", &t.input));
        let llm = if t.name == "run_shell_command" {
            let pgid = 10_000 + sess.ids.pick(50_000);
            format!(
                "<untrusted_context>\nOutput: {output}\nProcess Group PGID: {pgid}\n</untrusted_context>"
            )
        } else {
            output.clone()
        };
        let payload = sess.payload_after_tool(&t.name, &t.input, &llm, &output);
        sess.fire("AfterTool", Some(&t.name), &payload);
        self.core.commits.extend(boxes::tool_done(
            self.width,
            &t.display,
            &t.input,
            Some(&output),
        ));
        let response = obj! { "output" => llm.as_str() };
        self.call_answered(
            sess,
            &t,
            "success",
            response,
            result_display(&output),
            output,
            now,
        );
    }

    /// The call's result goes into the chat (the gemini record's `toolCalls`, the user's
    /// function response) and the events, and the model goes on.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call_answered(
        &mut self,
        sess: &mut Session,
        t: &ToolCall,
        status: &str,
        response: Obj,
        display: J,
        output: String,
        now: Instant,
    ) {
        let ts = sess.clock.stamp();
        let call = Self::tool_call(t, status, response.clone(), display, ts);
        let mut rec = t.record.clone();
        rec.set("toolCalls", vec![call.clone()]);
        sess.chat_gemini(&rec, true);
        self.pending.push(history_form(&rec, &[call]));
        let fr = function_response(&t.call_id, &t.name, response);
        let user = sess.chat_user(vec![fr]);
        self.pending.push(user);
        self.events.push(Event::ToolResult {
            id: t.call_id.clone(),
            status: status.into(),
            output,
        });
        sess.stats.tool_done(&t.name, status == "success");
        sess.stats.requests += 1;
        self.resume(now);
    }

    /// A call to a tool the model was not offered (`tools.exclude`, or what `-p` leaves out
    /// without `--yolo`): it fails as unknown, nothing asks, and the model goes on.
    fn unknown_tool(&mut self, sess: &mut Session, now: Instant) {
        let Some(t) = self.tool.take() else { return };
        let error = format!(
            "Tool \"{}\" not found in registry. Tools must use the exact names that are registered.",
            t.name
        );
        let response = obj! { "error" => error.as_str() };
        let display = J::from(error.as_str());
        self.call_answered(sess, &t, "error", response, display, error, now);
    }

    /// `3`, Esc or Ctrl+C in the confirmation: the call is recorded as
    /// cancelled (and the turn ends, [`Turn::refuse`]).
    pub(super) fn refuse_tool(&mut self, sess: &mut Session) {
        let Some(t) = self.tool.take() else { return };
        let ts = sess.clock.stamp();
        let call = Self::tool_call(
            &t,
            "cancelled",
            obj! { "error" => REFUSED },
            J::from("User did not allow tool call"),
            ts,
        );
        let mut rec = t.record.clone();
        rec.set("toolCalls", vec![call]);
        sess.chat_gemini(&rec, true);
        let lines = match self.asking.take() {
            Some(asking) => Turn::declined_lines(&asking),
            None => boxes::tool_done(self.width, &t.display, &t.input, None),
        };
        self.core.commits.extend(lines);
        sess.stats.tool_done(&t.name, false);
        sess.stats.rejected += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_tool_names_map_to_geminis() {
        assert_eq!(
            tool_names("Bash"),
            ("run_shell_command".into(), "Shell".into())
        );
        assert_eq!(
            tool_names("read_file"),
            ("read_file".into(), "read_file".into())
        );
    }
}
