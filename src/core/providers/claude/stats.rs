//! claude's transcript read into a turn's [`TurnStats`]: one line per content block, the
//! latest line of a message id carrying its usage; tool calls and their results.

use crate::core::print::stats::{Tokens, ToolCall, TurnStats, UsagePaths, UsageReading};
use crate::core::providers::str_field;
use serde_json::Value;

/// How `top` adds a session's usage up from this transcript.
pub const USAGE: UsageReading = UsageReading {
    marks: &["\"assistant\""],
    context_type: None,
    message_id: Some("/message/id"),
    context: None,
    thoughts_apart: false,
    cached_in_input: false,
};

const CLAUDE_USAGE: UsagePaths = UsagePaths {
    input: "/input_tokens",
    output: "/output_tokens",
    cache_read: "/cache_read_input_tokens",
    cache_creation: Some("/cache_creation_input_tokens"),
    thoughts: "/output_tokens_details/thinking_tokens",
};

/// Claude writes one line per content block, each with its message's usage so far; the last
/// line of a message id has its final usage. A `<synthetic>` message is an API error.
pub fn read(records: &[Value], stats: &mut TurnStats) {
    let mut counted: Vec<(String, String, Tokens)> = Vec::new();
    for record in records {
        let message = record.get("message").unwrap_or(&Value::Null);
        match str_field(record, "type") {
            Some("assistant") => claude_assistant(record, message, stats, &mut counted),
            Some("user") => claude_results(record, message, stats),
            _ => {}
        }
    }
    for (_, model, tokens) in counted {
        stats.model(&model).add(&tokens);
    }
}

/// One assistant line: the turn's last usage, stop reason and API error, the message's tokens
/// (the latest line of a message id wins, in `counted`), and its tool calls.
fn claude_assistant(
    record: &Value,
    message: &Value,
    stats: &mut TurnStats,
    counted: &mut Vec<(String, String, Tokens)>,
) {
    let model = str_field(message, "model").unwrap_or("");
    stats.uuid = str_field(record, "uuid").map(str::to_string);
    stats.usage = message.get("usage").filter(|u| u.is_object()).cloned();
    if let Some(reason) = str_field(message, "stop_reason") {
        stats.stop_reason = Some(reason.to_string());
    }
    if record.get("isApiErrorMessage") == Some(&Value::Bool(true)) {
        stats.api_error_status = record.get("apiErrorStatus").and_then(Value::as_u64);
        stats.api_error_type = str_field(record, "apiErrorType").map(str::to_string);
    }
    if model == "<synthetic>" || model.is_empty() {
        return;
    }
    let usage = message.get("usage").unwrap_or(&Value::Null);
    let tokens = Tokens::read(usage, &CLAUDE_USAGE);
    let id = str_field(message, "id").unwrap_or("").to_string();
    match counted
        .iter_mut()
        .find(|(i, _, _)| *i == id && !id.is_empty())
    {
        Some(entry) => entry.2 = tokens,
        None => counted.push((id, model.to_string(), tokens)),
    }
    for block in blocks(message) {
        if str_field(block, "type") == Some("tool_use") {
            stats.tools.push(ToolCall::new(
                str_field(block, "id"),
                str_field(block, "name"),
                block.get("input"),
            ));
        }
    }
}

/// One user line: the results of tool calls (and whether a person denied them).
fn claude_results(record: &Value, message: &Value, stats: &mut TurnStats) {
    let decision = record.pointer("/permissionDecision/decision");
    let denied = decision
        .and_then(Value::as_str)
        .is_some_and(|d| matches!(d, "deny" | "reject"));
    for block in blocks(message) {
        if str_field(block, "type") != Some("tool_result") {
            continue;
        }
        let id = str_field(block, "tool_use_id").unwrap_or("");
        if let Some(tool) = stats.tool(id) {
            tool.output = Some(result_text(block.get("content")));
            tool.ok = Some(block.get("is_error") != Some(&Value::Bool(true)));
            tool.denied = denied;
        }
    }
}

fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A tool result's content: a string, or text blocks.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| str_field(i, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
