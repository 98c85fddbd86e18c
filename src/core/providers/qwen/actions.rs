//! qwen's tool calls of a turn: `functionCall` parts and their `tool_result` records.

use super::super::actions::{CallResult, response_text};
use super::super::str_field;
use super::super::tool_action::{ActionStatus, ToolAction};
use super::stats::parts;
use serde_json::Value;
use std::collections::HashMap;

/// Qwen: the `functionCall` parts of `assistant` records, each settled by the `tool_result`
/// record whose `functionResponse` has its id (`toolCallResult.status` `success` is ok, any
/// other is an error); a call with no result yet is pending.
pub fn read(records: &[Value]) -> Vec<ToolAction> {
    let mut results: HashMap<String, CallResult> = HashMap::new();
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
                let output = response_text(&part).map(str::to_string);
                results.insert(id.to_string(), CallResult { status, output });
            }
        }
    }
    records
        .iter()
        .filter(|r| str_field(r, "type") == Some("assistant"))
        .flat_map(parts)
        .filter_map(|part| part.get("functionCall").cloned())
        .map(|call| {
            let result = str_field(&call, "id").and_then(|id| results.get(id));
            ToolAction::new(
                str_field(&call, "name").unwrap_or("?"),
                call.get("args").unwrap_or(&Value::Null),
                result.map_or(ActionStatus::Pending, |r| r.status),
                result.and_then(|r| r.output.clone()),
            )
        })
        .collect()
}
