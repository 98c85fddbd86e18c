//! qwen's chat record read into a turn's [`TurnStats`]: usage per model response, function
//! calls and their results, the API error from its telemetry record.

use crate::core::print::stats::{
    ContextReading, Tokens, ToolCall, TurnStats, UsagePaths, UsageReading,
};
use crate::core::providers::str_field;
use serde_json::Value;

/// How `top` adds a session's usage up from this transcript.
pub const USAGE: UsageReading = UsageReading {
    marks: &["\"assistant\""],
    context_type: None,
    message_id: None,
    context: Some(ContextReading {
        used: &["/usageMetadata/totalTokenCount"],
        window: "/contextWindowSize",
    }),
    thoughts_apart: true,
    cached_in_input: true,
};

const QWEN_USAGE: UsagePaths = UsagePaths {
    input: "/usageMetadata/promptTokenCount",
    output: "/usageMetadata/candidatesTokenCount",
    cache_read: "/usageMetadata/cachedContentTokenCount",
    cache_creation: None,
    thoughts: "/usageMetadata/thoughtsTokenCount",
};

/// Qwen: one `assistant` record per model response (its usage, its `functionCall` parts), a
/// `tool_result` record per call, and a `system` `qwen-code.api_error` telemetry record for a
/// failed request.
pub fn read(records: &[Value], stats: &mut TurnStats) {
    for record in records {
        match str_field(record, "type") {
            Some("assistant") => {
                let model = str_field(record, "model").unwrap_or("").to_string();
                stats.model(&model).add(&Tokens::read(record, &QWEN_USAGE));
                for call in parts(record).iter().filter_map(|p| p.get("functionCall")) {
                    stats.tools.push(ToolCall::new(
                        str_field(call, "id"),
                        str_field(call, "name"),
                        call.get("args"),
                    ));
                }
            }
            Some("tool_result") => {
                let status = record
                    .pointer("/toolCallResult/status")
                    .and_then(Value::as_str);
                for response in parts(record)
                    .iter()
                    .filter_map(|p| p.get("functionResponse"))
                {
                    let id = str_field(response, "id");
                    if let Some(tool) = stats.tools.iter_mut().find(|t| Some(t.id.as_str()) == id) {
                        tool.output = response
                            .pointer("/response/output")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        tool.ok = Some(status == Some("success"));
                        tool.denied = matches!(status, Some("cancelled" | "rejected"));
                    }
                }
            }
            Some("system") => {
                let event = record.pointer("/systemPayload/uiEvent");
                if event.and_then(|e| str_field(e, "event.name")) == Some("qwen-code.api_error") {
                    // A request to that model, which failed (qwen's own stats count it).
                    if let Some(model) = event.and_then(|e| str_field(e, "model")) {
                        stats.model(model).requests += 1;
                    }
                    stats.api_error_status = event
                        .and_then(|e| e.get("status_code"))
                        .and_then(Value::as_u64);
                    stats.api_error_type = event
                        .and_then(|e| str_field(e, "error_type"))
                        .map(str::to_string);
                }
            }
            _ => {}
        }
    }
}

/// The `message.parts` of a qwen record (its text, `functionCall` and `functionResponse` parts).
pub fn parts(record: &Value) -> Vec<Value> {
    record
        .pointer("/message/parts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}
