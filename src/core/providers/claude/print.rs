//! `claude -p`'s output: `--output-format json`'s one result object (tokens, cost at list
//! prices, denials, subagents from the turn's `Task`/`Agent` calls) and `stream-json`'s
//! `system`/`init` and `result` events.

use crate::core::budget::LimitKind;
use crate::core::outcome::OutcomeKind;
use crate::core::prices::cost_usd;
use crate::core::print::shape::{
    PrintShapes, PrintTurn, Stamps, StreamStart, Streamed, add_outcome_fields, denials,
};
use crate::core::print::stats::{Tokens, ToolCall, TurnStats};
use crate::core::print::stream::{RecordEvents, StreamMapper};
use crate::core::providers::{Provider, price_of, str_field};
use serde_json::{Map, Value, json};

/// claude's print mode.
pub struct Shapes;

impl PrintShapes for Shapes {
    fn stream_records(&self) -> RecordEvents {
        stream_record
    }

    fn join_stdin(&self, prompt: &str, stdin: &str) -> String {
        format!("{prompt}\n{stdin}")
    }

    fn json(&self, turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Vec<(Value, bool)> {
        vec![(result(turn, duration_ms, stamps), false)]
    }

    fn json_failure(&self, code: &str, message: &str, _: &dyn Stamps) -> Vec<(Value, bool)> {
        let failure = json!({
            "type": "result",
            "subtype": "error_during_execution",
            "is_error": true,
            "result": message,
            "terminal_reason": code,
            "error": { "code": code, "message": message },
        });
        vec![(failure, false)]
    }

    fn stream_init(&self, start: &StreamStart<'_>, stamps: &dyn Stamps) -> Vec<Value> {
        vec![system_init(start, stamps)]
    }

    fn stream_end(
        &self,
        turn: &PrintTurn,
        duration_ms: u64,
        _: Option<&Streamed>,
        stamps: &dyn Stamps,
    ) -> Vec<Value> {
        let mut result = result(turn, duration_ms, stamps);
        result["model_usage_since_last_result"] = result["modelUsage"].clone();
        vec![result]
    }
}

/// The `system`/`init` event claude's stream (and qwen's) opens with; what only the CLI knows
/// (its tools, version, key source) is null.
pub fn system_init(start: &StreamStart<'_>, stamps: &dyn Stamps) -> Value {
    json!({
        "type": "system",
        "subtype": "init",
        "cwd": start.cwd,
        "session_id": start.session_id,
        "tools": null,
        "mcp_servers": null,
        "model": start.model,
        "permissionMode": null,
        "apiKeySource": null,
        "claude_code_version": null,
        "output_style": null,
        "uuid": stamps.id(),
    })
}

/// The claude result object.
pub fn result(turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Value {
    let stats = &turn.stats;
    let error = !turn.ok();
    let api_error = stats.api_error_status.is_some();
    let total = stats.total();
    let usage = claude_usage(stats);
    let (model_usage, cost) = claude_models(stats);
    let denials = denials(stats);
    let terminal_reason = match turn.outcome.outcome {
        OutcomeKind::Stop if !error => "completed".to_string(),
        _ if api_error => "api_error".to_string(),
        other => other.as_str().to_string(),
    };
    let turn_ended = turn.outcome.outcome == OutcomeKind::Stop || api_error;
    let mut result = json!({
        "type": "result",
        // claude says `success` for a turn that ran to its end, an API error included.
        "subtype": if turn_ended { "success" } else { "error_during_execution" },
        "is_error": error,
        "duration_ms": duration_ms,
        "duration_api_ms": null,
        "num_turns": total.requests.max(1),
        "result": turn.text.as_str(),
        "stop_reason": stats.stop_reason,
        "session_id": turn.session_id,
        "total_cost_usd": (cost * 1_000_000.0).round() / 1_000_000.0,
        "usage": usage,
        "modelUsage": model_usage,
        "permission_denials": denials,
        "terminal_reason": terminal_reason,
        "fast_mode_state": null,
        "fast_mode_disabled_reason": null,
        "subagent_stats": subagent_stats(&stats.tools),
        "safety_stops": null,
        "api_error_status": stats.api_error_status,
        "ttft_ms": null,
        "ttft_stream_ms": null,
        "time_to_request_ms": null,
        "first_content_frame_ms": null,
        "uuid": stats.uuid.clone().unwrap_or_else(|| stamps.id()),
        "queued_turn_count": 0,
        "result_index": 0,
        "outcome": turn.outcome.outcome,
    });
    if let Some(kind) = &stats.api_error_type {
        result["api_error_type"] = json!(kind);
    }
    add_outcome_fields(&mut result, turn);
    if turn.outcome.outcome == OutcomeKind::Budget {
        over_limit(&mut result, turn);
    }
    result
}

/// claude's result when `--max-budget-usd` or `--max-turns` is reached (2.1.332, recorded in
/// tests/data/claude/…-print-json-max-budget*.json, …-max-turns.json): its `subtype` and
/// `terminal_reason`, the reason in `errors`, no `result` — the answer is withheld.
fn over_limit(result: &mut Value, turn: &PrintTurn) {
    let (subtype, terminal) = match turn.outcome.reason.as_deref() {
        Some(r) if r == LimitKind::BudgetUsd.as_str() => {
            ("error_max_budget_usd", "budget_exhausted")
        }
        Some(r) if r == LimitKind::Turns.as_str() => ("error_max_turns", "max_turns"),
        _ => return,
    };
    result["subtype"] = json!(subtype);
    result["terminal_reason"] = json!(terminal);
    result["errors"] = json!([turn.outcome.message]);
    if let Some(fields) = result.as_object_mut() {
        fields.remove("result");
    }
}

/// claude's `usage`: the API's last usage object, its token counts the turn's totals.
fn claude_usage(stats: &TurnStats) -> Value {
    let total = stats.total();
    let mut usage = stats
        .usage
        .clone()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    usage["input_tokens"] = json!(total.input);
    usage["cache_creation_input_tokens"] = json!(total.cache_creation);
    usage["cache_read_input_tokens"] = json!(total.cache_read);
    usage["output_tokens"] = json!(total.output);
    usage["output_tokens_details"] = json!({ "thinking_tokens": total.thoughts });
    usage
}

/// claude's `modelUsage`, and the turn's cost at list prices.
fn claude_models(stats: &TurnStats) -> (Map<String, Value>, f64) {
    let mut model_usage = Map::new();
    let mut cost = 0.0;
    for (model, t) in &stats.models {
        let price = price_of(Provider::Claude, model);
        let model_cost = cost_usd(price, t.input, t.output, t.cache_read, t.cache_creation);
        cost += model_cost;
        model_usage.insert(model.clone(), claude_model_usage(model, t, model_cost));
    }
    (model_usage, cost)
}

/// Subagents as the turn's `Task`/`Agent` tool calls show them; what the transcript cannot
/// tell (background starts, refusals, kills, depth) is 0.
fn subagent_stats(tools: &[ToolCall]) -> Value {
    let agents: Vec<&ToolCall> = tools
        .iter()
        .filter(|t| matches!(t.name.as_str(), "Task" | "Agent"))
        .collect();
    let mut by_type = Map::new();
    for agent in &agents {
        let kind = agent.input["subagent_type"]
            .as_str()
            .unwrap_or("general-purpose");
        let entry = by_type.entry(kind.to_string()).or_insert(json!(0));
        *entry = json!(entry.as_u64().unwrap_or(0) + 1);
    }
    let count = |ok: bool| agents.iter().filter(|a| a.ok == Some(ok)).count();
    json!({
        "spawned": agents.len(),
        "requested": { "background": 0, "foreground": agents.len(), "unset": 0 },
        "started_in_background": 0,
        "max_depth": if agents.is_empty() { 0 } else { 1 },
        "spawned_by_subagents": 0,
        "completed": count(true),
        "failed": count(false),
        "killed": { "parent": 0, "user": 0, "system": 0 },
        "refused": { "depth_limit": 0, "concurrency_limit": 0, "budget": 0 },
        "by_type": by_type,
    })
}

fn claude_model_usage(model: &str, t: &Tokens, cost: f64) -> Value {
    json!({
        "inputTokens": t.input,
        "outputTokens": t.output,
        "cacheReadInputTokens": t.cache_read,
        "cacheCreationInputTokens": t.cache_creation,
        "webSearchRequests": null,
        "costUSD": cost,
        "contextWindow": null,
        "maxOutputTokens": null,
        "thinkingTokens": t.thoughts,
        "cacheCreationEphemeral5mInputTokens": null,
        "cacheCreationEphemeral1hInputTokens": null,
        "canonicalModel": model,
        "provider": null,
        "costBasis": "list",
    })
}

/// One transcript record as claude's `stream-json` events.
pub fn stream_record(m: &mut StreamMapper, record: &Value) -> Vec<Value> {
    let message = record.get("message").unwrap_or(&Value::Null);
    let kind = str_field(record, "type");
    let is_tool_result = message
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter()
                .any(|b| str_field(b, "type") == Some("tool_result"))
        });
    let event_type = match kind {
        Some("assistant") => "assistant",
        Some("user") if is_tool_result => "user",
        _ => return Vec::new(),
    };
    let uuid = str_field(record, "uuid").unwrap_or("").to_string();
    if !m.once(uuid.clone()) {
        return Vec::new();
    }
    let mut event = json!({
        "type": event_type,
        "message": message,
        "parent_tool_use_id": record.get("parentToolUseID").cloned().unwrap_or(Value::Null),
        "session_id": m.session_id(),
        "uuid": uuid,
        "timestamp": record.get("timestamp").cloned().unwrap_or(Value::Null),
    });
    if let Some(result) = record.get("toolUseResult") {
        event["tool_use_result"] = result.clone();
    }
    vec![event]
}

#[cfg(test)]
#[path = "print_tests.rs"]
mod tests;
