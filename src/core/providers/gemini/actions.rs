//! gemini's tool calls of a turn: `toolCalls` on its (upserted) `gemini` records.

use super::super::actions::{latest_versions, response_output};
use super::super::str_field;
use super::super::tool_action::{ActionStatus, ToolAction};
use serde_json::Value;

/// Gemini: the `toolCalls` of the last version of each `gemini` record; `status` `success` is
/// ok, `error` and `cancelled` are errors, anything else (scheduled, awaiting approval,
/// executing) is pending.
pub fn read(records: &[Value]) -> Vec<ToolAction> {
    let messages = records
        .iter()
        .filter(|r| str_field(r, "type") == Some("gemini"));
    latest_versions(messages)
        .into_iter()
        .filter_map(|message| message.get("toolCalls")?.as_array())
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
