//! opencode's tool calls of a turn: `tool` parts with their state.

use super::super::actions::{latest_versions, text_at};
use super::super::str_field;
use super::super::tool_action::{ActionStatus, ToolAction};
use serde_json::Value;

/// opencode: its `tool` parts (`{"type":"part","part":{"type":"tool","tool","callID","state":
/// {"status","input"}}}`), the newest version of each, in the order they first appear.
pub fn read(records: &[Value]) -> Vec<ToolAction> {
    let parts = records
        .iter()
        .filter_map(|r| r.get("part"))
        .filter(|p| str_field(p, "type") == Some("tool"));
    latest_versions(parts)
        .into_iter()
        .map(|part| {
            let status = match part.pointer("/state/status").and_then(Value::as_str) {
                Some("completed") => ActionStatus::Ok,
                Some("error") => ActionStatus::Error,
                _ => ActionStatus::Pending,
            };
            let output = text_at(part, &["/state/output", "/state/error"]);
            ToolAction::new(
                str_field(part, "tool").unwrap_or("?"),
                part.pointer("/state/input").unwrap_or(&Value::Null),
                status,
                output,
            )
        })
        .collect()
}
