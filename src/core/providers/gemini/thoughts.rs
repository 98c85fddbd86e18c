//! gemini's thinking in a turn: the `thoughts` of its messages (their last version: gemini
//! rewrites a message as it streams).

use super::super::actions::latest_versions;
use super::super::str_field;
use serde_json::Value;

/// The turn's thoughts (subject and description), in order.
pub fn read(records: &[Value]) -> Vec<String> {
    let messages = records
        .iter()
        .filter(|r| str_field(r, "type") == Some("gemini"));
    latest_versions(messages)
        .into_iter()
        .filter_map(|message| message.get("thoughts")?.as_array())
        .flatten()
        .map(|t| {
            let said = [str_field(t, "subject"), str_field(t, "description")];
            let said: Vec<&str> = said
                .into_iter()
                .flatten()
                .filter(|s| !s.is_empty())
                .collect();
            said.join(": ")
        })
        .filter(|t| !t.is_empty())
        .collect()
}
