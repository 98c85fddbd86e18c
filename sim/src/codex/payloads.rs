//! Hook payloads, field for field (and in the same key order) as codex 0.171
//! sends them (`fixtures/samples/codex-0.171.0-hook-payloads.jsonl`).

use serde_json::Value;

use super::session::Session;
use crate::json::Obj;
use crate::obj;

/// `tool_input` as PreToolUse/PostToolUse report a Bash call: only `command`
/// (the model's justification appears in PermissionRequest as `description`).
pub fn tool_input_plain(tool: &str, input: &Value) -> Value {
    match (tool, input.get("command")) {
        ("Bash", Some(cmd)) => serde_json::json!({ "command": cmd }),
        _ => input.clone(),
    }
}

impl Session {
    fn common(&self, turn_id: Option<&str>, event: &str) -> Obj {
        let mut o = obj! { "session_id" => self.id.as_str() };
        if let Some(t) = turn_id {
            o.set("turn_id", t);
        }
        o.set(
            "transcript_path",
            self.rollout_path.to_string_lossy().into_owned(),
        );
        o.set("cwd", self.cwd.as_str());
        o.set("hook_event_name", event);
        o
    }

    fn turn_common(&self, turn_id: Option<&str>, event: &str) -> Obj {
        self.common(turn_id, event)
            .with("model", self.model.id.as_str())
            .with("permission_mode", self.permission_mode())
    }

    /// `SessionStart` (fired with the first prompt, `source:"startup"`).
    pub fn payload_session_start(&self) -> Obj {
        self.turn_common(None, "SessionStart")
            .with("source", "startup")
    }

    /// `UserPromptSubmit`.
    pub fn payload_user_prompt_submit(&self, turn_id: &str, prompt: &str) -> Obj {
        self.turn_common(Some(turn_id), "UserPromptSubmit")
            .with("prompt", prompt)
    }

    /// The fields every tool event starts with.
    fn tool_common(&self, turn_id: &str, event: &str, tool: &str, input: Value) -> Obj {
        self.turn_common(Some(turn_id), event)
            .with("tool_name", tool)
            .with("tool_input", input)
    }

    /// `PreToolUse`.
    pub fn payload_pre_tool_use(
        &self,
        turn_id: &str,
        tool: &str,
        input: &Value,
        call_id: &str,
    ) -> Obj {
        self.tool_common(turn_id, "PreToolUse", tool, tool_input_plain(tool, input))
            .with("tool_use_id", call_id)
    }

    /// `PermissionRequest` (`tool_input` keeps `description`; no `tool_use_id`).
    pub fn payload_permission_request(&self, turn_id: &str, tool: &str, input: &Value) -> Obj {
        self.tool_common(turn_id, "PermissionRequest", tool, input.clone())
    }

    /// `PostToolUse`.
    pub fn payload_post_tool_use(
        &self,
        turn_id: &str,
        tool: &str,
        input: &Value,
        response: &str,
        call_id: &str,
    ) -> Obj {
        self.tool_common(turn_id, "PostToolUse", tool, tool_input_plain(tool, input))
            .with("tool_response", response)
            .with("tool_use_id", call_id)
    }

    /// `Stop`.
    pub fn payload_stop(&self, turn_id: &str, last_message: &str) -> Obj {
        self.turn_common(Some(turn_id), "Stop")
            .with("stop_hook_active", false)
            .with("last_assistant_message", last_message)
    }

    /// `Interrupt` (Esc during a turn, or a refused approval).
    pub fn payload_interrupt(&self, turn_id: &str) -> Obj {
        self.turn_common(Some(turn_id), "Interrupt")
    }

    /// `SessionEnd` (no `model`, no `permission_mode`).
    pub fn payload_session_end(&self, reason: &str) -> Obj {
        self.common(None, "SessionEnd").with("reason", reason)
    }
}
