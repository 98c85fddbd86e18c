//! Qwen Code's hooks: Claude-style names and payloads
//! (`tests/data/qwen/qwen-0.24.4-hook-payloads.jsonl`), translated from the events
//! fake-gemini's engine fires.
//!
//! | fake-gemini | qwen 0.24.4 |
//! |---|---|
//! | `SessionStart` | `SessionStart` (+ `permission_mode`, `model`) |
//! | `BeforeAgent` | `UserPromptSubmit` (`prompt`, `submitted_prompt`) |
//! | `BeforeTool` (for qwen: once the call is allowed, not before the dialog) | `PreToolUse` (+ `tool_use_id`, `tool_call_id`) |
//! | `Notification` `ToolPermission` | `PermissionRequest`, then `Notification` `permission_prompt` |
//! | `AfterTool` | `PostToolUse`, then `UserPromptSubmit` with an empty `prompt` (the next request) |
//! | `AfterAgent` | `Stop` (`last_assistant_message`), `StopFailure` after an API error, nothing after Esc; then `Notification` `idle_prompt` |
//! | `Idle` (fake-qwen's own, a moment after a refused confirmation) | `Notification` `idle_prompt` alone |
//! | `SessionEnd` | `SessionEnd` (`reason`: `prompt_input_exit`) |

use crate::json::Obj;
use crate::obj;

use super::records::{Ctx, TurnEnd};

/// One hook qwen runs: its event, the matcher's target, the payload.
pub type Fired = (&'static str, Option<String>, Obj);

/// qwen's name for a fake-gemini event (for the `Executing Hook` label).
pub fn name(event: &str) -> &'static str {
    match event {
        "BeforeAgent" => "UserPromptSubmit",
        "AfterAgent" => "Stop",
        "BeforeTool" => "PreToolUse",
        "AfterTool" => "PostToolUse",
        "SessionStart" => "SessionStart",
        "SessionEnd" => "SessionEnd",
        _ => "Notification",
    }
}

/// The payload's common head under qwen's `event`.
fn head(mode: &str, event: &str, gemini: &Obj) -> Obj {
    obj! {
        "session_id" => gemini.str("session_id"),
        "transcript_path" => gemini.str("transcript_path"),
        "cwd" => gemini.str("cwd"),
        "hook_event_name" => event,
        "timestamp" => gemini.str("timestamp"),
        "permission_mode" => mode,
    }
}

/// A field of the gemini payload, as is.
fn field(gemini: &Obj, key: &str) -> serde_json::Value {
    gemini
        .0
        .get(key)
        .cloned()
        .unwrap_or(serde_json::Value::Null)
}

/// The `error` kind of a `StopFailure` for an HTTP status.
fn error_kind(status: u16) -> &'static str {
    match status {
        400 => "invalid_request",
        401 | 403 => "authentication_failed",
        429 => "rate_limit",
        500..=599 => "server_error",
        _ => "unknown",
    }
}

/// The `Notification` qwen sends once it waits for the person again.
fn idle(mode: &str, gemini: &Obj) -> Fired {
    let payload = head(mode, "Notification", gemini)
        .with("message", "Qwen Code is waiting for your input")
        .with("notification_type", "idle_prompt")
        .with("title", "Waiting for input");
    ("Notification", Some("idle_prompt".into()), payload)
}

/// What qwen runs where fake-gemini's engine fires `event` with `gemini` (its payload).
/// `mode` is the approval mode as qwen spells it ([`super::modes::name`]: `default`, `auto-edit`,
/// `auto`, `yolo`, `plan`).
pub fn translate(
    sess: &mut Ctx<'_>,
    mode: &str,
    event: &str,
    target: Option<&str>,
    gemini: &Obj,
) -> Vec<Fired> {
    if event == "BeforeAgent" {
        sess.state.prompts += 1;
    }
    let fired = fired(sess, mode, event, target, gemini);
    // Every hook of a turn names it (`prompt_id`), as qwen 0.24.4's do.
    let id = sess
        .prompt_id()
        .filter(|_| !matches!(event, "SessionStart" | "SessionEnd"));
    let name = |(e, t, p): Fired| match &id {
        Some(id) => (e, t, p.with("prompt_id", id.as_str())),
        None => (e, t, p),
    };
    fired.into_iter().map(name).collect()
}

/// [`translate`]'s hooks, before they are named by their turn.
// long: one arm per event of the table in the module doc, each a payload's fields.
fn fired(
    sess: &mut Ctx<'_>,
    mode: &str,
    event: &str,
    target: Option<&str>,
    gemini: &Obj,
) -> Vec<Fired> {
    let tool = || gemini.str("tool_name");
    let call_id = |sess: &mut Ctx<'_>| format!("call_{}", sess.ids.hex(16));
    match event {
        "SessionStart" => {
            let p = head(mode, event, gemini)
                .with("source", field(gemini, "source"))
                .with("model", sess.model);
            vec![("SessionStart", target.map(str::to_string), p)]
        }
        "BeforeAgent" => {
            let prompt = gemini.str("prompt");
            let p = head(mode, "UserPromptSubmit", gemini)
                .with("prompt", prompt.as_str())
                .with("submitted_prompt", prompt.as_str());
            vec![("UserPromptSubmit", None, p)]
        }
        "BeforeTool" => {
            sess.state.asking = Some((tool(), field(gemini, "tool_input")));
            let id = call_id(sess);
            let p = head(mode, "PreToolUse", gemini)
                .with("tool_name", tool())
                .with("tool_input", field(gemini, "tool_input"))
                .with("tool_use_id", format!("toolu_{}", sess.ids.hex(12)))
                .with("tool_call_id", id);
            vec![("PreToolUse", Some(tool()), p)]
        }
        "AfterTool" => {
            let p = head(mode, "PostToolUse", gemini)
                .with("tool_name", tool())
                .with("tool_input", field(gemini, "tool_input"))
                .with("tool_response", field(gemini, "tool_response"))
                .with("duration_ms", 5 + sess.ids.pick(200));
            let next = head(mode, "UserPromptSubmit", gemini).with("prompt", "");
            vec![
                ("PostToolUse", Some(tool()), p),
                ("UserPromptSubmit", None, next),
            ]
        }
        "Notification" => {
            let (name, input) = sess.state.asking.clone().unwrap_or_default();
            let ask = head(mode, "PermissionRequest", gemini)
                .with("tool_name", name.as_str())
                .with("tool_input", input);
            let note = head(mode, "Notification", gemini)
                .with(
                    "message",
                    format!("Qwen Code needs your permission to use {name}"),
                )
                .with("notification_type", "permission_prompt")
                .with("title", "Permission needed");
            vec![
                ("PermissionRequest", Some(name.clone()), ask),
                ("Notification", Some("permission_prompt".into()), note),
            ]
        }
        "AfterAgent" => {
            let answer = gemini.str("prompt_response");
            let stop = match std::mem::take(&mut sess.state.end) {
                TurnEnd::Answered => Some((
                    "Stop",
                    head(mode, "Stop", gemini)
                        .with("stop_hook_active", false)
                        .with("last_assistant_message", answer),
                )),
                TurnEnd::Failed { status, raw } => Some((
                    "StopFailure",
                    head(mode, "StopFailure", gemini)
                        .with("error", error_kind(status))
                        .with("error_details", raw.as_str())
                        .with("last_assistant_message", format!("[API Error: {raw}]")),
                )),
                TurnEnd::Cancelled => None,
            };
            let mut fired: Vec<Fired> = stop.into_iter().map(|(e, p)| (e, None, p)).collect();
            fired.push(idle(mode, gemini));
            fired
        }
        "Idle" => vec![idle(mode, gemini)],
        "SessionEnd" => {
            let p = head(mode, event, gemini).with("reason", "prompt_input_exit");
            vec![("SessionEnd", Some("prompt_input_exit".into()), p)]
        }
        _ => Vec::new(),
    }
}
