//! copilot's session log (`events.jsonl`) read back into its last turn: the prompt
//! (`user.message`), the answer (the last `assistant.message` without tool requests), and how it
//! ended — `assistant.turn_end` after that answer, an `abort` (interrupted, or refused at its
//! permission dialog), or a `session.error` (the API failed). The turn's id is the time of its
//! submit hook's input (the `hook.start` record just before its `user.message`), in milliseconds.

use super::super::{TranscriptTurn, add_tokens, str_field};
use serde_json::Value;

/// `type`s of the records read (the turn, its stats and its tool calls).
pub const TOKENS: &[&str] = &[
    "\"user.message\"",
    "\"assistant.message\"",
    "\"tool.execution_complete\"",
    "\"assistant.turn_start\"",
    "\"assistant.turn_end\"",
    "\"session.usage_record\"",
    "\"abort\"",
    "\"session.error\"",
    "\"hook.start\"",
    "\"hook.end\"",
];

/// How many hook records may stand between a turn's `user.message` and its submit hook's
/// `hook.start` (the user's own submit hooks run too).
const HOOK_REACH: usize = 8;

/// The prompt a `user.message` record holds.
pub fn prompt_of(record: &Value) -> Option<String> {
    if str_field(record, "type") != Some("user.message") {
        return None;
    }
    record
        .pointer("/data/content")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Whether the record is the `hook.start` of a submit hook.
fn submit_hook(record: &Value) -> bool {
    str_field(record, "type") == Some("hook.start")
        && record.pointer("/data/hookType").and_then(Value::as_str) == Some("userPromptSubmitted")
}

/// How far the reading got from the log's end.
#[derive(Default)]
struct Reading {
    /// Whether the turn's end is known (ended or still running).
    decided: bool,
    /// An `assistant.turn_end` came after everything read so far.
    end_seen: bool,
}

/// Folds the records (newest first) into the last turn.
pub fn last_turn(records: &mut dyn Iterator<Item = Value>) -> TranscriptTurn {
    let mut turn = TranscriptTurn::default();
    let mut reading = Reading::default();
    for record in &mut *records {
        if let Some(prompt) = prompt_of(&record) {
            turn.prompt = Some(prompt);
            break;
        }
        if str_field(&record, "type") == Some("session.usage_record") {
            let output = record.pointer("/data/usage/outputTokens");
            add_tokens(&mut turn.output_tokens, output.and_then(Value::as_u64));
        }
        if !reading.decided {
            visit(&record, &mut turn, &mut reading);
        }
    }
    turn.turn_id = records
        .take(HOOK_REACH)
        .take_while(|r| str_field(r, "type").is_some_and(|t| t.starts_with("hook.")))
        .find(submit_hook)
        .and_then(|r| r.pointer("/data/input/timestamp").and_then(Value::as_u64))
        .map(|ms| ms.to_string());
    turn
}

/// A turn's id from its submit hook's payload: the payload's ISO time in milliseconds, the
/// instant the log's `hook.start` keeps as its input's `timestamp`. The record's own time is
/// when it was written, at times a millisecond later.
pub fn turn_id_of(payload_time: &str) -> Option<String> {
    let at = humantime::parse_rfc3339(payload_time).ok()?;
    let ms = at.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis();
    Some(ms.to_string())
}

/// One record (newest first) before the turn's end is known.
fn visit(record: &Value, turn: &mut TranscriptTurn, reading: &mut Reading) {
    match str_field(record, "type") {
        Some("assistant.turn_end") => reading.end_seen = true,
        Some("assistant.turn_start") => reading.decided = true,
        Some("abort") => {
            turn.ended = true;
            turn.is_error = true;
            turn.error_reason = Some("interrupted");
            reading.decided = true;
        }
        Some("session.error") => {
            let message = record.pointer("/data/message").and_then(Value::as_str);
            turn.answer = Some(message.unwrap_or("the API failed").to_string());
            turn.ended = true;
            turn.is_error = true;
            turn.error_reason = Some("api-error");
            reading.decided = true;
        }
        Some("assistant.message") => {
            let asks_tools = record
                .pointer("/data/toolRequests")
                .and_then(Value::as_array)
                .is_some_and(|t| !t.is_empty());
            let text = record.pointer("/data/content").and_then(Value::as_str);
            if asks_tools {
                reading.decided = true;
            } else if let Some(text) = text.filter(|t| !t.is_empty()) {
                turn.answer = Some(text.to_string());
                turn.ended = reading.end_seen;
                reading.decided = true;
            }
        }
        _ => {}
    }
}
