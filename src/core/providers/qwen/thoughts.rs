//! qwen's thinking in a turn: the text parts of its assistant records marked `thought`.

use super::super::str_field;
use super::stats::parts;
use serde_json::Value;

/// The turn's thoughts, in order.
pub fn read(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .filter(|r| str_field(r, "type") == Some("assistant"))
        .flat_map(parts)
        .filter(|p| p.get("thought").and_then(Value::as_bool) == Some(true))
        .filter_map(|p| str_field(&p, "text").map(str::to_string))
        .collect()
}
