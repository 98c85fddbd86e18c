//! `copilot -p --output-format json`'s output: a stream of session events, one JSON object a
//! line — the turn's own events as its session log has them (`user.message`,
//! `assistant.turn_start`, `assistant.message`, `tool.execution_start`/`_complete`,
//! `assistant.turn_end`, `session.error`) — then `result` with the session id, the exit code
//! and the usage (`tests/data/copilot/1.0.102/print-json-*.jsonl`). copilot has no
//! `stream-json`: umbel's is the same stream. Its print mode ignores piped stdin when a prompt
//! is given.

use crate::core::outcome::OutcomeKind;
use crate::core::print::shape::{
    PrintShapes, PrintTurn, Stamps, StreamStart, Streamed, add_outcome_fields,
};
use crate::core::print::stream::{RecordEvents, StreamMapper};
use crate::core::providers::str_field;
use serde_json::{Value, json};

/// copilot's print mode.
pub struct Shapes;

/// The session log's record types its print mode prints (not usage, hooks or the session's own
/// records).
const PRINTED: &[&str] = &[
    "user.message",
    "assistant.turn_start",
    "assistant.message",
    "tool.execution_start",
    "tool.execution_complete",
    "assistant.turn_end",
    "session.error",
    "abort",
];

impl PrintShapes for Shapes {
    fn stream_records(&self) -> RecordEvents {
        stream_record
    }

    /// `copilot -p PROMPT` reads no stdin (recorded on 1.0.102: `echo x | copilot -p "Say hi"`
    /// sent the model "Say hi").
    fn join_stdin(&self, prompt: &str, _stdin: &str) -> String {
        prompt.to_string()
    }

    fn json(&self, turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Vec<(Value, bool)> {
        let mut events = body(turn, stamps);
        events.push(result(turn, duration_ms, stamps));
        events.into_iter().map(|e| (e, false)).collect()
    }

    fn json_failure(&self, code: &str, message: &str, stamps: &dyn Stamps) -> Vec<(Value, bool)> {
        let error = json!({ "type": "session.error", "timestamp": stamps.rfc3339(),
            "data": { "errorType": "umbel", "message": message, "error": { "code": code, "message": message } } });
        let result = json!({ "type": "result", "timestamp": stamps.rfc3339(), "sessionId": null,
            "exitCode": 1, "usage": null });
        vec![(error, false), (result, false)]
    }

    fn json_streams(&self) -> bool {
        true
    }

    fn stream_init(&self, _: &StreamStart<'_>, _: &dyn Stamps) -> Vec<Value> {
        Vec::new()
    }

    fn stream_end(
        &self,
        turn: &PrintTurn,
        duration_ms: u64,
        _: Option<&Streamed>,
        stamps: &dyn Stamps,
    ) -> Vec<Value> {
        // The log's path is known from the launch: the turn was streamed from it. A turn
        // umbel failed (a budget, `--max-turns`) has no error in the log: it is said here.
        let mut events = Vec::new();
        if turn.outcome.outcome == OutcomeKind::Budget {
            events.push(
                json!({ "type": "session.error", "timestamp": stamps.rfc3339(),
                "data": { "errorType": "umbel", "message": turn.error_message() } }),
            );
        }
        events.push(result(turn, duration_ms, stamps));
        events
    }
}

/// A record of the session log as its print mode prints it, once.
pub fn stream_record(m: &mut StreamMapper, record: &Value) -> Vec<Value> {
    let kind = str_field(record, "type").unwrap_or("");
    let id = str_field(record, "id").unwrap_or("").to_string();
    if !PRINTED.contains(&kind) || !m.once(id) {
        return Vec::new();
    }
    let mut event = record.clone();
    // `copilot -p` prints a tool's result with `detailedContent` too, the same text as its
    // `content` (1.0.102); the session log keeps `content` alone.
    if let Some(result) = event.pointer_mut("/data/result")
        && result.get("detailedContent").is_none()
        && let Some(content) = result.get("content").cloned()
    {
        result["detailedContent"] = content;
    }
    vec![event]
}

/// The turn's events when the log was not followed: the answer (or the error) as copilot
/// prints them.
fn body(turn: &PrintTurn, stamps: &dyn Stamps) -> Vec<Value> {
    let event = |kind: &str, data: Value| {
        json!({ "type": kind, "data": data, "id": stamps.id(), "timestamp": stamps.rfc3339(),
                "parentId": null })
    };
    let mut events = vec![event("assistant.turn_start", json!({ "turnId": "0" }))];
    if turn.ok() {
        let model = turn.stats.models.last().map(|(m, _)| m.clone());
        events.push(event(
            "assistant.message",
            json!({ "messageId": stamps.id(), "model": model, "content": turn.printed(),
                    "toolRequests": [] }),
        ));
        events.push(event("assistant.turn_end", json!({ "turnId": "0" })));
    } else {
        events.push(event("assistant.turn_end", json!({ "turnId": "0" })));
        let status = turn.stats.api_error_status;
        events.push(event(
            "session.error",
            json!({ "errorType": "query", "message": turn.error_message(), "statusCode": status }),
        ));
    }
    events
}

/// The last line: `result`, with umbel's outcome fields.
fn result(turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Value {
    let total = turn.stats.total();
    let mut result = json!({
        "type": "result", "timestamp": stamps.rfc3339(), "sessionId": turn.session_id,
        "exitCode": if turn.ok() { 0 } else { 1 },
        // What umbel cannot know (the changes copilot counts, its API time) is null.
        "usage": { "premiumRequests": 0, "totalApiDurationMs": null, "sessionDurationMs": duration_ms,
                   "codeChanges": { "linesAdded": null, "linesRemoved": null, "filesModified": [] },
                   "inputTokens": total.input, "outputTokens": total.output },
    });
    result["outcome"] = json!(turn.outcome.outcome);
    add_outcome_fields(&mut result, turn);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::outcome::Outcome;
    use crate::core::print::shape::test_stamps::Fixed;

    #[test]
    fn a_streamed_turn_umbel_failed_says_why_before_its_result() {
        let mut outcome = Outcome::new(
            OutcomeKind::Budget,
            "Reached maximum number of turns (1)",
            4,
        );
        outcome.reason = Some("turns".into());
        let turn = PrintTurn {
            outcome,
            text: "Error: Reached max turns (1)".into(),
            is_error: true,
            session_id: "s".into(),
            stats: Default::default(),
        };
        let events = Shapes.stream_end(&turn, 10, None, &Fixed);
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(events[0]["type"], "session.error");
        assert_eq!(events[0]["data"]["message"], "Error: Reached max turns (1)");
        assert_eq!(events[1]["exitCode"], 1);
    }
}
