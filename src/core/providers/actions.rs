//! The tool calls of one turn, per provider, from the turn's transcript records (oldest first):
//! claude `tool_use` / `tool_result` blocks, codex `function_call` / `function_call_output`
//! (and `CommandExecution` exit codes), gemini `toolCalls` on its (upserted) `gemini` records.

use super::str_field;
use super::tool_action::{ActionStatus, ToolAction, summarize_input};
use serde_json::Value;
use std::collections::HashMap;

/// A call seen, with the id its result will name.
struct Call {
    id: Option<String>,
    tool: String,
    input: Value,
}

/// Puts calls and their results together, in call order.
fn pair(calls: Vec<Call>, results: &HashMap<String, ActionStatus>) -> Vec<ToolAction> {
    calls
        .into_iter()
        .map(|call| ToolAction {
            status: call
                .id
                .as_deref()
                .and_then(|id| results.get(id).copied())
                .unwrap_or(ActionStatus::Pending),
            input: summarize_input(&call.input),
            tool: call.tool,
        })
        .collect()
}

fn content_blocks(record: &Value) -> &[Value] {
    record
        .pointer("/message/content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Claude: `tool_use` blocks of the (main-thread) assistant records, `tool_result` blocks of the
/// user records (`is_error` marks a failure or a refusal).
pub fn claude(records: &[Value]) -> Vec<ToolAction> {
    let mut calls = Vec::new();
    let mut results = HashMap::new();
    for record in records {
        if record.get("isSidechain") == Some(&Value::Bool(true)) {
            continue;
        }
        for block in content_blocks(record) {
            match (str_field(record, "type"), str_field(block, "type")) {
                (Some("assistant"), Some("tool_use")) => calls.push(Call {
                    id: str_field(block, "id").map(str::to_string),
                    tool: str_field(block, "name").unwrap_or("?").to_string(),
                    input: block.get("input").cloned().unwrap_or(Value::Null),
                }),
                (Some("user"), Some("tool_result")) => {
                    if let Some(id) = str_field(block, "tool_use_id") {
                        let failed = block.get("is_error") == Some(&Value::Bool(true));
                        results.insert(id.to_string(), status_of(failed));
                    }
                }
                _ => {}
            }
        }
    }
    pair(calls, &results)
}

fn status_of(failed: bool) -> ActionStatus {
    if failed {
        ActionStatus::Error
    } else {
        ActionStatus::Ok
    }
}

/// Codex: `function_call` (JSON `arguments`), `custom_tool_call` (text `input`) and
/// `local_shell_call` response items; a `*_output` item is the result, failed when its text says
/// `Process exited with code N` with N ≠ 0 or the command's `CommandExecution` item failed.
pub fn codex(records: &[Value]) -> Vec<ToolAction> {
    let mut calls = Vec::new();
    let mut results = HashMap::new();
    for record in records {
        let Some(payload) = record.get("payload") else {
            continue;
        };
        let call_id = str_field(payload, "call_id").map(str::to_string);
        match (str_field(record, "type"), str_field(payload, "type")) {
            (Some("response_item"), Some("function_call")) => {
                let raw = payload.get("arguments").cloned().unwrap_or(Value::Null);
                let input = match &raw {
                    Value::String(text) => serde_json::from_str(text).unwrap_or(raw),
                    _ => raw,
                };
                calls.push(Call {
                    id: call_id,
                    tool: str_field(payload, "name").unwrap_or("?").to_string(),
                    input,
                });
            }
            (Some("response_item"), Some("custom_tool_call")) => calls.push(Call {
                id: call_id,
                tool: str_field(payload, "name").unwrap_or("?").to_string(),
                input: payload.get("input").cloned().unwrap_or(Value::Null),
            }),
            (Some("response_item"), Some("local_shell_call")) => calls.push(Call {
                id: call_id,
                tool: "local_shell".to_string(),
                input: payload.pointer("/action").cloned().unwrap_or(Value::Null),
            }),
            (Some("response_item"), Some("function_call_output" | "custom_tool_call_output")) => {
                if let Some(id) = call_id {
                    let text = payload.get("output").map(output_text).unwrap_or_default();
                    let failed = exit_code_in(&text).is_some_and(|code| code != 0);
                    record_result(&mut results, id, status_of(failed));
                }
            }
            (Some("event_msg"), Some("item_completed")) => {
                let item = payload.get("item").unwrap_or(&Value::Null);
                if str_field(item, "type") == Some("CommandExecution")
                    && let Some(id) = str_field(item, "id")
                {
                    let code = item.get("exit_code").and_then(Value::as_i64);
                    let failed = code.is_some_and(|c| c != 0)
                        || matches!(str_field(item, "status"), Some("failed" | "declined"));
                    record_result(&mut results, id.to_string(), status_of(failed));
                }
            }
            _ => {}
        }
    }
    pair(calls, &results)
}

/// Keeps the worse of two results for one call (its output and its command item).
fn record_result(results: &mut HashMap<String, ActionStatus>, id: String, status: ActionStatus) {
    results
        .entry(id)
        .and_modify(|s| *s = (*s).max(status))
        .or_insert(status);
}

fn output_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `N` of a `Process exited with code N` line.
fn exit_code_in(text: &str) -> Option<i64> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Process exited with code "))
        .and_then(|n| n.trim().parse().ok())
}

/// Gemini: the `toolCalls` of the last version of each `gemini` record; `status` `success` is
/// ok, `error` and `cancelled` are errors, anything else (scheduled, awaiting approval,
/// executing) is pending.
pub fn gemini(records: &[Value]) -> Vec<ToolAction> {
    let mut order: Vec<&str> = Vec::new();
    let mut latest: HashMap<&str, &Value> = HashMap::new();
    for record in records {
        if str_field(record, "type") != Some("gemini") {
            continue;
        }
        let Some(id) = str_field(record, "id") else {
            continue;
        };
        if latest.insert(id, record).is_none() {
            order.push(id);
        }
    }
    order
        .iter()
        .filter_map(|id| latest.get(id)?.get("toolCalls")?.as_array())
        .flatten()
        .map(|call| ToolAction {
            tool: str_field(call, "name").unwrap_or("?").to_string(),
            input: summarize_input(call.get("args").unwrap_or(&Value::Null)),
            status: match str_field(call, "status") {
                Some("success") => ActionStatus::Ok,
                Some("error" | "cancelled") => ActionStatus::Error,
                _ => ActionStatus::Pending,
            },
        })
        .collect()
}

/// Qwen: the `functionCall` parts of `assistant` records, each settled by the `tool_result`
/// record whose `functionResponse` has its id (`toolCallResult.status` `success` is ok, any
/// other is an error); a call with no result yet is pending.
pub fn qwen(records: &[Value]) -> Vec<ToolAction> {
    let parts = |record: &Value| {
        record
            .pointer("/message/parts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let mut results: HashMap<String, ActionStatus> = HashMap::new();
    for record in records
        .iter()
        .filter(|r| str_field(r, "type") == Some("tool_result"))
    {
        let status = match record
            .pointer("/toolCallResult/status")
            .and_then(Value::as_str)
        {
            Some("success") => ActionStatus::Ok,
            _ => ActionStatus::Error,
        };
        for part in parts(record) {
            if let Some(id) = part.pointer("/functionResponse/id").and_then(Value::as_str) {
                results.insert(id.to_string(), status);
            }
        }
    }
    records
        .iter()
        .filter(|r| str_field(r, "type") == Some("assistant"))
        .flat_map(parts)
        .filter_map(|part| part.get("functionCall").cloned())
        .map(|call| ToolAction {
            tool: str_field(&call, "name").unwrap_or("?").to_string(),
            input: summarize_input(call.get("args").unwrap_or(&Value::Null)),
            status: str_field(&call, "id")
                .and_then(|id| results.get(id).copied())
                .unwrap_or(ActionStatus::Pending),
        })
        .collect()
}

/// opencode: its `tool` parts (`{"type":"part","part":{"type":"tool","tool","callID","state":
/// {"status","input"}}}`), the newest version of each, in the order they first appear.
pub fn opencode(records: &[Value]) -> Vec<ToolAction> {
    let mut order: Vec<&str> = Vec::new();
    let mut latest: HashMap<&str, &Value> = HashMap::new();
    for part in records.iter().filter_map(|r| r.get("part")) {
        if str_field(part, "type") != Some("tool") {
            continue;
        }
        let Some(id) = str_field(part, "id") else {
            continue;
        };
        if latest.insert(id, part).is_none() {
            order.push(id);
        }
    }
    order
        .iter()
        .filter_map(|id| latest.get(id))
        .map(|part| ToolAction {
            tool: str_field(part, "tool").unwrap_or("?").to_string(),
            input: summarize_input(part.pointer("/state/input").unwrap_or(&Value::Null)),
            status: match part.pointer("/state/status").and_then(Value::as_str) {
                Some("completed") => ActionStatus::Ok,
                Some("error") => ActionStatus::Error,
                _ => ActionStatus::Pending,
            },
        })
        .collect()
}

#[cfg(test)]
#[path = "actions_tests.rs"]
mod tests;
