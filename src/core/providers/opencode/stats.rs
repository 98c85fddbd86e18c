//! opencode's worker record read into a turn's [`TurnStats`]: messages and parts upserted by
//! id, tokens per assistant message, tool parts with their state.

use crate::core::print::stats::{Tokens, ToolCall, TurnStats, UsagePaths, UsageReading};
use crate::core::providers::str_field;
use serde_json::Value;

/// How `top` adds a session's usage up from this transcript.
pub const USAGE: UsageReading = UsageReading {
    marks: &["\"assistant\""],
    context_type: None,
    message_id: Some("/info/id"),
    context: None,
    thoughts_apart: true,
    cached_in_input: false,
};

const OPENCODE_USAGE: UsagePaths = UsagePaths {
    input: "/input",
    output: "/output",
    cache_read: "/cache/read",
    cache_creation: Some("/cache/write"),
    thoughts: "/reasoning",
};

/// The parts of opencode's assistant messages among `latest` (messages and parts, newest
/// version of each), in order: the user's text part is the prompt, not the answer.
fn assistant_parts(latest: &[&Value]) -> Vec<Value> {
    let assistant: Vec<&str> = latest
        .iter()
        .filter(|o| str_field(o, "role") == Some("assistant"))
        .filter_map(|o| str_field(o, "id"))
        .collect();
    latest
        .iter()
        .filter(|o| str_field(o, "messageID").is_some_and(|m| assistant.contains(&m)))
        .map(|o| (*o).clone())
        .collect()
}

/// opencode's record (`{"type":"message","info"}` / `{"type":"part","part"}`, upserted by id):
/// each assistant message's newest version counts its tokens (`info.tokens`) once, a message
/// with `info.error` is the API error; `tool` parts are the calls with their state. Messages
/// older than the records' first prompt are another turn's.
pub fn read(records: &[Value], stats: &mut TurnStats) {
    // A turn's records start at its prompt; an earlier turn's message rewritten after it
    // (opencode rewrites an aborted one later) is no part of it. Ids sort by time.
    let prompt = records
        .iter()
        .filter_map(|r| r.get("info"))
        .find(|info| str_field(info, "role") == Some("user"))
        .and_then(|info| str_field(info, "id"));
    let earlier = |object: &Value| {
        let message = str_field(object, "messageID").or_else(|| str_field(object, "id"));
        prompt
            .zip(message)
            .is_some_and(|(prompt, message)| message < prompt)
    };
    let mut latest: Vec<&Value> = Vec::new();
    for record in records {
        let Some(object) = record.get("info").or_else(|| record.get("part")) else {
            continue;
        };
        if earlier(object) {
            continue;
        }
        let id = str_field(object, "id");
        match latest
            .iter()
            .position(|r| id.is_some() && str_field(r, "id") == id)
        {
            Some(at) => latest[at] = object,
            None => latest.push(object),
        }
    }
    stats.parts = assistant_parts(&latest);
    for object in latest {
        if str_field(object, "role") == Some("assistant") {
            let model = str_field(object, "modelID").unwrap_or("").to_string();
            let mut tokens = Tokens::read(
                object.get("tokens").unwrap_or(&Value::Null),
                &OPENCODE_USAGE,
            );
            tokens.requests = 1;
            // Billionths of a dollar: whole numbers keep the counts exact.
            let cost = object.get("cost").and_then(Value::as_f64).unwrap_or(0.0);
            tokens.cost_nano_usd = (cost.max(0.0) * 1e9).round() as u64;
            stats.model(&model).add(&tokens);
            stats.stop_reason = str_field(object, "finish").map(str::to_string);
            if let Some(error) = object.get("error") {
                stats.api_error_status = error.pointer("/data/statusCode").and_then(Value::as_u64);
                stats.api_error_type = str_field(error, "name").map(str::to_string);
                stats.api_error = Some(error.clone());
            }
        } else if str_field(object, "type") == Some("tool") {
            stats.tools.push(tool_call(object));
        }
    }
}

/// A `tool` part: the call, with its state.
fn tool_call(object: &Value) -> ToolCall {
    let state = object.get("state").unwrap_or(&Value::Null);
    let status = str_field(state, "status");
    ToolCall {
        output: str_field(state, "output")
            .or_else(|| str_field(state, "error"))
            .map(str::to_string),
        ok: match status {
            Some("completed") => Some(true),
            Some("error") => Some(false),
            _ => None,
        },
        denied: status == Some("error")
            && str_field(state, "error").is_some_and(|e| e.contains("rejected")),
        state: Some(state.clone()),
        ..ToolCall::new(
            str_field(object, "callID"),
            str_field(object, "tool"),
            state.get("input"),
        )
    }
}
