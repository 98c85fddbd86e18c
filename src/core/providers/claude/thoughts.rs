//! claude's thinking in a turn: the `thinking` blocks of its assistant records.

use super::super::actions::content_blocks;
use super::super::str_field;
use serde_json::Value;

/// The turn's thinking, each block's text in order (a sub-agent's left out).
pub fn read(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .filter(|r| str_field(r, "type") == Some("assistant"))
        .filter(|r| r.get("isSidechain") != Some(&Value::Bool(true)))
        .flat_map(content_blocks)
        .filter(|b| str_field(b, "type") == Some("thinking"))
        .filter_map(|b| str_field(b, "thinking"))
        .map(str::to_string)
        .collect()
}
