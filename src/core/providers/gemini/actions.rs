//! gemini's tool calls of a turn: `toolCalls` on its (upserted) `gemini` records.

use super::super::actions::response_output;
use super::super::str_field;
use super::super::tool_action::{ActionStatus, ToolAction};
use serde_json::Value;
use std::collections::HashMap;

/// Gemini: the `toolCalls` of the last version of each `gemini` record; `status` `success` is
/// ok, `error` and `cancelled` are errors, anything else (scheduled, awaiting approval,
/// executing) is pending.
pub fn read(records: &[Value]) -> Vec<ToolAction> {
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
        .map(|call| {
            let status = match str_field(call, "status") {
                Some("success") => ActionStatus::Ok,
                Some("error" | "cancelled") => ActionStatus::Error,
                _ => ActionStatus::Pending,
            };
            ToolAction::new(
                str_field(call, "name").unwrap_or("?"),
                call.get("args").unwrap_or(&Value::Null),
                status,
                response_output(call.get("result")),
            )
        })
        .collect()
}
