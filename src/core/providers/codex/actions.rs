//! codex's tool calls of a turn: `function_call` / `function_call_output` (and
//! `CommandExecution` exit codes).

use super::super::actions::{
    Call, CallResult, exit_code_in, output_text, pair, record_result, status_of,
};
use super::super::str_field;
use super::super::tool_action::ToolAction;
use serde_json::Value;
use std::collections::HashMap;

/// Codex: `function_call` (JSON `arguments`), `custom_tool_call` (text `input`) and
/// `local_shell_call` response items; a `*_output` item is the result, failed when its text says
/// `Process exited with code N` with N ≠ 0 or the command's `CommandExecution` item failed.
pub fn read(records: &[Value]) -> Vec<ToolAction> {
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
                    record_result(&mut results, id, output_result(payload));
                }
            }
            (Some("event_msg"), Some("item_completed")) => {
                if let Some((id, result)) = command_result(payload) {
                    record_result(&mut results, id, result);
                }
            }
            _ => {}
        }
    }
    pair(calls, &results)
}

/// A `*_output` item's result: its text, failed when it says `Process exited with code N`
/// with N ≠ 0.
fn output_result(payload: &Value) -> CallResult {
    let text = payload.get("output").map(output_text).unwrap_or_default();
    let failed = exit_code_in(&text).is_some_and(|code| code != 0);
    CallResult {
        status: status_of(failed),
        output: Some(text),
    }
}

/// A completed `CommandExecution` item's call id and result: failed on a non-zero exit code,
/// or when it failed or was declined.
fn command_result(payload: &Value) -> Option<(String, CallResult)> {
    let item = payload.get("item")?;
    if str_field(item, "type") != Some("CommandExecution") {
        return None;
    }
    let id = str_field(item, "id")?;
    let code = item.get("exit_code").and_then(Value::as_i64);
    let failed = code.is_some_and(|c| c != 0)
        || matches!(str_field(item, "status"), Some("failed" | "declined"));
    let result = CallResult {
        status: status_of(failed),
        output: None,
    };
    Some((id.to_string(), result))
}
