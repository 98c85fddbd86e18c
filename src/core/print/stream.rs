//! `--output-format stream-json`: the events the real print modes stream while a turn runs,
//! made from the transcript records umbel tails (one record in, zero or more events out).
//!
//! - claude (`claude -p --output-format stream-json --verbose`): `system`/`init`, then an
//!   `assistant` event per assistant record (one per content block, as claude writes them),
//!   a `user` event per tool result, and the `result` object last. The prompt is not echoed.
//! - gemini (`gemini -p -o stream-json`): `init`, `message` (role `user`: the prompt),
//!   `tool_use` / `tool_result`, `message` (role `assistant`, `delta: true`), `result`.
//!
//! The `init` and `result` events are built by the face (they need the worker and the stats).

use crate::core::providers::{Provider, str_field};
use serde_json::{Value, json};
use std::collections::HashSet;

/// Maps a turn's transcript records to stream events, each at most once (gemini rewrites a
/// record under the same id as it grows).
#[derive(Debug)]
pub struct StreamMapper {
    provider: Provider,
    session_id: String,
    emitted: HashSet<String>,
}

impl StreamMapper {
    pub fn new(provider: Provider, session_id: &str) -> Self {
        StreamMapper {
            provider,
            session_id: session_id.to_string(),
            emitted: HashSet::new(),
        }
    }

    /// The events one new transcript record makes.
    pub fn events(&mut self, record: &Value) -> Vec<Value> {
        match self.provider {
            Provider::Claude => self.claude(record),
            Provider::Gemini => self.gemini(record),
            // `codex exec --json` is its own stream: the face prints the JSON events.
            Provider::Codex => Vec::new(),
        }
    }

    fn once(&mut self, key: String) -> bool {
        self.emitted.insert(key)
    }

    fn claude(&mut self, record: &Value) -> Vec<Value> {
        let message = record.get("message").unwrap_or(&Value::Null);
        let kind = str_field(record, "type");
        let is_tool_result = message
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|c| {
                c.iter()
                    .any(|b| str_field(b, "type") == Some("tool_result"))
            });
        let event_type = match kind {
            Some("assistant") => "assistant",
            Some("user") if is_tool_result => "user",
            _ => return Vec::new(),
        };
        let uuid = str_field(record, "uuid").unwrap_or("").to_string();
        if !self.once(uuid.clone()) {
            return Vec::new();
        }
        let mut event = json!({
            "type": event_type,
            "message": message,
            "parent_tool_use_id": record.get("parentToolUseID").cloned().unwrap_or(Value::Null),
            "session_id": self.session_id,
            "uuid": uuid,
            "timestamp": record.get("timestamp").cloned().unwrap_or(Value::Null),
        });
        if let Some(result) = record.get("toolUseResult") {
            event["tool_use_result"] = result.clone();
        }
        vec![event]
    }

    fn gemini(&mut self, record: &Value) -> Vec<Value> {
        let id = str_field(record, "id").unwrap_or("").to_string();
        let timestamp = record.get("timestamp").cloned().unwrap_or(Value::Null);
        let mut events = Vec::new();
        match str_field(record, "type") {
            Some("user") => {
                let parts = record.get("content").and_then(Value::as_array);
                let text: Vec<&str> = parts
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .filter_map(|p| str_field(p, "text"))
                    .collect();
                if !text.is_empty() && self.once(format!("{id}/user")) {
                    events.push(json!({ "type": "message", "timestamp": timestamp,
                        "role": "user", "content": text.join("") }));
                }
            }
            Some("gemini") => {
                let calls = record.get("toolCalls").and_then(Value::as_array);
                for call in calls.map_or(&[][..], Vec::as_slice) {
                    let tool_id = str_field(call, "id").unwrap_or("").to_string();
                    if self.once(format!("{tool_id}/use")) {
                        events.push(json!({ "type": "tool_use", "timestamp": timestamp,
                            "tool_name": call.get("name"), "tool_id": tool_id,
                            "parameters": call.get("args") }));
                    }
                    let status = str_field(call, "status");
                    let done = matches!(status, Some("success" | "error" | "cancelled"));
                    if done && self.once(format!("{tool_id}/result")) {
                        let output = call
                            .pointer("/result/0/functionResponse/response/output")
                            .cloned()
                            .unwrap_or(Value::Null);
                        events.push(json!({ "type": "tool_result",
                            "timestamp": call.get("timestamp").unwrap_or(&timestamp),
                            "tool_id": tool_id, "status": status, "output": output }));
                    }
                }
                let text = str_field(record, "content").unwrap_or("");
                if !text.is_empty() && self.once(format!("{id}/text")) {
                    events.push(json!({ "type": "message", "timestamp": timestamp,
                        "role": "assistant", "content": text, "delta": true }));
                }
            }
            _ => {}
        }
        events
    }
}

/// The order of event kinds, as a test compares it with the real CLI's: `type` (with the
/// `subtype` of a `system` event, the `role` of a `message`), consecutive repeats of a kind
/// folded (the real CLIs split one answer into as many deltas as the model sent chunks).
pub fn kinds_in_order(events: &[Value]) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for event in events {
        let t = str_field(event, "type").unwrap_or("");
        let kind = match (str_field(event, "subtype"), str_field(event, "role")) {
            (Some(sub), _) if t == "system" => format!("{t}/{sub}"),
            (_, Some(role)) => format!("{t}/{role}"),
            _ => t.to_string(),
        };
        if kinds.last() != Some(&kind) {
            kinds.push(kind);
        }
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_data::{CLAUDE_SESSION, GEMINI_CHAT, turn_records as records};

    fn stream(provider: Provider, records: &[Value]) -> Vec<Value> {
        let mut mapper = StreamMapper::new(provider, "s");
        // Each record twice: a tail that re-reads must not repeat events.
        records
            .iter()
            .chain(records)
            .flat_map(|r| mapper.events(r))
            .collect()
    }

    #[test]
    fn a_claude_tool_turn_streams_assistant_user_assistant() {
        let records = records(
            Provider::Claude,
            CLAUDE_SESSION,
            "Please RUN_TOOL now",
            "The command printed hello-from-tool",
        );
        let events = stream(Provider::Claude, &records);
        assert_eq!(kinds_in_order(&events), ["assistant", "user", "assistant"]);
        assert_eq!(events.len(), 4, "one event per record: {events:#?}");
        assert_eq!(events[1]["message"]["content"][0]["type"], "tool_use");
    }

    #[test]
    fn a_gemini_tool_turn_streams_as_gemini_p_does() {
        let records = records(
            Provider::Gemini,
            GEMINI_CHAT,
            "Please RUN_TOOL now",
            "The command printed hello-from-tool",
        );
        let events = stream(Provider::Gemini, &records);
        assert_eq!(
            kinds_in_order(&events),
            [
                "message/user",
                "tool_use",
                "tool_result",
                "message/assistant"
            ]
        );
        assert_eq!(events[1]["tool_name"], "run_shell_command");
    }
}
