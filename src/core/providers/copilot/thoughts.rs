//! copilot's thinking in a turn: the `reasoningText` of its assistant messages.

use super::super::str_field;
use serde_json::Value;

/// The turn's reasoning, in order.
pub fn read(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .filter(|r| str_field(r, "type") == Some("assistant.message"))
        .filter_map(|r| r.pointer("/data/reasoningText")?.as_str())
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}
