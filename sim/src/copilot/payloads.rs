//! copilot's hooks, each twice: the payload a Claude-format hook gets on stdin
//! (`copilot-1.0.102-hook-payloads.jsonl`, field order kept) and copilot's own input, which
//! the session log's `hook.start` keeps (`copilot-1.0.102-events.jsonl`, its `hookType` in
//! camelCase).
//!
//! | event | `hookType` | timestamp in the payload |
//! |---|---|---|
//! | `SessionStart` (at the first prompt) | `sessionStart` | ISO |
//! | `UserPromptSubmit` | `userPromptSubmitted` | ISO |
//! | `PreToolUse` | `preToolUse` (input without a timestamp) | ISO |
//! | `PermissionRequest` (copilot's own shape) | `permissionRequest` | ms |
//! | `Notification` `permission_prompt` | `notification` | ms |
//! | `PostToolUse` | `postToolUse` | ISO |
//! | `Stop` (no answer text) | `agentStop` | ISO |
//! | `SessionEnd` | `sessionEnd` | ISO |

use serde_json::Value;

use super::records::Call;
use crate::clock::iso;
use crate::json::Obj;
use crate::obj;

/// One hook to fire: its Claude event, copilot's `hookType`, both payloads, and the tool it
/// is about (tool events' matchers are tried on it).
#[derive(Clone, Debug)]
pub struct Hook {
    /// The Claude event (`Stop`).
    pub event: &'static str,
    /// copilot's name for it (`agentStop`).
    pub kind: &'static str,
    /// What the command gets on stdin.
    pub payload: Obj,
    /// What `hook.start` records.
    pub input: Obj,
    /// The instant (epoch ms) both carry.
    pub at: i64,
    /// The tool's names (copilot's, Claude's) for a tool event.
    pub tool: Option<(String, String)>,
}

/// What every payload names.
pub struct Ctx<'a> {
    /// The session id.
    pub session: &'a str,
    /// The working directory.
    pub cwd: &'a str,
    /// The instant, epoch ms.
    pub at: i64,
}

impl Ctx<'_> {
    /// The Claude-format head: event, session, ISO time, cwd.
    fn head(&self, event: &str) -> Obj {
        obj! {
            "hook_event_name" => event,
            "session_id" => self.session,
            "timestamp" => iso(self.at),
            "cwd" => self.cwd,
        }
    }

    fn hook(&self, event: &'static str, kind: &'static str, payload: Obj, input: Obj) -> Hook {
        Hook {
            event,
            kind,
            payload,
            input,
            at: self.at,
            tool: None,
        }
    }
}

/// `SessionStart` (`source`: `new` or `resume`).
pub fn session_start(c: &Ctx, source: &str, prompt: &str) -> Hook {
    let payload = c
        .head("SessionStart")
        .with("source", source)
        .with("initial_prompt", prompt);
    let input = obj! { "source" => source, "initialPrompt" => prompt, "sessionId" => c.session, "timestamp" => c.at, "cwd" => c.cwd };
    c.hook("SessionStart", "sessionStart", payload, input)
}

/// `UserPromptSubmit`.
pub fn user_prompt_submit(c: &Ctx, prompt: &str) -> Hook {
    let payload = c.head("UserPromptSubmit").with("prompt", prompt);
    let input =
        obj! { "sessionId" => c.session, "prompt" => prompt, "timestamp" => c.at, "cwd" => c.cwd };
    c.hook("UserPromptSubmit", "userPromptSubmitted", payload, input)
}

fn on(call: &Call, hook: Hook) -> Hook {
    Hook {
        tool: Some((call.name.clone(), call.claude_name.clone())),
        ..hook
    }
}

/// `PreToolUse`.
pub fn pre_tool_use(c: &Ctx, call: &Call) -> Hook {
    let payload = c
        .head("PreToolUse")
        .with("tool_name", call.claude_name.as_str())
        .with("tool_input", call.input.clone());
    let calls = vec![
        obj! { "id" => call.id.as_str(), "name" => call.name.as_str(), "args" => call.input.clone() },
    ];
    let input = obj! { "sessionId" => c.session, "cwd" => c.cwd, "toolCalls" => calls };
    on(call, c.hook("PreToolUse", "preToolUse", payload, input))
}

/// The input a permission request shows: a shell call's command alone.
fn asked(call: &Call) -> Value {
    match call.shell() {
        true => serde_json::json!({ "command": call.command() }),
        false => call.input.clone(),
    }
}

/// `PermissionRequest`, in copilot's own shape (not Claude's).
pub fn permission_request(c: &Ctx, call: &Call) -> Hook {
    let payload = obj! {
        "hookName" => "permissionRequest", "sessionId" => c.session, "timestamp" => c.at,
        "cwd" => c.cwd, "toolName" => call.name.as_str(), "toolInput" => asked(call),
        "permissionSuggestions" => Vec::<String>::new(),
    };
    let input = obj! {
        "hookName" => "permissionRequest", "sessionId" => c.session, "timestamp" => c.at,
        "cwd" => c.cwd, "permissionSuggestions" => Vec::<String>::new(),
        "toolName" => call.name.as_str(), "toolInput" => asked(call),
    };
    on(
        call,
        c.hook("PermissionRequest", "permissionRequest", payload, input),
    )
}

/// What the permission `Notification` says (`Use <tool>` for other tools: not recorded).
pub fn asking(call: &Call) -> String {
    match call.shell() {
        true => format!("Run command: {}", call.command()),
        false => format!("Use {}: {}", call.name, call.intention()),
    }
}

/// `Notification` `permission_prompt`, as the permission dialog shows.
pub fn notification(c: &Ctx, call: &Call) -> Hook {
    let message = asking(call);
    let payload = obj! {
        "sessionId" => c.session, "timestamp" => c.at, "cwd" => c.cwd,
        "message" => message.as_str(), "title" => "Permission needed",
        "hook_event_name" => "Notification", "notification_type" => "permission_prompt",
    };
    let input = obj! {
        "message" => message.as_str(), "notificationType" => "permission_prompt",
        "title" => "Permission needed", "sessionId" => c.session, "timestamp" => c.at, "cwd" => c.cwd,
    };
    c.hook("Notification", "notification", payload, input)
}

/// `PostToolUse`, once the tool ran.
pub fn post_tool_use(c: &Ctx, call: &Call) -> Hook {
    let result = call.result();
    let payload = c
        .head("PostToolUse")
        .with("tool_name", call.claude_name.as_str())
        .with("tool_input", call.input.clone())
        .with(
            "tool_result",
            obj! { "result_type" => "success", "text_result_for_llm" => result.as_str() },
        );
    let telemetry = super::records::telemetry(None);
    let tool_result = obj! {
        "textResultForLlm" => result.as_str(), "resultType" => "success",
        "sessionLog" => result.as_str(), "toolTelemetry" => telemetry,
    };
    let input = obj! {
        "sessionId" => c.session, "timestamp" => c.at, "cwd" => c.cwd,
        "toolName" => call.name.as_str(), "toolArgs" => call.input.clone(), "toolResult" => tool_result,
    };
    on(call, c.hook("PostToolUse", "postToolUse", payload, input))
}

/// `Stop`: no answer text; the session log is `transcript_path`.
pub fn stop(c: &Ctx, transcript: &str) -> Hook {
    let payload = c
        .head("Stop")
        .with("transcript_path", transcript)
        .with("stop_reason", "end_turn")
        .with("stop_hook_active", false);
    let input = obj! {
        "sessionId" => c.session, "transcriptPath" => transcript, "stopReason" => "end_turn",
        "stop_hook_active" => false, "timestamp" => c.at, "cwd" => c.cwd,
    };
    c.hook("Stop", "agentStop", payload, input)
}

/// `SessionEnd` (`reason`: `user_exit` leaving the TUI, `complete` after `-p`).
pub fn session_end(c: &Ctx, reason: &str) -> Hook {
    let payload = c.head("SessionEnd").with("reason", reason);
    let input =
        obj! { "reason" => reason, "sessionId" => c.session, "timestamp" => c.at, "cwd" => c.cwd };
    c.hook("SessionEnd", "sessionEnd", payload, input)
}

/// Whether a group's `matcher` takes a hook: tool events only by matcher — absent or `*` take
/// every tool, `""` none (recorded), anything else is tried on both of the tool's names; other
/// events take every group.
pub fn takes(matcher: Option<&str>, tool: Option<&(String, String)>) -> bool {
    let Some((name, claude)) = tool else {
        return true;
    };
    match matcher.map(str::trim) {
        None => true,
        Some("") => false,
        Some(m) => [name, claude]
            .iter()
            .any(|t| crate::hooks::matcher_matches(Some(m), t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_matcher_takes_no_tool_but_every_other_event() {
        let bash = ("bash".to_string(), "Bash".to_string());
        assert!(takes(None, Some(&bash)));
        assert!(takes(Some("*"), Some(&bash)));
        assert!(!takes(Some(""), Some(&bash)));
        assert!(takes(Some("Bash"), Some(&bash)));
        assert!(takes(Some("bash"), Some(&bash)));
        assert!(!takes(Some("Edit"), Some(&bash)));
        assert!(takes(Some(""), None));
    }
}
