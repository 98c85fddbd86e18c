//! codex's thinking in a turn: the summaries of its `reasoning` response items (the model's
//! own reasoning is encrypted; its summary is what codex shows).

use super::super::str_field;
use serde_json::Value;

/// The turn's reasoning summaries, in order.
pub fn read(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .filter(|r| str_field(r, "type") == Some("response_item"))
        .filter_map(|r| r.get("payload"))
        .filter(|p| str_field(p, "type") == Some("reasoning"))
        .filter_map(|p| p.get("summary")?.as_array())
        .flatten()
        .filter_map(|s| str_field(s, "text"))
        .map(str::to_string)
        .collect()
}
