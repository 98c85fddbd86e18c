//! copilot's tool calls of a turn: the `toolRequests` of its `assistant.message` records, each
//! settled by the `tool.execution_complete` of its `toolCallId`.

use super::super::actions::{CallResult, text_at};
use super::super::str_field;
use super::super::tool_action::{ActionStatus, ToolAction};
use super::stats::tool_requests;
use serde_json::Value;
use std::collections::HashMap;

/// The turn's calls, in order, with their status (`success` true is ok, false an error; none
/// yet: pending).
pub fn read(records: &[Value]) -> Vec<ToolAction> {
    let results: HashMap<&str, CallResult> = records
        .iter()
        .filter(|r| str_field(r, "type") == Some("tool.execution_complete"))
        .filter_map(|r| {
            let id = r.pointer("/data/toolCallId")?.as_str()?;
            let ok = r.pointer("/data/success").and_then(Value::as_bool);
            let status = if ok == Some(true) {
                ActionStatus::Ok
            } else {
                ActionStatus::Error
            };
            let output = text_at(r, &["/data/result/content", "/data/error/message"]);
            Some((id, CallResult { status, output }))
        })
        .collect();
    records
        .iter()
        .filter(|r| str_field(r, "type") == Some("assistant.message"))
        .flat_map(tool_requests)
        .map(|call| {
            let result = str_field(call, "toolCallId").and_then(|id| results.get(id));
            ToolAction::new(
                str_field(call, "name").unwrap_or("?"),
                call.get("arguments").unwrap_or(&Value::Null),
                result.map_or(ActionStatus::Pending, |r| r.status),
                result.and_then(|r| r.output.clone()),
            )
        })
        .collect()
}
