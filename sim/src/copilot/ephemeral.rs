//! The ephemeral events: never in the session log, printed by `-p --output-format json`
//! (recorded: `print-json-tool.jsonl`, `print-json-error.jsonl`), each the `data` of its kind.
//! Their order in a turn: `model.call_start`, then the answer (`assistant.message_start`,
//! `assistant.message_delta` per streamed chunk) or the tool call
//! (`assistant.tool_call_delta`), `model.call_finished`, the persisted `assistant.message`,
//! `model.call_final_result`; a failed call `model.call_failure` instead; `assistant.idle` once
//! the run is over. The recorded `session.background_tasks_changed` noise is left out.

use super::records::{Call, Exchange, Who};
use crate::json::Obj;
use crate::obj;

/// `session.skills_loaded`: the two builtin skills of 1.0.102.
pub fn skills_loaded(who: &Who) -> Obj {
    let version = who.release.version.to_string();
    let skill = |name: &str, description: &str| {
        let path = who
            .home
            .join("pkg/linux-x64")
            .join(&version)
            .join("builtin")
            .join(name)
            .join("SKILL.md");
        obj! {
            "name" => name, "commandName" => name, "description" => description,
            "source" => "builtin", "userInvocable" => false, "enabled" => true,
            "path" => path.to_string_lossy().into_owned(),
        }
    };
    let skills = vec![
        skill(
            "customize-cloud-agent",
            "Skill for customizing the Copilot cloud agent environment.",
        ),
        skill(
            "github-pr-media",
            "Upload an image or video to GitHub and embed it in a pull request.",
        ),
    ];
    obj! { "skills" => skills }
}

/// `session.mcp_servers_loaded` (none).
pub fn mcp_servers_loaded() -> Obj {
    obj! { "servers" => Vec::<String>::new() }
}

/// `session.tools_updated`.
pub fn tools_updated(who: &Who) -> Obj {
    obj! { "model" => who.model.as_str() }
}

/// `model.call_start`.
pub fn call_start(who: &Who, turn: u32) -> Obj {
    obj! { "turnId" => turn.to_string(), "model" => who.model.as_str() }
}

/// `assistant.message_start`.
pub fn message_start(id: &str) -> Obj {
    obj! { "messageId" => id }
}

/// `assistant.message_delta`.
pub fn message_delta(id: &str, chunk: &str) -> Obj {
    obj! { "messageId" => id, "deltaContent" => chunk }
}

/// `assistant.tool_call_delta`: the whole call at once.
pub fn tool_call_delta(call: &Call) -> Obj {
    obj! {
        "toolCallId" => call.id.as_str(), "toolName" => call.name.as_str(),
        "toolType" => "function", "inputDelta" => call.input.to_string(),
    }
}

/// `model.call_finished`.
pub fn call_finished(turn: u32, x: &Exchange, ms: u64, ok: bool) -> Obj {
    let data = obj! {
        "turnId" => turn.to_string(), "dispatchDurationMs" => ms,
        "outcome" => if ok { "success" } else { "error" }, "editClassifierVersion" => 1u64,
        "interactionId" => x.interaction.as_str(),
    };
    match ok {
        true => data.with("containsBuiltInFileEditRequest", false),
        false => data,
    }
}

/// `model.call_final_result` (`success`, or `http_<status>`).
pub fn call_final_result(who: &Who, status: Option<u16>) -> Obj {
    let result = status.map_or_else(|| "success".to_string(), |s| format!("http_{s}"));
    obj! { "model" => who.model.as_str(), "isByok" => who.byok, "result" => result }
}

/// `model.call_failure`.
pub fn call_failure(who: &Who, status: u16, message: &str, ms: u64) -> Obj {
    let error = serde_json::json!({
        "type": "invalid_request_error", "code": null, "message": message, "param": null
    });
    let zero = 0u64;
    let fingerprint = obj! {
        "messageCount" => 2u64, "toolResultMessageCount" => zero, "toolCallCount" => zero,
        "namelessToolCallCount" => zero, "customToolCallCount" => zero,
        "unmatchedToolResultCount" => zero, "orphanToolCallCount" => zero,
        "imagePartCount" => zero, "imagePartsMissingMediaType" => zero, "imageBytes" => zero,
        "reasoningItemCount" => zero, "encryptedContentBytes" => zero, "lastMessageRole" => "user",
    };
    obj! {
        "model" => who.model.as_str(), "statusCode" => status, "durationMs" => ms,
        "apiEndpoint" => "/chat/completions", "transport" => "http",
        "requestBodyBytes" => 52_763u64, "requestBodyWireBytes" => 52_763u64,
        "requestBodyEncoding" => "identity", "retryAttempt" => zero, "failureKind" => "api",
        "maxPromptTokens" => 128_000u64, "isByok" => who.byok, "byokKind" => "local_user",
        "modelProvider" => "other", "providerType" => "openai", "isAuto" => false,
        "reasoningEffort" => "medium", "interactionType" => "conversation-agent", "rte" => false,
        "source" => "top_level", "errorMessage" => error.to_string(),
        "requestFingerprint" => fingerprint, "badRequestKind" => "structured_error",
        "errorType" => "invalid_request_error",
    }
}

/// `tool.execution_partial_result` (the output so far: all of it).
pub fn partial_result(call: &Call) -> Obj {
    obj! { "toolCallId" => call.id.as_str(), "partialOutput" => call.output.as_str() }
}

/// `assistant.idle`.
pub fn idle() -> Obj {
    Obj::new()
}
