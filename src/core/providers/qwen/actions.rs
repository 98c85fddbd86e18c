//! qwen's tool calls of a turn: `functionCall` parts and their `tool_result` records.

use super::super::str_field;
use super::super::tool_action::{ActionStatus, ToolAction, summarize_input};
use super::stats::parts;
use serde_json::Value;
use std::collections::HashMap;

/// Qwen: the `functionCall` parts of `assistant` records, each settled by the `tool_result`
/// record whose `functionResponse` has its id (`toolCallResult.status` `success` is ok, any
/// other is an error); a call with no result yet is pending.
pub fn read(records: &[Value]) -> Vec<ToolAction> {
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
