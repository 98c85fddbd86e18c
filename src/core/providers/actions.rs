//! What the CLIs' readers of a turn's tool calls share (each reader is `<name>/actions.rs`,
//! reading the turn's transcript records, oldest first): calls paired with their results in
//! call order, content blocks, statuses, a command's output and exit code.

use super::tool_action::{ActionStatus, ToolAction};
use serde_json::Value;
use std::collections::HashMap;

/// A call seen, with the id its result will name.
pub struct Call {
    pub id: Option<String>,
    pub tool: String,
    pub input: Value,
}

/// A call's result: how it ended and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallResult {
    pub status: ActionStatus,
    pub output: Option<String>,
}

/// Puts calls and their results together, in call order.
pub fn pair(calls: Vec<Call>, results: &HashMap<String, CallResult>) -> Vec<ToolAction> {
    calls
        .into_iter()
        .map(|call| {
            let result = call.id.as_deref().and_then(|id| results.get(id));
            ToolAction::new(
                &call.tool,
                &call.input,
                result.map_or(ActionStatus::Pending, |r| r.status),
                result.and_then(|r| r.output.clone()),
            )
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

/// Keeps the worse of two results for one call (its output and its command item), and the
/// first output.
pub fn record_result(results: &mut HashMap<String, CallResult>, id: String, result: CallResult) {
    results
        .entry(id)
        .and_modify(|had| {
            had.status = had.status.max(result.status);
            if had.output.is_none() {
                had.output.clone_from(&result.output);
            }
        })
        .or_insert(result);
}

/// The text of a tool result's `content`: a string, or the text blocks of an array of them.
pub fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
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

/// The `output` (or `error`) of the `functionResponse` parts a call's result holds, as the
/// gemini-family CLIs record a tool's result.
pub fn response_output(parts: Option<&Value>) -> Option<String> {
    let texts: Vec<&str> = parts?
        .as_array()?
        .iter()
        .filter_map(response_text)
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The `output` (or `error`) of one `functionResponse` part.
pub fn response_text(part: &Value) -> Option<&str> {
    let response = part.pointer("/functionResponse/response")?;
    response
        .get("output")
        .or_else(|| response.get("error"))?
        .as_str()
}

/// The first string among `pointers` in `value` (a result's output, else its error).
pub fn text_at(value: &Value, pointers: &[&str]) -> Option<String> {
    pointers
        .iter()
        .find_map(|at| value.pointer(at)?.as_str())
        .map(str::to_string)
}

/// The newest version of each of `items` by its `id` field, in the order the ids first came
/// (a CLI that records a message or part again as it grows: gemini's messages, opencode's parts).
pub fn latest_versions<'a>(items: impl IntoIterator<Item = &'a Value>) -> Vec<&'a Value> {
    let mut order: Vec<&str> = Vec::new();
    let mut latest: HashMap<&str, &Value> = HashMap::new();
    for item in items {
        let Some(id) = item.get("id").and_then(Value::as_str) else {
            continue;
        };
        if latest.insert(id, item).is_none() {
            order.push(id);
        }
    }
    order
        .iter()
        .filter_map(|id| latest.get(id).copied())
        .collect()
}

#[cfg(test)]
#[path = "actions_tests.rs"]
mod tests;
