//! `umbel -p --output-format json` in each provider's own shape, filled from the turn's
//! transcript stats: `claude -p --output-format json` (one result object), `codex exec --json`
//! (JSONL events), `gemini -p -o json` (one object; on failure the error object on stderr),
//! `qwen -p -o json` (one array of messages ending in claude's kind of result).
//! Fields umbel cannot know (the CLI's internal timings, fast mode, subagents) are present and
//! `null`; docs/print-mode.md lists them.

use super::Done;
use crate::core::errors::Error;
use crate::core::outcome::OutcomeKind;
use crate::core::prices::cost_usd;
use crate::core::print::codex_items;
use crate::core::print::stats::{Tokens, ToolCall, TurnStats};
use crate::core::providers::Provider;
use serde_json::{Map, Value, json};

/// Everything the JSON output prints for one finished (or failed) turn, in order.
pub fn documents(done: &Done, duration_ms: u64) -> Vec<(Value, bool)> {
    match done.provider {
        Provider::Claude => vec![(claude(done, duration_ms), false)],
        Provider::Codex => codex(done).into_iter().map(|v| (v, false)).collect(),
        Provider::Gemini => vec![gemini(done)],
        Provider::Qwen => {
            let mut documents = vec![(Value::Array(qwen(done, duration_ms)), false)];
            if done.stats.api_error_status.is_some() {
                documents.push((qwen_api_error(done), true));
            }
            documents
        }
        Provider::Opencode => opencode(done, duration_ms)
            .into_iter()
            .map(|v| (v, false))
            .collect(),
    }
}

/// What qwen prints on stderr after the array when an API error ended the turn
/// (`tests/data/qwen/qwen-0.24.4-print-json-api-error-stderr.json`).
fn qwen_api_error(done: &Done) -> Value {
    let error =
        json!({ "type": "AlreadyReportedError", "message": done.error_message(), "code": 1 });
    json!({ "error": error })
}

/// qwen's `stats`: gemini's, each model's counts also `bySource.main`, with `skills` and
/// `generation` (timings umbel cannot know are null).
fn qwen_stats(done: &Done) -> Value {
    let mut stats = gemini_stats(done);
    if let Some(models) = stats["models"].as_object_mut() {
        for entry in models.values_mut() {
            let main = json!({ "api": entry["api"], "tokens": entry["tokens"] });
            entry["bySource"] = json!({ "main": main });
        }
    }
    stats["skills"] = json!({ "totalCalls": 0, "totalSuccess": 0, "totalFail": 0, "byName": {} });
    let model = done.stats.models.last();
    stats["generation"] = json!({
        "timedRequests": done.stats.total().requests, "totalTtftMs": null,
        "totalGenerationDurationMs": null, "totalThroughputOutputTokens": done.stats.total().output,
        "last": { "model": model.map(|(m, _)| m), "ttftMs": null, "generationDurationMs": null,
                  "outputTokens": model.map(|(_, t)| t.output) },
    });
    stats
}

/// Each tool call of the turn as an assistant message of its own, then its result as a `user`
/// message once it has one, as qwen prints them
/// (`tests/data/qwen/qwen-0.24.4-print-json-tool-turn.json`).
fn qwen_tool_messages(done: &Done, model: &Option<String>, usage: &Value) -> Vec<Value> {
    let mut messages = Vec::new();
    for t in &done.stats.tools {
        let id = uuid::Uuid::new_v4().to_string();
        let call = json!({ "type": "tool_use", "id": t.id, "name": t.name, "input": t.input });
        messages.push(json!({
            "type": "assistant", "uuid": id, "session_id": done.session_id,
            "parent_tool_use_id": null,
            "message": { "id": id, "type": "message", "role": "assistant", "model": model,
                         "content": [call], "stop_reason": null, "usage": usage },
        }));
        let Some(ok) = t.ok else { continue };
        let result = json!({ "type": "tool_result", "tool_use_id": t.id, "is_error": !ok,
                             "content": t.output.as_deref().unwrap_or("") });
        messages.push(json!({
            "type": "user", "uuid": uuid::Uuid::new_v4().to_string(),
            "session_id": done.session_id, "parent_tool_use_id": null,
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
pub fn qwen(done: &Done, duration_ms: u64) -> Vec<Value> {
    let stats = &done.stats;
    let total = stats.total();
    let usage = json!({
        "input_tokens": total.input,
        "output_tokens": total.output,
        "cache_read_input_tokens": total.cache_read,
        "total_tokens": total.input + total.output,
    });
    let model = stats.models.last().map(|(m, _)| m.clone());
    let init = json!({
        "type": "system", "subtype": "init", "uuid": done.session_id, "session_id": done.session_id,
        "cwd": null, "tools": null, "mcp_servers": null, "model": model, "permission_mode": null,
        "slash_commands": null, "qwen_code_version": null, "agents": null,
    });
    let id = uuid::Uuid::new_v4().to_string();
    let text = if done.ok() {
        done.printed()
    } else {
        done.error_message()
    };
    let assistant = json!({
        "type": "assistant", "uuid": id, "session_id": done.session_id, "parent_tool_use_id": null,
        "message": { "id": id, "type": "message", "role": "assistant", "model": model,
                     "content": [{ "type": "text", "text": text }], "stop_reason": null, "usage": usage },
    });
    let calls = qwen_tool_messages(done, &model, &usage);
    let denials: Vec<Value> = stats
        .tools
        .iter()
        .filter(|t| t.denied)
        .map(|t| json!({ "tool_name": t.name, "tool_use_id": t.id, "tool_input": t.input }))
        .collect();
    let mut result = json!({
        "type": "result", "subtype": "success", "uuid": uuid::Uuid::new_v4().to_string(),
        "session_id": done.session_id, "is_error": false, "duration_ms": duration_ms,
        "duration_api_ms": null, "num_turns": total.requests.max(1),
    });
    if done.ok() {
        result["result"] = json!(done.printed());
        result["usage"] = usage;
        result["permission_denials"] = json!(denials);
        result["stats"] = qwen_stats(done);
    } else {
        result["subtype"] = json!("error_during_execution");
        result["is_error"] = json!(true);
        result["usage"] = usage;
        result["permission_denials"] = json!(denials);
        result["error"] = json!({ "message": text });
        result["result"] = json!(text);
        result["stats"] = qwen_stats(done);
    }
    result["outcome"] = json!(done.outcome.outcome);
    add_outcome_fields(&mut result, done);
    let mut messages = vec![init];
    messages.extend(calls);
    messages.extend([assistant, result]);
    messages
}

/// The claude result object.
pub fn claude(done: &Done, duration_ms: u64) -> Value {
    let stats = &done.stats;
    let error = !done.ok();
    let api_error = stats.api_error_status.is_some();
    let total = stats.total();
    let usage = claude_usage(stats);
    let (model_usage, cost) = claude_models(stats);
    let denials: Vec<Value> = stats
        .tools
        .iter()
        .filter(|t| t.denied)
        .map(|t| json!({ "tool_name": t.name, "tool_use_id": t.id, "tool_input": t.input }))
        .collect();
    let terminal_reason = match done.outcome.outcome {
        OutcomeKind::Stop if !error => "completed".to_string(),
        _ if api_error => "api_error".to_string(),
        other => other.as_str().to_string(),
    };
    let turn_ended = done.outcome.outcome == OutcomeKind::Stop || api_error;
    let mut result = json!({
        "type": "result",
        // claude says `success` for a turn that ran to its end, an API error included.
        "subtype": if turn_ended { "success" } else { "error_during_execution" },
        "is_error": error,
        "duration_ms": duration_ms,
        "duration_api_ms": null,
        "num_turns": total.requests.max(1),
        "result": done.text(),
        "stop_reason": stats.stop_reason,
        "session_id": done.session_id,
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
        "uuid": stats.uuid.clone().unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        "queued_turn_count": 0,
        "result_index": 0,
        "outcome": done.outcome.outcome,
    });
    if let Some(kind) = &stats.api_error_type {
        result["api_error_type"] = json!(kind);
    }
    add_outcome_fields(&mut result, done);
    result
}

/// umbel's own fields, when they apply: the accepted value, the attempts, the reason.
fn add_outcome_fields(result: &mut Value, done: &Done) {
    if let Some(value) = &done.outcome.structured_output {
        result["structured_output"] = value.clone();
    }
    if let Some(attempts) = done.outcome.attempts {
        result["attempts"] = json!(attempts);
    }
    if let Some(reason) = &done.outcome.reason {
        result["reason"] = json!(reason);
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
        let model_cost = cost_usd(model, t.input, t.output, t.cache_read, t.cache_creation);
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

/// The codex events: the start, the body, the end.
fn codex(done: &Done) -> Vec<Value> {
    let mut events = codex_start(&done.session_id);
    events.extend(codex_body(done));
    events.extend(codex_end(done));
    events
}

/// The first events of `codex exec --json`: `thread.started`, `turn.started`.
pub fn codex_start(session_id: &str) -> Vec<Value> {
    vec![
        json!({ "type": "thread.started", "thread_id": session_id }),
        json!({ "type": "turn.started" }),
    ]
}

/// The items of a codex turn, from its stats: its shell commands as `command_execution` items
/// (a command codex refused to run has none, as in `codex exec --json`) and the answer.
pub fn codex_body(done: &Done) -> Vec<Value> {
    let mut events = Vec::new();
    let commands: Vec<&ToolCall> = done
        .stats
        .tools
        .iter()
        .filter(|t| codex_items::is_shell(t) && !t.denied)
        .collect();
    for (n, tool) in commands.iter().enumerate() {
        let id = format!("item_{n}");
        let started = codex_items::command_item(&id, tool, false);
        events.push(json!({ "type": "item.started", "item": started }));
        if tool.ok.is_some() {
            let completed = codex_items::command_item(&id, tool, true);
            events.push(json!({ "type": "item.completed", "item": completed }));
        }
    }
    if done.ok() {
        let id = format!("item_{}", commands.len());
        events.push(codex_items::agent_message(&id, &done.printed()));
    }
    events
}

/// The last events of a codex turn: `turn.completed` with the usage, or the error and
/// `turn.failed`.
pub fn codex_end(done: &Done) -> Vec<Value> {
    if done.ok() {
        return vec![codex_items::turn_completed(&done.stats.total())];
    }
    let message = done.error_message();
    vec![
        json!({ "type": "error", "message": message }),
        json!({ "type": "turn.failed", "error": { "message": message } }),
    ]
}

/// The gemini object and whether it goes to stderr (a failed turn: the error object).
pub fn gemini(done: &Done) -> (Value, bool) {
    if !done.ok() {
        // The transcript's `[API Error: {…}]`; gemini prints the quoted error alone.
        let message = done.error_message();
        let message = message
            .strip_prefix("[API Error: ")
            .and_then(|m| m.strip_suffix(']'))
            .unwrap_or(&message);
        let error = json!({
            "type": "Error",
            "message": message,
            "code": done.stats.api_error_status,
        });
        return (
            json!({ "session_id": done.session_id, "error": error }),
            true,
        );
    }
    (
        json!({ "session_id": done.session_id, "response": done.printed(), "stats": gemini_stats(done) }),
        false,
    )
}

fn gemini_tokens(t: &Tokens) -> Value {
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

fn gemini_stats(done: &Done) -> Value {
    let stats = &done.stats;
    let mut models = Map::new();
    for (model, t) in &stats.models {
        let api = json!({ "totalRequests": t.requests, "totalErrors": 0, "totalLatencyMs": null, "errorsByType": {} });
        let main = json!({ "totalRequests": t.requests, "totalErrors": 0, "totalLatencyMs": null, "tokens": gemini_tokens(t) });
        models.insert(
            model.clone(),
            json!({ "api": api, "tokens": gemini_tokens(t), "roles": { "main": main } }),
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

fn bump(value: &mut Value, pointer: &str) {
    if let Some(n) = value.pointer_mut(pointer) {
        *n = json!(n.as_u64().unwrap_or(0) + 1);
    }
}

/// The provider-shaped JSON of a failure before any turn ran (bad input, spawn failed), with
/// umbel's own `error` object added; the bool is true when it goes to stderr (gemini).
pub fn failure(provider: Provider, err: &Error) -> Vec<(Value, bool)> {
    let message = err.to_string();
    let umbel = json!({ "code": err.code(), "message": message });
    match provider {
        Provider::Claude => vec![(
            json!({
                "type": "result",
                "subtype": "error_during_execution",
                "is_error": true,
                "result": message,
                "terminal_reason": err.code(),
                "error": umbel,
            }),
            false,
        )],
        Provider::Codex => vec![
            (
                json!({ "type": "error", "message": message, "error": umbel }),
                false,
            ),
            (
                json!({ "type": "turn.failed", "error": { "message": message } }),
                false,
            ),
        ],
        Provider::Gemini => vec![(
            json!({ "session_id": null, "error": { "type": "Error", "message": message, "code": err.code() } }),
            true,
        )],
        Provider::Qwen => vec![(
            json!([{
                "type": "result",
                "subtype": "error_during_execution",
                "is_error": true,
                "error": umbel,
            }]),
            false,
        )],
        Provider::Opencode => vec![(
            json!({ "type": "error", "timestamp": now_ms(), "sessionID": null,
                "error": { "name": "UnknownError", "data": { "message": message } }, "umbel": umbel }),
            false,
        )],
    }
}

/// Milliseconds since the epoch, as opencode stamps its events.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `opencode run --format json`'s events for the turn (one JSON object a line, each
/// `{"type", "timestamp", "sessionID", "part"}`, recorded on 1.18.33): `step_start`, a
/// `tool_use` per finished tool call, the answer's `text`, `step_finish` with the turn's tokens
/// and cost; a failed turn ends with `{"type":"error", …, "error": {"name", "data": {"message"}}}`.
/// Ids umbel cannot know (part, message, snapshot) are null.
pub fn opencode(done: &Done, duration_ms: u64) -> Vec<Value> {
    if done.ok() && !done.stats.parts.is_empty() {
        return opencode_steps(done);
    }
    let at = now_ms();
    let start = at.saturating_sub(duration_ms);
    let session = &done.session_id;
    let event = |kind: &str, part: Value| json!({ "type": kind, "timestamp": at, "sessionID": session, "part": part });
    let mut events = vec![event(
        "step_start",
        json!({ "id": null, "messageID": null, "sessionID": session, "snapshot": null, "type": "step-start" }),
    )];
    for tool in done.stats.tools.iter().filter(|t| t.ok.is_some()) {
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
    if !done.ok() {
        let name = done
            .stats
            .api_error_type
            .clone()
            .unwrap_or_else(|| "UnknownError".into());
        // The recorded error as opencode prints it; umbel's own words where it has none.
        let error = done.stats.api_error.clone().unwrap_or_else(|| {
            json!({ "name": name, "data": { "message": done.error_message(),
                "statusCode": done.stats.api_error_status } })
        });
        events.push(
            json!({ "type": "error", "timestamp": at, "sessionID": session, "error": error }),
        );
        return events;
    }
    events.push(event(
        "text",
        json!({ "id": null, "messageID": null, "sessionID": session, "type": "text",
            "text": done.printed(), "time": { "start": start, "end": at } }),
    ));
    let total = done.stats.total();
    let cost = opencode_cost(done);
    events.push(event(
        "step_finish",
        json!({ "id": null, "reason": done.stats.stop_reason.as_deref().unwrap_or("stop"),
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
fn opencode_steps(done: &Done) -> Vec<Value> {
    let at = now_ms();
    let session = &done.session_id;
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
    done.stats
        .parts
        .iter()
        .filter_map(|part| {
            let kind = kind(part)?;
            Some(json!({ "type": kind, "timestamp": stamp(part), "sessionID": session, "part": part }))
        })
        .collect()
}

/// The turn's cost by umbel's price list (opencode's own is its model catalogue's).
fn opencode_cost(done: &Done) -> f64 {
    done.stats
        .models
        .iter()
        .map(|(model, t)| cost_usd(model, t.input, t.output, t.cache_read, t.cache_creation))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::outcome::Outcome;

    /// `opencode run --format json` on 1.18.33 against fake-model: one text turn.
    const RECORDED: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/opencode/1.18.33/opencode-1.18.33-run-format-json.jsonl"
    ));
    /// The worker record of a like turn (`core/providers/opencode/`).
    const RECORD: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/opencode/1.18.33/opencode-1.18.33-record-text-turn.jsonl"
    ));

    fn keys(value: &Value) -> Vec<String> {
        let mut keys: Vec<String> = value
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    }

    #[test]
    fn opencode_json_has_the_events_and_keys_opencode_run_prints() {
        let records: Vec<Value> = RECORD
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let done = Done {
            provider: Provider::Opencode,
            outcome: Outcome::new(OutcomeKind::Stop, "the turn ended", 1),
            answer: Some(crate::operations::worker::Answer {
                name: "w".into(),
                provider: "opencode".into(),
                text: "Response to: \"say hi four\"".into(),
                source: "transcript",
                is_error: false,
                session_id: "ses_x".into(),
                transcript_path: None,
                structured_output: None,
                interrupted: false,
                partial_text: None,
            }),
            session_id: "ses_x".into(),
            stats: Provider::Opencode.module().turn_stats(&records),
            live: None,
        };
        let ours = opencode(&done, 1000);
        let theirs: Vec<Value> = RECORDED
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(ours.len(), theirs.len(), "{ours:?}");
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a["type"], b["type"]);
            assert_eq!(keys(a), keys(b), "{}", a["type"]);
            assert_eq!(keys(&a["part"]), keys(&b["part"]), "{} part", a["type"]);
        }
        assert_eq!(ours[1]["part"]["text"], "Response to: \"say hi four\"");
        assert_eq!(ours[2]["part"]["tokens"], theirs[2]["part"]["tokens"]);
        assert_eq!(ours[2]["part"]["reason"], "stop");
    }

    /// `opencode run --format json --auto` on a shell tool turn (1.18.33, fake-model).
    const RECORDED_TOOL: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/opencode/1.18.33/opencode-1.18.33-run-format-json-tool.jsonl"
    ));

    #[test]
    fn opencode_json_tool_use_carries_the_parts_own_state() {
        let recorded: Vec<Value> = RECORDED_TOOL
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let theirs = recorded.iter().find(|e| e["type"] == "tool_use").unwrap();
        // The worker record holds the same part, as the plugin heard it.
        let records = vec![json!({ "type": "part", "part": theirs["part"] })];
        let done = Done {
            provider: Provider::Opencode,
            outcome: Outcome::new(OutcomeKind::Stop, "the turn ended", 1),
            answer: None,
            session_id: "ses_x".into(),
            stats: Provider::Opencode.module().turn_stats(&records),
            live: None,
        };
        let ours = opencode(&done, 1000);
        let tool = ours.iter().find(|e| e["type"] == "tool_use").unwrap();
        assert_eq!(keys(&tool["part"]["state"]), keys(&theirs["part"]["state"]));
        assert_eq!(tool["part"]["state"]["metadata"]["exit"], 0);
        assert_eq!(tool["part"]["state"]["title"], "echo hi");
    }

    /// `opencode run --format json` on an API error (HTTP 400 from fake-model, 1.18.33).
    const RECORDED_ERROR: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/opencode/1.18.33/opencode-1.18.33-run-format-json-api-error.jsonl"
    ));

    #[test]
    fn opencode_json_error_is_the_recorded_error_object() {
        let theirs: Value = serde_json::from_str(RECORDED_ERROR.trim()).unwrap();
        // The worker record's assistant message carries the same error.
        let records = vec![json!({ "type": "message", "info": { "id": "msg_1",
            "role": "assistant", "modelID": "claude-sonnet-4-5", "error": theirs["error"] } })];
        let done = Done {
            provider: Provider::Opencode,
            outcome: Outcome::new(OutcomeKind::ProviderError, "the API failed", 1),
            answer: None,
            session_id: "ses_x".into(),
            stats: Provider::Opencode.module().turn_stats(&records),
            live: None,
        };
        let ours = opencode(&done, 1000);
        let error = ours.iter().find(|e| e["type"] == "error").unwrap();
        assert_eq!(error["error"], theirs["error"]);
        assert_eq!(keys(error), keys(&theirs));
    }

    /// qwen's `-p -o json` result on an API error, as 0.23.0 printed it (a `success` whose
    /// `result` is the error) and as 0.24.4 does (`error_during_execution` with `error`).
    const QWEN_ERRORS: [&str; 2] = [
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/qwen/0.23.0/qwen-0.23.0-print-json-api-error.json"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/qwen/qwen-0.24.4-print-json-api-error.json"
        )),
    ];

    #[test]
    fn qwen_json_error_result_has_the_keys_of_every_release() {
        let done = Done {
            provider: Provider::Qwen,
            outcome: Outcome::new(OutcomeKind::ProviderError, "the API failed", 1),
            answer: None,
            session_id: "s".into(),
            stats: Provider::Qwen.module().turn_stats(&[]),
            live: None,
        };
        let ours = qwen(&done, 1000);
        let result = ours.iter().find(|m| m["type"] == "result").unwrap();
        assert_eq!(result["is_error"], true);
        assert_eq!(result["result"], result["error"]["message"]);
        for recorded in QWEN_ERRORS {
            let theirs: Vec<Value> = serde_json::from_str(recorded).unwrap();
            let theirs = theirs.iter().find(|m| m["type"] == "result").unwrap();
            for key in keys(theirs) {
                assert!(result.get(&key).is_some(), "no `{key}`: {result}");
            }
        }
    }
}
