//! `codex exec --json`'s output, which is a stream in both `json` and `stream-json`:
//! `thread.started`, `turn.started`, the turn's items (shell commands, the answer), then
//! `turn.completed` with the usage or the error and `turn.failed`.

use crate::core::print::codex_items;
use crate::core::print::shape::{PrintShapes, PrintTurn, Stamps, StreamStart, Streamed};
use crate::core::print::stats::ToolCall;
use crate::core::print::stream::{RecordEvents, StreamMapper};
use crate::core::providers::str_field;
use serde_json::{Value, json};

/// codex's print mode.
pub struct Shapes;

impl PrintShapes for Shapes {
    fn stream_records(&self) -> RecordEvents {
        stream_record
    }

    fn join_stdin(&self, prompt: &str, stdin: &str) -> String {
        let newline = if stdin.ends_with('\n') { "" } else { "\n" };
        format!("{prompt}\n\n<stdin>\n{stdin}{newline}</stdin>")
    }

    fn reads_all_stdin(&self) -> bool {
        true
    }

    fn json(&self, turn: &PrintTurn, _: u64, _: &dyn Stamps) -> Vec<(Value, bool)> {
        events(turn).into_iter().map(|v| (v, false)).collect()
    }

    fn json_failure(&self, code: &str, message: &str, _: &dyn Stamps) -> Vec<(Value, bool)> {
        let umbel = json!({ "code": code, "message": message });
        vec![
            (
                json!({ "type": "error", "message": message, "error": umbel }),
                false,
            ),
            (
                json!({ "type": "turn.failed", "error": { "message": message } }),
                false,
            ),
        ]
    }

    fn json_streams(&self) -> bool {
        true
    }

    fn stream_init(&self, start_at: &StreamStart<'_>, _: &dyn Stamps) -> Vec<Value> {
        start(start_at.session_id)
    }

    fn stream_end(
        &self,
        turn: &PrintTurn,
        _: u64,
        streamed: Option<&Streamed>,
        _: &dyn Stamps,
    ) -> Vec<Value> {
        let mut events = match streamed {
            // A turn whose message the rollout did not show (a guarded answer, a lagging
            // transcript) still ends with it, as codex's stream does.
            Some(s) if !s.nothing => match turn.ok() && !s.answered {
                true => vec![codex_items::agent_message(&s.next_item, &turn.printed())],
                false => Vec::new(),
            },
            // Nothing came from the transcript while the turn ran (its path was not known):
            // the items from the turn's stats, read at its end.
            _ => body(turn),
        };
        events.extend(end(turn));
        events
    }
}

/// The codex events: the start, the body, the end.
fn events(turn: &PrintTurn) -> Vec<Value> {
    let mut events = start(&turn.session_id);
    events.extend(body(turn));
    events.extend(end(turn));
    events
}

/// The first events of `codex exec --json`: `thread.started`, `turn.started`.
pub fn start(session_id: &str) -> Vec<Value> {
    vec![
        json!({ "type": "thread.started", "thread_id": session_id }),
        json!({ "type": "turn.started" }),
    ]
}

/// The items of a codex turn, from its stats: its shell commands as `command_execution` items
/// (a command codex refused to run has none, as in `codex exec --json`) and the answer.
pub fn body(turn: &PrintTurn) -> Vec<Value> {
    let mut events = Vec::new();
    let commands: Vec<&ToolCall> = turn
        .stats
        .tools
        .iter()
        .filter(|t| codex_items::is_shell(t) && !t.denied)
        .collect();
    for (n, tool) in commands.iter().enumerate() {
        let id = format!("item_{n}");
        let started = codex_items::command_item(&id, tool, false);
        events.push(json!({ "type": "item.started", "item": started }));
        if tool.ok.is_some() {
            let completed = codex_items::command_item(&id, tool, true);
            events.push(json!({ "type": "item.completed", "item": completed }));
        }
    }
    if turn.ok() {
        let id = format!("item_{}", commands.len());
        events.push(codex_items::agent_message(&id, &turn.printed()));
    }
    events
}

/// The last events of a codex turn: `turn.completed` with the usage, or the error and
/// `turn.failed`.
pub fn end(turn: &PrintTurn) -> Vec<Value> {
    if turn.ok() {
        return vec![codex_items::turn_completed(&turn.stats.total())];
    }
    let message = turn.error_message();
    vec![
        json!({ "type": "error", "message": message }),
        json!({ "type": "turn.failed", "error": { "message": message } }),
    ]
}

/// One transcript record as codex's `stream-json` events.
pub fn stream_record(m: &mut StreamMapper, record: &Value) -> Vec<Value> {
    let payload = record.get("payload").unwrap_or(&Value::Null);
    match str_field(payload, "type") {
        Some("function_call") => {
            let tool = super::stats::call(payload);
            if codex_items::is_shell(&tool) && m.once(format!("{}/call", tool.id)) {
                m.call_seen(tool);
            }
            Vec::new()
        }
        Some("function_call_output") => {
            let id = str_field(payload, "call_id").unwrap_or("");
            m.call_answered(id, |tool| super::stats::call_output(tool, payload))
        }
        Some("item_completed") => {
            let item = payload.get("item").unwrap_or(&Value::Null);
            let key = format!("{}/message", str_field(item, "id").unwrap_or(""));
            if str_field(item, "type") != Some("AgentMessage") || !m.once(key) {
                return Vec::new();
            }
            let text: String = item
                .get("content")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter_map(|part| str_field(part, "text"))
                .collect();
            m.mark_answered();
            let id = m.next_item();
            vec![codex_items::agent_message(&id, &text)]
        }
        _ => Vec::new(),
    }
}
