//! Hook payloads, field for field as Claude Code 2.1.332 sends them
//! (`fixtures/samples/claude-2.1.332-hook-payloads.jsonl`).

use serde_json::Value;

use super::session::Session;
use crate::json::{Obj, empty_array};
use crate::obj;

impl Session {
    fn common(&self) -> Obj {
        obj! {
            "session_id" => self.id.as_str(),
            "transcript_path" => self.transcript_path.to_string_lossy().into_owned(),
            "cwd" => self.cwd.as_str(),
        }
    }

    fn effort() -> Obj {
        obj! { "level" => "medium" }
    }

    /// `SessionStart` (`source`: `startup` or `clear`; `model` only at startup).
    pub fn payload_session_start(&self, source: &str) -> Obj {
        let mut o = self
            .common()
            .with("hook_event_name", "SessionStart")
            .with("source", source);
        if source == "startup" {
            o.set("model", self.model.id.as_str());
        }
        o
    }

    /// `UserPromptSubmit` with the full expanded prompt.
    pub fn payload_user_prompt_submit(&self, prompt_id: &str, prompt: &str) -> Obj {
        self.common()
            .with("prompt_id", prompt_id)
            .with("permission_mode", self.mode.hook_value())
            .with("hook_event_name", "UserPromptSubmit")
            .with("prompt", prompt)
    }

    /// `Stop`.
    pub fn payload_stop(&self, prompt_id: &str, last_message: &str) -> Obj {
        self.common()
            .with("prompt_id", prompt_id)
            .with("permission_mode", self.mode.hook_value())
            .with("effort", Self::effort())
            .with("hook_event_name", "Stop")
            .with("stop_hook_active", false)
            .with("last_assistant_message", last_message)
            .with("background_tasks", empty_array())
            .with("session_crons", empty_array())
    }

    /// `StopFailure` (API errors).
    pub fn payload_stop_failure(&self, prompt_id: &str, last_message: &str) -> Obj {
        self.common()
            .with("prompt_id", prompt_id)
            .with("effort", Self::effort())
            .with("hook_event_name", "StopFailure")
            .with("error", "unknown")
            .with("last_assistant_message", last_message)
    }

    /// The fields every tool event starts with, up to `hook_event_name`.
    fn mode_common(&self, prompt_id: &str, event: &str) -> Obj {
        self.common()
            .with("prompt_id", prompt_id)
            .with("permission_mode", self.mode.hook_value())
            .with("effort", Self::effort())
            .with("hook_event_name", event)
    }

    fn tool_common(&self, prompt_id: &str, event: &str, tool: &str, input: &Value) -> Obj {
        self.mode_common(prompt_id, event)
            .with("tool_name", tool)
            .with("tool_input", input)
    }

    /// `PreToolUse`.
    pub fn payload_pre_tool_use(
        &self,
        prompt_id: &str,
        tool: &str,
        input: &Value,
        tool_use_id: &str,
    ) -> Obj {
        self.tool_common(prompt_id, "PreToolUse", tool, input)
            .with("tool_use_id", tool_use_id)
    }

    /// `PermissionRequest` with the dialog's second option as its suggestion ([`offer`]): a
    /// "don't ask again" rule, or access to the working folder.
    pub fn payload_permission_request(&self, prompt_id: &str, tool: &str, input: &Value) -> Obj {
        let suggestion = match offer(tool, input) {
            Offer::Folder => obj! {
                "type" => "addDirectories",
                "directories" => vec![self.cwd.as_str()],
                "destination" => "session",
            },
            Offer::Rule(prefix) => {
                let rule = obj! { "toolName" => tool, "ruleContent" => prefix };
                obj! {
                    "type" => "addRules",
                    "rules" => vec![rule],
                    "behavior" => "allow",
                    "destination" => "localSettings",
                }
            }
        };
        self.tool_common(prompt_id, "PermissionRequest", tool, input)
            .with("permission_suggestions", vec![suggestion])
    }

    /// `PermissionRequest` for the question tool: no suggestion (2.1.332 offers none for
    /// `AskUserQuestion`, rec-out `claude-q-2`).
    pub fn payload_question_request(&self, prompt_id: &str, tool: &str, input: &Value) -> Obj {
        self.tool_common(prompt_id, "PermissionRequest", tool, input)
    }

    /// `PostToolUse`.
    pub fn payload_post_tool_use(
        &self,
        prompt_id: &str,
        tool: &str,
        input: &Value,
        output: &str,
        tool_use_id: &str,
    ) -> Obj {
        let response = tool_response(output).into();
        self.payload_post_tool_use_with(prompt_id, (tool, input), response, tool_use_id, 0)
    }

    /// `PostToolUse` with the tool's own `tool_response` (a question's: its input with the
    /// answers) and how long it took.
    pub fn payload_post_tool_use_with(
        &self,
        prompt_id: &str,
        (tool, input): (&str, &Value),
        response: Value,
        tool_use_id: &str,
        duration_ms: u64,
    ) -> Obj {
        self.tool_common(prompt_id, "PostToolUse", tool, input)
            .with("tool_response", response)
            .with("tool_use_id", tool_use_id)
            .with("duration_ms", duration_ms)
    }

    /// `PostToolBatch`.
    pub fn payload_post_tool_batch(
        &self,
        prompt_id: &str,
        tool: &str,
        input: &Value,
        output: &str,
        tool_use_id: &str,
    ) -> Obj {
        let call = obj! { "tool_name" => tool, "tool_input" => input, "tool_use_id" => tool_use_id, "tool_response" => output };
        self.mode_common(prompt_id, "PostToolBatch")
            .with("tool_calls", vec![call])
    }

    /// `Notification`.
    pub fn payload_notification(&self, prompt_id: &str, message: &str, kind: &str) -> Obj {
        self.common()
            .with("prompt_id", prompt_id)
            .with("hook_event_name", "Notification")
            .with("message", message)
            .with("notification_type", kind)
    }

    /// `MessageDisplay` (one final delta per displayed text block).
    pub fn payload_message_display(
        &self,
        prompt_id: &str,
        turn_id: &str,
        message_id: &str,
        text: &str,
    ) -> Obj {
        self.common()
            .with("prompt_id", prompt_id)
            .with("hook_event_name", "MessageDisplay")
            .with("turn_id", turn_id)
            .with("message_id", message_id)
            .with("index", 0u64)
            .with("final", true)
            .with("delta", text)
    }

    /// `SessionEnd` (`reason`: `prompt_input_exit`, `clear`, `other`).
    pub fn payload_session_end(&self, reason: &str) -> Obj {
        let mut o = self.common();
        if let Some(p) = &self.last_prompt_id {
            o.set("prompt_id", p.as_str());
        }
        o.with("hook_event_name", "SessionEnd")
            .with("reason", reason)
    }
}

/// The tool response object of `PostToolUse` and `toolUseResult`.
pub fn tool_response(output: &str) -> Obj {
    obj! {
        "stdout" => output,
        "stderr" => "",
        "interrupted" => false,
        "isImage" => false,
        "noOutputExpected" => false,
    }
}

/// The rule prefix offered by "don't ask again": the command's first word for Bash.
pub fn rule_content(tool: &str, input: &Value) -> String {
    match (tool, input.get("command").and_then(Value::as_str)) {
        ("Bash", Some(cmd)) => cmd.split_whitespace().next().unwrap_or("").to_string(),
        _ => String::new(),
    }
}

/// What the permission dialog's second option offers.
#[derive(Clone, Debug, PartialEq)]
pub enum Offer {
    /// "don't ask again" for this rule content (`permission-prompt-bash`: `env | grep … >
    /// /tmp/…; echo …` offers `env`).
    Rule(String),
    /// "always allow access to <cwd> from this project": a lone command writing (`>`) to a
    /// file named relative to the working folder (`approval-dialog`: `echo hi >
    /// umbel-tool.txt`, whose `PermissionRequest` suggests `addDirectories` [cwd]).
    Folder,
}

/// What the dialog offers for `tool` called with `input`.
pub fn offer(tool: &str, input: &Value) -> Offer {
    let command = input.get("command").and_then(Value::as_str);
    let folder_write = tool == "Bash"
        && command.is_some_and(|cmd| {
            let lone = !["|", ";", "&"].iter().any(|op| cmd.contains(op));
            let target = cmd.rsplit_once('>').map(|(_, t)| t.trim());
            lone && target.is_some_and(|t| !t.is_empty() && !t.starts_with(['/', '~']))
        });
    if folder_write {
        return Offer::Folder;
    }
    Offer::Rule(rule_content(tool, input))
}
