//! gemini's chat record read into a turn's [`TurnStats`]: the last version of each message,
//! its model, tokens and tool calls; an `[API Error: …]` record's code.

use crate::core::print::stats::{Tokens, ToolCall, TurnStats, UsagePaths, UsageReading};
use crate::core::providers::str_field;
use serde_json::Value;

/// How `top` adds a session's usage up from this transcript.
pub const USAGE: UsageReading = UsageReading {
    marks: &["\"gemini\""],
    context_type: None,
    message_id: Some("/id"),
    context: None,
    thoughts_apart: true,
    cached_in_input: true,
};

const GEMINI_USAGE: UsagePaths = UsagePaths {
    input: "/tokens/input",
    output: "/tokens/output",
    cache_read: "/tokens/cached",
    cache_creation: None,
    thoughts: "/tokens/thoughts",
};

/// Gemini: each `gemini` record (the last version of an id counts) has its model and tokens,
/// and its `toolCalls` with their results.
pub fn read(records: &[Value], stats: &mut TurnStats) {
    let mut latest: Vec<&Value> = Vec::new();
    for record in records {
        let Some(id) = str_field(record, "id") else {
            continue;
        };
        match latest.iter().position(|r| str_field(r, "id") == Some(id)) {
            Some(at) => latest[at] = record,
            None => latest.push(record),
        }
    }
    for record in latest {
        match str_field(record, "type") {
            Some("gemini") => {
                let tokens = Tokens::read(record, &GEMINI_USAGE);
                let model = str_field(record, "model").unwrap_or("").to_string();
                stats.model(&model).add(&tokens);
                let calls = record.get("toolCalls").and_then(Value::as_array);
                for call in calls.map_or(&[][..], Vec::as_slice) {
                    let status = str_field(call, "status");
                    let output = call
                        .pointer("/result/0/functionResponse/response/output")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    stats.tools.push(ToolCall {
                        output,
                        ok: status.map(|s| s == "success"),
                        denied: matches!(status, Some("cancelled" | "rejected")),
                        ..ToolCall::new(
                            str_field(call, "id"),
                            str_field(call, "name"),
                            call.get("args"),
                        )
                    });
                }
            }
            Some("error") => {
                let content = str_field(record, "content").unwrap_or("");
                stats.api_error_status = gemini_error_code(content);
            }
            _ => {}
        }
    }
}

/// The `"code":N` of the JSON error gemini quotes in its `[API Error: …]` record.
fn gemini_error_code(content: &str) -> Option<u64> {
    let at = content.find("\"code\":")? + "\"code\":".len();
    let digits: String = content[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}
