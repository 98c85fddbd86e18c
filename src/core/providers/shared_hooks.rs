//! The hook events the CLIs that took claude's hook names share, how each is classified, and
//! the `hooks` JSON those CLIs' settings take.

use super::*;

/// The hook events claude, codex and qwen all configure, first and in this order (codex and qwen
/// read claude's hook names and payloads); each provider's own events follow them.
pub const SHARED_HOOK_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
];

/// How claude and qwen (whose hooks are claude's) read their hook events: `StopFailure` ends the
/// turn with an API error, a `Notification` of `notification_type` `permission_prompt` or
/// `elicitation_dialog` waits for a person; the rest as [`shared_hook_class`].
pub fn claude_style_class(event: &str, payload: Option<&serde_json::Value>) -> EventClass {
    let waits = |reason| EventClass::NeedsInput { reason, tool: None };
    match event {
        "StopFailure" => EventClass::TurnFailed {
            reason: "api-error",
        },
        "Notification" => match payload.and_then(|p| str_field(p, "notification_type")) {
            Some("permission_prompt") => waits("permission"),
            Some("elicitation_dialog") => waits("question"),
            _ => EventClass::Other,
        },
        _ => shared_hook_class(event, payload),
    }
}

/// How claude and codex both read the hook events they share (`SHARED_HOOK_EVENTS` and `Stop`);
/// each provider matches its own events first and hands the rest here.
pub fn shared_hook_class(event: &str, payload: Option<&serde_json::Value>) -> EventClass {
    match event {
        "SessionStart" => EventClass::Started,
        "UserPromptSubmit" => EventClass::Submitted,
        "Stop" => EventClass::TurnEnded,
        "PermissionRequest" => EventClass::permission_request(payload),
        "PreToolUse" | "PostToolUse" => EventClass::Progress,
        _ => EventClass::Other,
    }
}

/// One entry per event: `{"Event": [{"hooks": [{"type": "command", "command": "<cmd> Event", "timeout": T}]}]}`
/// — the hooks shape Claude, Codex and Gemini all read.
pub fn hooks_json(hook_command: &str, events: &[&str], timeout: u64) -> serde_json::Value {
    let mut hooks = serde_json::Map::new();
    for event in events {
        let command = format!("{hook_command} {event}");
        hooks.insert(
            (*event).to_string(),
            serde_json::json!([{ "hooks": [{ "type": "command", "command": command, "timeout": timeout }] }]),
        );
    }
    serde_json::Value::Object(hooks)
}
