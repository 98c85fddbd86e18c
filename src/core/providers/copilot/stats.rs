//! copilot's session log read into a turn's [`TurnStats`]: one `session.usage_record` per model
//! request (its tokens), the `toolRequests` of `assistant.message` records settled by their
//! `tool.execution_complete`, and the `session.error` of a failed turn.

use crate::core::print::stats::{
    ContextReading, Tokens, ToolCall, TurnStats, UsagePaths, UsageReading,
};
use crate::core::providers::str_field;
use serde_json::Value;

/// How `top` adds a session's usage up from its log.
pub const USAGE: UsageReading = UsageReading {
    marks: &["\"session.usage_record\""],
    context_type: None,
    message_id: None,
    context: Some(ContextReading {
        used: &["/data/usage/inputTokens", "/data/usage/outputTokens"],
        window: "/data/usage/maxPromptTokens",
    }),
    thoughts_apart: false,
    cached_in_input: true,
};

const COPILOT_USAGE: UsagePaths = UsagePaths {
    input: "/data/usage/inputTokens",
    output: "/data/usage/outputTokens",
    cache_read: "/data/usage/cacheReadTokens",
    cache_creation: Some("/data/usage/cacheWriteTokens"),
    thoughts: "/data/usage/reasoningTokens",
};

/// The records of one turn (oldest first) into its stats.
pub fn read(records: &[Value], stats: &mut TurnStats) {
    for record in records {
        match str_field(record, "type") {
            Some("session.usage_record") => {
                let model = record.pointer("/data/usage/model").and_then(Value::as_str);
                stats
                    .model(model.unwrap_or(""))
                    .add(&Tokens::read(record, &COPILOT_USAGE));
            }
            Some("assistant.message") => {
                for call in tool_requests(record) {
                    stats.tools.push(ToolCall::new(
                        str_field(call, "toolCallId"),
                        str_field(call, "name"),
                        call.get("arguments"),
                    ));
                }
            }
            Some("tool.execution_complete") => settle(record, stats),
            Some("session.error") => {
                stats.api_error_status = record.pointer("/data/statusCode").and_then(Value::as_u64);
                stats.api_error_type = record
                    .pointer("/data/errorType")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            Some("abort") => {
                // A call still unsettled when the turn was aborted was refused or cut short.
                for tool in stats.tools.iter_mut().filter(|t| t.ok.is_none()) {
                    tool.ok = Some(false);
                    tool.denied = true;
                }
            }
            _ => {}
        }
    }
}

/// A tool's result: its output, whether it succeeded, its exit code.
fn settle(record: &Value, stats: &mut TurnStats) {
    let Some(id) = record.pointer("/data/toolCallId").and_then(Value::as_str) else {
        return;
    };
    if let Some(tool) = stats.tool(id) {
        tool.output = record
            .pointer("/data/result/content")
            .and_then(Value::as_str)
            .map(str::to_string);
        tool.ok = record.pointer("/data/success").and_then(Value::as_bool);
        tool.exit_code = record
            .pointer("/data/shellExecution/exitCode")
            .and_then(Value::as_i64);
    }
}

/// The tool calls an `assistant.message` record asks for.
pub fn tool_requests(record: &Value) -> &[Value] {
    record
        .pointer("/data/toolRequests")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}
