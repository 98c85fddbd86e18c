//! What the CLIs' readers of a turn's tool calls share (each reader is `<name>/actions.rs`,
//! reading the turn's transcript records, oldest first): calls paired with their results in
//! call order, content blocks, statuses, a command's output and exit code.

use super::tool_action::{ActionStatus, ToolAction, summarize_input};
use serde_json::Value;
use std::collections::HashMap;

/// A call seen, with the id its result will name.
pub struct Call {
    pub id: Option<String>,
    pub tool: String,
    pub input: Value,
}

/// Puts calls and their results together, in call order.
pub fn pair(calls: Vec<Call>, results: &HashMap<String, ActionStatus>) -> Vec<ToolAction> {
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

pub fn content_blocks(record: &Value) -> &[Value] {
    record
        .pointer("/message/content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

pub fn status_of(failed: bool) -> ActionStatus {
    if failed {
        ActionStatus::Error
    } else {
        ActionStatus::Ok
    }
}

/// Keeps the worse of two results for one call (its output and its command item).
pub fn record_result(
    results: &mut HashMap<String, ActionStatus>,
    id: String,
    status: ActionStatus,
) {
    results
        .entry(id)
        .and_modify(|s| *s = (*s).max(status))
        .or_insert(status);
}

pub fn output_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `N` of a `Process exited with code N` line.
pub fn exit_code_in(text: &str) -> Option<i64> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Process exited with code "))
        .and_then(|n| n.trim().parse().ok())
}

#[cfg(test)]
#[path = "actions_tests.rs"]
mod tests;
