//! opencode's thinking in a turn: its `reasoning` parts (their last version: a part is
//! recorded again as it grows).

use super::super::actions::latest_versions;
use super::super::str_field;
use serde_json::Value;

/// The turn's reasoning, in order.
pub fn read(records: &[Value]) -> Vec<String> {
    let parts = records
        .iter()
        .filter_map(|r| r.get("part"))
        .filter(|p| str_field(p, "type") == Some("reasoning"));
    latest_versions(parts)
        .into_iter()
        .filter_map(|p| str_field(p, "text"))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}
