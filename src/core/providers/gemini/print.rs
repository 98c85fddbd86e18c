//! `gemini -p`'s output: `-o json`'s one object (on failure the error object, on stderr) with
//! its `stats`, and `stream-json`'s `init` and `result` events.

use crate::core::print::shape::{PrintShapes, PrintTurn, Stamps, StreamStart, Streamed, bump};
use crate::core::print::stats::{Tokens, ToolCall};
use crate::core::print::stream::{RecordEvents, StreamMapper};
use crate::core::providers::str_field;
use serde_json::{Map, Value, json};

/// gemini's print mode.
pub struct Shapes;

impl PrintShapes for Shapes {
    fn stream_records(&self) -> RecordEvents {
        stream_record
    }

    fn join_stdin(&self, prompt: &str, stdin: &str) -> String {
        format!("{stdin}\n\n{prompt}")
    }

    fn json(&self, turn: &PrintTurn, _: u64, _: &dyn Stamps) -> Vec<(Value, bool)> {
        vec![object(turn)]
    }

    fn json_failure(&self, code: &str, message: &str, _: &dyn Stamps) -> Vec<(Value, bool)> {
        let error = json!({ "type": "Error", "message": message, "code": code });
        vec![(json!({ "session_id": null, "error": error }), true)]
    }

    fn stream_init(&self, start: &StreamStart<'_>, stamps: &dyn Stamps) -> Vec<Value> {
        vec![json!({
            "type": "init",
            "timestamp": stamps.rfc3339(),
            "session_id": start.session_id,
            "model": start.model.unwrap_or("auto"),
        })]
    }

    fn stream_end(
        &self,
        turn: &PrintTurn,
        duration_ms: u64,
        _: Option<&Streamed>,
        stamps: &dyn Stamps,
    ) -> Vec<Value> {
        vec![stream_result(turn, duration_ms, stamps)]
    }
}

/// gemini's `result` event: the turn's status and token stats.
fn stream_result(turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Value {
    let stats = &turn.stats;
    let tokens = |t: &Tokens| {
        json!({
            "total_tokens": t.input + t.output + t.thoughts,
            "input_tokens": t.input,
            "output_tokens": t.output,
            "cached": t.cache_read,
            "input": t.input,
        })
    };
    let mut summary = tokens(&stats.total());
    summary["duration_ms"] = json!(duration_ms);
    summary["tool_calls"] = json!(stats.tools.len());
    summary["models"] = stats
        .models
        .iter()
        .map(|(model, t)| (model.clone(), tokens(t)))
        .collect::<Map<_, _>>()
        .into();
    let mut result = json!({
        "type": "result",
        "timestamp": stamps.rfc3339(),
        "status": if turn.ok() { "success" } else { "error" },
        "stats": summary,
    });
    if !turn.ok() {
        result["error"] = json!({ "type": "Error", "message": turn.error_message() });
    }
    result
}

/// The gemini object and whether it goes to stderr (a failed turn: the error object).
pub fn object(turn: &PrintTurn) -> (Value, bool) {
    if !turn.ok() {
        // The transcript's `[API Error: {…}]`; gemini prints the quoted error alone.
        let message = turn.error_message();
        let message = message
            .strip_prefix("[API Error: ")
            .and_then(|m| m.strip_suffix(']'))
            .unwrap_or(&message);
        let error = json!({
            "type": "Error",
            "message": message,
            "code": turn.stats.api_error_status,
        });
        return (
            json!({ "session_id": turn.session_id, "error": error }),
            true,
        );
    }
    (
        json!({ "session_id": turn.session_id, "response": turn.printed(), "stats": stats(turn) }),
        false,
    )
}

fn tokens(t: &Tokens) -> Value {
    json!({
        "input": t.input,
        "prompt": t.input,
        "candidates": t.output,
        "total": t.input + t.output + t.thoughts,
        "cached": t.cache_read,
        "thoughts": t.thoughts,
        "tool": 0,
    })
}

/// gemini's `stats`: per model its requests and tokens, per tool its calls and decisions.
pub fn stats(turn: &PrintTurn) -> Value {
    let stats = &turn.stats;
    let mut models = Map::new();
    for (model, t) in &stats.models {
        let api = json!({ "totalRequests": t.requests, "totalErrors": 0, "totalLatencyMs": null, "errorsByType": {} });
        let main = json!({ "totalRequests": t.requests, "totalErrors": 0, "totalLatencyMs": null, "tokens": tokens(t) });
        models.insert(
            model.clone(),
            json!({ "api": api, "tokens": tokens(t), "roles": { "main": main } }),
        );
    }
    let mut by_name = Map::new();
    for tool in &stats.tools {
        let entry = by_name.entry(tool.name.clone()).or_insert_with(|| {
            json!({ "count": 0, "success": 0, "fail": 0, "durationMs": null,
                    "decisions": { "accept": null, "reject": 0, "modify": null, "auto_accept": null } })
        });
        bump(entry, "/count");
        bump(
            entry,
            if tool.ok == Some(true) {
                "/success"
            } else {
                "/fail"
            },
        );
        if tool.denied {
            bump(entry, "/decisions/reject");
        }
    }
    let count = |f: fn(&ToolCall) -> bool| stats.tools.iter().filter(|t| f(t)).count();
    let edits = stats
        .tools
        .iter()
        .any(|t| matches!(t.name.as_str(), "write_file" | "replace" | "edit"));
    let lines = if edits { Value::Null } else { json!(0) };
    json!({
        "models": models,
        "tools": {
            "totalCalls": stats.tools.len(),
            "totalSuccess": count(|t| t.ok == Some(true)),
            "totalFail": count(|t| t.ok != Some(true)),
            "totalDurationMs": null,
            "totalDecisions": { "accept": null, "reject": count(|t| t.denied), "modify": null, "auto_accept": null },
            "byName": by_name,
        },
        "files": { "totalLinesAdded": lines, "totalLinesRemoved": lines },
    })
}

/// One transcript record as gemini's `stream-json` events.
pub fn stream_record(m: &mut StreamMapper, record: &Value) -> Vec<Value> {
    let id = str_field(record, "id").unwrap_or("").to_string();
    let timestamp = record.get("timestamp").cloned().unwrap_or(Value::Null);
    let mut events = Vec::new();
    match str_field(record, "type") {
        Some("user") => {
            let parts = record.get("content").and_then(Value::as_array);
            let text: Vec<&str> = parts
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter_map(|p| str_field(p, "text"))
                .collect();
            if !text.is_empty() && m.once(format!("{id}/user")) {
                events.push(json!({ "type": "message", "timestamp": timestamp,
                    "role": "user", "content": text.join("") }));
            }
        }
        Some("gemini") => {
            let calls = record.get("toolCalls").and_then(Value::as_array);
            for call in calls.map_or(&[][..], Vec::as_slice) {
                let tool_id = str_field(call, "id").unwrap_or("").to_string();
                if m.once(format!("{tool_id}/use")) {
                    events.push(json!({ "type": "tool_use", "timestamp": timestamp,
                        "tool_name": call.get("name"), "tool_id": tool_id,
                        "parameters": call.get("args") }));
                }
                let status = str_field(call, "status");
                let done = matches!(status, Some("success" | "error" | "cancelled"));
                if done && m.once(format!("{tool_id}/result")) {
                    let output = call
                        .pointer("/result/0/functionResponse/response/output")
                        .cloned()
                        .unwrap_or(Value::Null);
                    events.push(json!({ "type": "tool_result",
                        "timestamp": call.get("timestamp").unwrap_or(&timestamp),
                        "tool_id": tool_id, "status": status, "output": output }));
                }
            }
            let text = str_field(record, "content").unwrap_or("");
            if !text.is_empty() && m.once(format!("{id}/text")) {
                events.push(json!({ "type": "message", "timestamp": timestamp,
                    "role": "assistant", "content": text, "delta": true }));
            }
        }
        _ => {}
    }
    events
}
