//! `--output-format stream-json`: the events the real print modes stream while a turn runs,
//! made from the transcript records umbel tails (one record in, zero or more events out).
//!
//! - claude (`claude -p --output-format stream-json --verbose`): `system`/`init`, then an
//!   `assistant` event per assistant record (one per content block, as claude writes them),
//!   a `user` event per tool result, and the `result` object last. The prompt is not echoed.
//! - gemini (`gemini -p -o stream-json`): `init`, `message` (role `user`: the prompt),
//!   `tool_use` / `tool_result`, `message` (role `assistant`, `delta: true`), `result`.
//! - codex (`codex exec --json`, its only stream): `thread.started`, `turn.started`, an
//!   `item.started` / `item.completed` pair per shell command it ran, an `item.completed`
//!   `agent_message` per message, `turn.completed` with the usage.
//!
//! The first and last events are built by the face (they need the worker and the stats).
//!
//! codex writes a command's `function_call` to its rollout when the model asks for it, before
//! it decides to run it, and nothing when it starts running: a command it refuses (approval
//! policy `never`) gets its rejection at once, one it runs gets its output when done. So a call
//! is shown started once it has waited [`CODEX_RUNNING_AFTER_MS`] without an answer (it runs),
//! or together with its output; a refused one is not shown, as `codex exec --json` shows none.

use super::codex_items;
use super::stats::ToolCall;
use crate::core::providers::codex::stats::{call as codex_call, call_output as codex_call_output};
use crate::core::providers::{Provider, str_field};
use serde_json::{Value, json};
use std::collections::HashSet;

/// How long a codex command call goes unanswered before it counts as running (a refusal under
/// approval policy `never` is written within milliseconds of the call).
pub const CODEX_RUNNING_AFTER_MS: u64 = 250;

/// A codex command call seen in the rollout, not answered yet.
#[derive(Debug)]
struct PendingCall {
    tool: ToolCall,
    seen_ms: u64,
    /// Its item id, once `item.started` is out.
    item: Option<String>,
}

/// Maps a turn's transcript records to stream events, each at most once (gemini rewrites a
/// record under the same id as it grows).
#[derive(Debug)]
pub struct StreamMapper {
    provider: Provider,
    session_id: String,
    emitted: HashSet<String>,
    /// The caller's clock (ms), as of the last [`StreamMapper::tick`].
    now_ms: u64,
    /// codex: items numbered in the order they are streamed, and the calls not answered yet.
    items: usize,
    pending: Vec<PendingCall>,
    answered: bool,
}

impl StreamMapper {
    pub fn new(provider: Provider, session_id: &str) -> Self {
        StreamMapper {
            provider,
            session_id: session_id.to_string(),
            emitted: HashSet::new(),
            now_ms: 0,
            items: 0,
            pending: Vec::new(),
            answered: false,
        }
    }

    /// The time is now `now_ms` (any fixed origin): the events that makes due — a codex
    /// command unanswered for [`CODEX_RUNNING_AFTER_MS`] is running.
    pub fn tick(&mut self, now_ms: u64) -> Vec<Value> {
        self.now_ms = now_ms;
        let mut events = Vec::new();
        for n in 0..self.pending.len() {
            let call = &self.pending[n];
            if call.item.is_none() && now_ms.saturating_sub(call.seen_ms) >= CODEX_RUNNING_AFTER_MS
            {
                let id = self.next_item();
                let item = codex_items::command_item(&id, &self.pending[n].tool, false);
                events.push(json!({ "type": "item.started", "item": item }));
                self.pending[n].item = Some(id);
            }
        }
        events
    }

    /// codex: whether an agent message was streamed (else the face prints the answer).
    pub fn answered(&self) -> bool {
        self.answered
    }

    /// codex: no item was streamed.
    pub fn streamed_nothing(&self) -> bool {
        self.items == 0
    }

    /// codex: the id the next streamed item gets.
    pub fn next_item(&mut self) -> String {
        self.items += 1;
        format!("item_{}", self.items - 1)
    }

    /// The events one new transcript record makes.
    pub fn events(&mut self, record: &Value) -> Vec<Value> {
        match self.provider {
            Provider::Claude => self.claude(record),
            Provider::Gemini => self.gemini(record),
            Provider::Codex => self.codex(record),
            Provider::Qwen => self.qwen(record),
            // `opencode run --format json` is printed whole at the turn's end.
            Provider::Opencode => Vec::new(),
        }
    }

    /// qwen's stream-json is claude's: `assistant` messages with text and `tool_use` blocks,
    /// `user` messages with the tools' results.
    fn qwen(&mut self, record: &Value) -> Vec<Value> {
        let id = str_field(record, "uuid").unwrap_or("").to_string();
        let parts = record
            .pointer("/message/parts")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let content: Vec<Value> = parts
            .iter()
            .filter_map(|p| {
                match (
                    str_field(p, "text"),
                    p.get("functionCall"),
                    p.get("functionResponse"),
                ) {
                    (Some(text), _, _) if p.get("thought").is_none() => {
                        Some(json!({ "type": "text", "text": text }))
                    }
                    (_, Some(call), _) => Some(json!({ "type": "tool_use", "id": call.get("id"),
                    "name": call.get("name"), "input": call.get("args") })),
                    (_, _, Some(response)) => Some(json!({ "type": "tool_result",
                    "tool_use_id": response.get("id"),
                    "content": response.pointer("/response/output") })),
                    _ => None,
                }
            })
            .collect();
        let role = match str_field(record, "type") {
            Some("assistant") => "assistant",
            Some("tool_result") => "user",
            _ => return Vec::new(),
        };
        if content.is_empty() || !self.once(format!("{id}/{role}")) {
            return Vec::new();
        }
        vec![
            json!({ "type": role, "uuid": id, "session_id": record.get("sessionId"),
            "parent_tool_use_id": null,
            "message": { "role": role, "model": record.get("model"), "content": content } }),
        ]
    }

    fn codex(&mut self, record: &Value) -> Vec<Value> {
        let payload = record.get("payload").unwrap_or(&Value::Null);
        match str_field(payload, "type") {
            Some("function_call") => {
                let tool = codex_call(payload);
                if codex_items::is_shell(&tool) && self.once(format!("{}/call", tool.id)) {
                    self.pending.push(PendingCall {
                        tool,
                        seen_ms: self.now_ms,
                        item: None,
                    });
                }
                Vec::new()
            }
            Some("function_call_output") => {
                let id = str_field(payload, "call_id").unwrap_or("");
                match self.pending.iter().position(|c| c.tool.id == id) {
                    Some(n) => {
                        let mut call = self.pending.remove(n);
                        codex_call_output(&mut call.tool, payload);
                        self.command_done(call)
                    }
                    None => Vec::new(),
                }
            }
            Some("item_completed") => {
                let item = payload.get("item").unwrap_or(&Value::Null);
                let key = format!("{}/message", str_field(item, "id").unwrap_or(""));
                if str_field(item, "type") != Some("AgentMessage") || !self.once(key) {
                    return Vec::new();
                }
                let text: String = item
                    .get("content")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .filter_map(|part| str_field(part, "text"))
                    .collect();
                self.answered = true;
                let id = self.next_item();
                vec![codex_items::agent_message(&id, &text)]
            }
            _ => Vec::new(),
        }
    }

    /// A command's answer: started (unless it already was) and completed; a refused one is
    /// not shown, or `declined` when it was shown started.
    fn command_done(&mut self, call: PendingCall) -> Vec<Value> {
        let mut events = Vec::new();
        let id = match (call.item, call.tool.denied) {
            (None, true) => return events,
            (Some(id), true) => {
                let item = codex_items::declined_item(&id, &call.tool);
                return vec![json!({ "type": "item.completed", "item": item })];
            }
            (Some(id), false) => id,
            (None, false) => {
                let id = self.next_item();
                let item = codex_items::command_item(&id, &call.tool, false);
                events.push(json!({ "type": "item.started", "item": item }));
                id
            }
        };
        let item = codex_items::command_item(&id, &call.tool, true);
        events.push(json!({ "type": "item.completed", "item": item }));
        events
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
    use crate::core::test_data::{
        CLAUDE_SESSION, CODEX_ROLLOUT, GEMINI_CHAT, turn_records as records,
    };

    fn stream(provider: Provider, records: &[Value]) -> Vec<Value> {
        let mut mapper = StreamMapper::new(provider, "s");
        // Each record twice: a tail that re-reads must not repeat events.
        records
            .iter()
            .chain(records)
            .flat_map(|r| mapper.events(r))
            .collect()
    }

    /// The events of the recorded tool turn ("Please RUN_TOOL now") of `provider`'s transcript.
    fn tool_turn(provider: Provider, transcript: &str) -> Vec<Value> {
        let records = records(
            provider,
            transcript,
            "Please RUN_TOOL now",
            "The command printed hello-from-tool",
        );
        stream(provider, &records)
    }

    #[test]
    fn a_claude_tool_turn_streams_assistant_user_assistant() {
        let events = tool_turn(Provider::Claude, CLAUDE_SESSION);
        assert_eq!(kinds_in_order(&events), ["assistant", "user", "assistant"]);
        assert_eq!(events.len(), 4, "one event per record: {events:#?}");
        assert_eq!(events[1]["message"]["content"][0]["type"], "tool_use");
    }

    #[test]
    fn a_gemini_tool_turn_streams_as_gemini_p_does() {
        let events = tool_turn(Provider::Gemini, GEMINI_CHAT);
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

    fn codex_kinds(events: &[Value]) -> Vec<String> {
        events
            .iter()
            .map(|e| {
                format!(
                    "{}/{}",
                    e["type"].as_str().unwrap_or(""),
                    e["item"]["type"].as_str().unwrap_or("")
                )
            })
            .collect()
    }

    fn call(call_id: &str, cmd: &str) -> Value {
        json!({ "type": "response_item", "payload": { "type": "function_call",
            "name": "exec_command", "call_id": call_id,
            "arguments": json!({ "cmd": cmd }).to_string() } })
    }

    fn output(call_id: &str, text: &str) -> Value {
        json!({ "type": "response_item", "payload": { "type": "function_call_output",
            "call_id": call_id, "output": text } })
    }

    #[test]
    fn a_codex_tool_turn_streams_as_codex_exec_json_does() {
        let events = tool_turn(Provider::Codex, CODEX_ROLLOUT);
        assert_eq!(
            codex_kinds(&events),
            [
                "item.started/command_execution",
                "item.completed/command_execution",
                "item.completed/agent_message"
            ]
        );
        let done = &events[1]["item"];
        assert_eq!(done["id"], "item_0");
        assert_eq!(done["aggregated_output"], "hello-from-tool\n");
        assert_eq!(
            (&done["exit_code"], &done["status"]),
            (&json!(0), &json!("completed"))
        );
        assert_eq!(events[2]["item"]["id"], "item_1");
        assert!(
            events[2]["item"]["text"]
                .as_str()
                .is_some_and(|t| t.contains("FINAL_AFTER_TOOL")),
            "{events:#?}"
        );
    }

    #[test]
    fn a_codex_command_is_shown_started_while_it_runs() {
        let mut mapper = StreamMapper::new(Provider::Codex, "s");
        assert!(mapper.tick(1_000).is_empty());
        assert!(mapper.events(&call("c1", "sleep 5")).is_empty());
        assert!(mapper.tick(1_000 + CODEX_RUNNING_AFTER_MS - 1).is_empty());
        let started = mapper.tick(1_000 + CODEX_RUNNING_AFTER_MS);
        assert_eq!(codex_kinds(&started), ["item.started/command_execution"]);
        assert_eq!(started[0]["item"]["status"], "in_progress");
        assert!(mapper.tick(9_000).is_empty(), "started once");
        let done = mapper.events(&output(
            "c1",
            "Process exited with code 0\nOutput:\nslept\n",
        ));
        assert_eq!(codex_kinds(&done), ["item.completed/command_execution"]);
        assert_eq!(done[0]["item"]["id"], started[0]["item"]["id"]);
        assert_eq!(done[0]["item"]["aggregated_output"], "slept\n");
    }

    #[test]
    fn a_command_codex_refuses_is_not_streamed() {
        let refusal = "approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never";
        let mut mapper = StreamMapper::new(Provider::Codex, "s");
        mapper.tick(0);
        assert!(mapper.events(&call("c1", "touch /x")).is_empty());
        assert!(mapper.events(&output("c1", refusal)).is_empty());
        // Refused after it was shown started: codex's own `declined`.
        assert!(mapper.events(&call("c2", "touch /y")).is_empty());
        assert_eq!(mapper.tick(CODEX_RUNNING_AFTER_MS).len(), 1);
        let done = mapper.events(&output("c2", refusal));
        assert_eq!(done[0]["item"]["status"], "declined");
        assert_eq!(
            done[0]["item"]["id"], "item_0",
            "the refused c1 took no number"
        );
    }
}
