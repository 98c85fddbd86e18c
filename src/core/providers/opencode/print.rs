//! `opencode run --format json`'s output: one event a line, `json` and `stream-json` alike.

use crate::core::print::shape::{PrintShapes, PrintTurn, Stamps, StreamStart, Streamed};
use crate::core::providers::{Provider, price_of};
use serde_json::{Value, json};

/// opencode's print mode.
pub struct Shapes;

impl PrintShapes for Shapes {
    fn join_stdin(&self, prompt: &str, stdin: &str) -> String {
        format!("{}\n{stdin}", quoted(prompt))
    }

    fn json(&self, turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Vec<(Value, bool)> {
        events(turn, duration_ms, stamps)
            .into_iter()
            .map(|v| (v, false))
            .collect()
    }

    fn json_failure(&self, code: &str, message: &str, stamps: &dyn Stamps) -> Vec<(Value, bool)> {
        let failure = json!({ "type": "error", "timestamp": stamps.now_ms(), "sessionID": null,
            "error": { "name": "UnknownError", "data": { "message": message } },
            "umbel": { "code": code, "message": message } });
        vec![(failure, false)]
    }

    /// `opencode run --format json` opens with the turn's first step.
    fn stream_init(&self, _: &StreamStart<'_>, _: &dyn Stamps) -> Vec<Value> {
        Vec::new()
    }

    fn stream_end(
        &self,
        turn: &PrintTurn,
        duration_ms: u64,
        _: Option<&Streamed>,
        stamps: &dyn Stamps,
    ) -> Vec<Value> {
        events(turn, duration_ms, stamps)
    }
}

/// `opencode run --format json`'s events for the turn (one JSON object a line, each
/// `{"type", "timestamp", "sessionID", "part"}`, recorded on 1.18.33): `step_start`, a
/// `tool_use` per finished tool call, the answer's `text`, `step_finish` with the turn's tokens
/// and cost; a failed turn ends with `{"type":"error", …, "error": {"name", "data": {"message"}}}`.
/// Ids umbel cannot know (part, message, snapshot) are null.
pub fn events(turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Vec<Value> {
    if turn.ok() && !turn.stats.parts.is_empty() {
        return steps(turn, stamps);
    }
    let at = stamps.now_ms();
    let start = at.saturating_sub(duration_ms);
    let session = &turn.session_id;
    let event = |kind: &str, part: Value| json!({ "type": kind, "timestamp": at, "sessionID": session, "part": part });
    let mut events = vec![event(
        "step_start",
        json!({ "id": null, "messageID": null, "sessionID": session, "snapshot": null, "type": "step-start" }),
    )];
    for tool in turn.stats.tools.iter().filter(|t| t.ok.is_some()) {
        let status = if tool.ok == Some(true) {
            "completed"
        } else {
            "error"
        };
        events.push(event(
            "tool_use",
            json!({ "id": null, "messageID": null, "sessionID": session, "type": "tool",
                "callID": tool.id, "tool": tool.name,
                "state": tool.state.clone().unwrap_or_else(|| json!({ "status": status, "input": tool.input, "output": tool.output })) }),
        ));
    }
    if !turn.ok() {
        let name = turn
            .stats
            .api_error_type
            .clone()
            .unwrap_or_else(|| "UnknownError".into());
        // The recorded error as opencode prints it; umbel's own words where it has none.
        let error = turn.stats.api_error.clone().unwrap_or_else(|| {
            json!({ "name": name, "data": { "message": turn.error_message(),
                "statusCode": turn.stats.api_error_status } })
        });
        events.push(
            json!({ "type": "error", "timestamp": at, "sessionID": session, "error": error }),
        );
        return events;
    }
    events.push(event(
        "text",
        json!({ "id": null, "messageID": null, "sessionID": session, "type": "text",
            "text": turn.printed(), "time": { "start": start, "end": at } }),
    ));
    let total = turn.stats.total();
    let cost = cost(turn);
    events.push(event(
        "step_finish",
        json!({ "id": null, "reason": turn.stats.stop_reason.as_deref().unwrap_or("stop"),
            "snapshot": null, "messageID": null, "sessionID": session, "type": "step-finish",
            "tokens": { "total": total.input + total.output + total.thoughts, "input": total.input,
                "output": total.output, "reasoning": total.thoughts,
                "cache": { "write": total.cache_creation, "read": total.cache_read } },
            "cost": cost }),
    ));
    events
}

/// `opencode run --format json`'s events from the record's parts, step by step as run.ts
/// prints them: a `step-start`, a text once whole, a tool call once it ended, a `step-finish`.
fn steps(turn: &PrintTurn, stamps: &dyn Stamps) -> Vec<Value> {
    let at = stamps.now_ms();
    let session = &turn.session_id;
    let kind = |part: &Value| {
        let ended = part.pointer("/time/end").is_some();
        let status = part.pointer("/state/status").and_then(Value::as_str);
        match part.get("type").and_then(Value::as_str)? {
            "step-start" => Some("step_start"),
            "step-finish" => Some("step_finish"),
            "text" if ended => Some("text"),
            "tool" if matches!(status, Some("completed" | "error")) => Some("tool_use"),
            _ => None,
        }
    };
    let stamp = |part: &Value| {
        part.pointer("/time/end")
            .and_then(Value::as_u64)
            .unwrap_or(at)
    };
    turn.stats
        .parts
        .iter()
        .filter_map(|part| {
            let kind = kind(part)?;
            Some(json!({ "type": kind, "timestamp": stamp(part), "sessionID": session, "part": part }))
        })
        .collect()
}

/// The turn's cost: opencode's own figure (its model catalogue's) where its records carry one,
/// else by umbel's price list.
fn cost(turn: &PrintTurn) -> f64 {
    turn.stats
        .models
        .iter()
        .map(|(model, t)| t.cost_usd(price_of(Provider::Opencode, model), t.input, t.output))
        .sum()
}

/// The prompt as `opencode run` sends its one message argument: in double quotes when it holds
/// a space (recorded on 1.18.33: `opencode run "say hi"` sends `"say hi"`).
pub fn quoted(prompt: &str) -> String {
    if prompt.contains(' ') {
        format!("\"{prompt}\"")
    } else {
        prompt.to_string()
    }
}

#[cfg(test)]
#[path = "print_tests.rs"]
mod tests;
