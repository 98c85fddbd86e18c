//! `qwen -p`'s output: `-o json`'s one array of messages (`system`/`init`, the tool calls and
//! their results, the `assistant` message, the `result`; an API error's object on stderr after
//! it), and `stream-json`'s `system`/`init` and `result` events.

use crate::core::print::shape::{
    PrintShapes, PrintTurn, Stamps, StreamStart, Streamed, add_outcome_fields, denials,
};
use crate::core::print::stream::{RecordEvents, StreamMapper};
use crate::core::providers::str_field;
use serde_json::{Value, json};

/// qwen's print mode.
pub struct Shapes;

impl PrintShapes for Shapes {
    fn stream_records(&self) -> RecordEvents {
        stream_record
    }

    /// gemini's join (recorded on 0.24.4).
    fn join_stdin(&self, prompt: &str, stdin: &str) -> String {
        format!("{stdin}\n\n{prompt}")
    }

    fn json(&self, turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Vec<(Value, bool)> {
        let mut documents = vec![(Value::Array(messages(turn, duration_ms, stamps)), false)];
        if turn.stats.api_error_status.is_some() {
            documents.push((api_error(turn), true));
        }
        documents
    }

    fn json_failure(&self, code: &str, message: &str, _: &dyn Stamps) -> Vec<(Value, bool)> {
        let failure = json!([{
            "type": "result",
            "subtype": "error_during_execution",
            "is_error": true,
            "error": { "code": code, "message": message },
        }]);
        vec![(failure, false)]
    }

    fn stream_init(&self, start: &StreamStart<'_>, stamps: &dyn Stamps) -> Vec<Value> {
        vec![super::super::claude::print::system_init(start, stamps)]
    }

    fn stream_end(
        &self,
        turn: &PrintTurn,
        duration_ms: u64,
        _: Option<&Streamed>,
        stamps: &dyn Stamps,
    ) -> Vec<Value> {
        messages(turn, duration_ms, stamps)
            .pop()
            .into_iter()
            .collect()
    }
}

/// What qwen prints on stderr after the array when an API error ended the turn
/// (`tests/data/qwen/qwen-0.24.4-print-json-api-error-stderr.json`).
fn api_error(turn: &PrintTurn) -> Value {
    let error =
        json!({ "type": "AlreadyReportedError", "message": turn.error_message(), "code": 1 });
    json!({ "error": error })
}

/// qwen's `stats`: gemini's, each model's counts also `bySource.main`, with `skills` and
/// `generation` (timings umbel cannot know are null).
fn stats_object(turn: &PrintTurn) -> Value {
    let mut stats = super::super::gemini::print::stats(turn);
    if let Some(models) = stats["models"].as_object_mut() {
        for entry in models.values_mut() {
            let main = json!({ "api": entry["api"], "tokens": entry["tokens"] });
            entry["bySource"] = json!({ "main": main });
        }
    }
    stats["skills"] = json!({ "totalCalls": 0, "totalSuccess": 0, "totalFail": 0, "byName": {} });
    let model = turn.stats.models.last();
    stats["generation"] = json!({
        "timedRequests": turn.stats.total().requests, "totalTtftMs": null,
        "totalGenerationDurationMs": null, "totalThroughputOutputTokens": turn.stats.total().output,
        "last": { "model": model.map(|(m, _)| m), "ttftMs": null, "generationDurationMs": null,
                  "outputTokens": model.map(|(_, t)| t.output) },
    });
    stats
}

/// Each tool call of the turn as an assistant message of its own, then its result as a `user`
/// message once it has one, as qwen prints them
/// (`tests/data/qwen/qwen-0.24.4-print-json-tool-turn.json`).
fn tool_messages(
    turn: &PrintTurn,
    model: &Option<String>,
    usage: &Value,
    stamps: &dyn Stamps,
) -> Vec<Value> {
    let mut messages = Vec::new();
    for t in &turn.stats.tools {
        let id = stamps.id();
        let call = json!({ "type": "tool_use", "id": t.id, "name": t.name, "input": t.input });
        messages.push(json!({
            "type": "assistant", "uuid": id, "session_id": turn.session_id,
            "parent_tool_use_id": null,
            "message": { "id": id, "type": "message", "role": "assistant", "model": model,
                         "content": [call], "stop_reason": null, "usage": usage },
        }));
        let Some(ok) = t.ok else { continue };
        let result = json!({ "type": "tool_result", "tool_use_id": t.id, "is_error": !ok,
                             "content": t.output.as_deref().unwrap_or("") });
        messages.push(json!({
            "type": "user", "uuid": stamps.id(),
            "session_id": turn.session_id, "parent_tool_use_id": null,
            "message": { "role": "user", "content": [result] },
        }));
    }
    messages
}

/// `qwen -p -o json`: one array of messages — `system`/`init`, the `assistant` message, and the
/// `result` (on failure `error_during_execution` with an `error` object, as 0.23.4 and later
/// print it; `result` holds the error text and `stats` is there too, as in 0.23.0's, which
/// printed an API error as a `success` whose `result` was the error:
/// `tests/data/qwen/0.23.0/`). What only qwen knows (its tools, slash commands, agents,
/// latencies) is null.
pub fn messages(turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Vec<Value> {
    let stats = &turn.stats;
    let total = stats.total();
    let usage = json!({
        "input_tokens": total.input,
        "output_tokens": total.output,
        "cache_read_input_tokens": total.cache_read,
        "total_tokens": total.input + total.output,
    });
    let model = stats.models.last().map(|(m, _)| m.clone());
    let init = json!({
        "type": "system", "subtype": "init", "uuid": turn.session_id, "session_id": turn.session_id,
        "cwd": null, "tools": null, "mcp_servers": null, "model": model, "permission_mode": null,
        "slash_commands": null, "qwen_code_version": null, "agents": null,
    });
    let id = stamps.id();
    let text = if turn.ok() {
        turn.printed()
    } else {
        turn.error_message()
    };
    let assistant = json!({
        "type": "assistant", "uuid": id, "session_id": turn.session_id, "parent_tool_use_id": null,
        "message": { "id": id, "type": "message", "role": "assistant", "model": model,
                     "content": [{ "type": "text", "text": text }], "stop_reason": null, "usage": usage },
    });
    let calls = tool_messages(turn, &model, &usage, stamps);
    let denials = denials(stats);
    let mut result = json!({
        "type": "result", "subtype": "success", "uuid": stamps.id(),
        "session_id": turn.session_id, "is_error": false, "duration_ms": duration_ms,
        "duration_api_ms": null, "num_turns": total.requests.max(1),
    });
    if turn.ok() {
        result["result"] = json!(turn.printed());
        result["usage"] = usage;
        result["permission_denials"] = json!(denials);
        result["stats"] = stats_object(turn);
    } else {
        result["subtype"] = json!("error_during_execution");
        result["is_error"] = json!(true);
        result["usage"] = usage;
        result["permission_denials"] = json!(denials);
        result["error"] = json!({ "message": text });
        result["result"] = json!(text);
        result["stats"] = stats_object(turn);
    }
    result["outcome"] = json!(turn.outcome.outcome);
    add_outcome_fields(&mut result, turn);
    let mut messages = vec![init];
    messages.extend(calls);
    messages.extend([assistant, result]);
    messages
}

/// qwen's stream-json is claude's: `assistant` messages with text and `tool_use` blocks,
/// `user` messages with the tools' results.
pub fn stream_record(m: &mut StreamMapper, record: &Value) -> Vec<Value> {
    let id = str_field(record, "uuid").unwrap_or("").to_string();
    let parts = record
        .pointer("/message/parts")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let content: Vec<Value> = parts
        .iter()
        .filter_map(|p| {
            match (
                str_field(p, "text"),
                p.get("functionCall"),
                p.get("functionResponse"),
            ) {
                (Some(text), _, _) if p.get("thought").is_none() => {
                    Some(json!({ "type": "text", "text": text }))
                }
                (_, Some(call), _) => Some(json!({ "type": "tool_use", "id": call.get("id"),
                "name": call.get("name"), "input": call.get("args") })),
                (_, _, Some(response)) => Some(json!({ "type": "tool_result",
                "tool_use_id": response.get("id"),
                "content": response.pointer("/response/output") })),
                _ => None,
            }
        })
        .collect();
    let role = match str_field(record, "type") {
        Some("assistant") => "assistant",
        Some("tool_result") => "user",
        _ => return Vec::new(),
    };
    if content.is_empty() || !m.once(format!("{id}/{role}")) {
        return Vec::new();
    }
    vec![
        json!({ "type": role, "uuid": id, "session_id": record.get("sessionId"),
        "parent_tool_use_id": null,
        "message": { "role": role, "model": record.get("model"), "content": content } }),
    ]
}

#[cfg(test)]
#[path = "print_tests.rs"]
mod tests;
