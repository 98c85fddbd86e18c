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
//! Each CLI's mapping of a record is in its folder (`core/providers/<name>/print.rs`); the
//! first and last events are its print shapes' too (they need the worker and the stats).
//!
//! codex writes a command's `function_call` to its rollout when the model asks for it, before
//! it decides to run it, and nothing when it starts running: a command it refuses (approval
//! policy `never`) gets its rejection at once, one it runs gets its output when done. So a call
//! is shown started once it has waited [`CODEX_RUNNING_AFTER_MS`] without an answer (it runs),
//! or together with its output; a refused one is not shown, as `codex exec --json` shows none.

use super::codex_items;
use super::stats::ToolCall;
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

/// How one CLI makes stream events of one transcript record (its `<name>/print.rs`).
pub type RecordEvents = fn(&mut StreamMapper, &Value) -> Vec<Value>;

/// Maps a turn's transcript records to stream events, each at most once (gemini rewrites a
/// record under the same id as it grows).
#[derive(Debug)]
pub struct StreamMapper {
    record_events: RecordEvents,
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
    pub fn new(record_events: RecordEvents, session_id: &str) -> Self {
        StreamMapper {
            record_events,
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
        (self.record_events)(self, record)
    }

    /// The worker's session id, as the events carry it.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// codex: an agent message was streamed.
    pub fn mark_answered(&mut self) {
        self.answered = true;
    }

    /// codex: a shell call seen in the rollout, not answered yet (shown started once it has
    /// waited [`CODEX_RUNNING_AFTER_MS`]).
    pub fn call_seen(&mut self, tool: ToolCall) {
        self.pending.push(PendingCall {
            tool,
            seen_ms: self.now_ms,
            item: None,
        });
    }

    /// codex: the answer to pending call `id` (`answer` fills it in), and its events.
    pub fn call_answered(&mut self, id: &str, answer: impl FnOnce(&mut ToolCall)) -> Vec<Value> {
        match self.pending.iter().position(|c| c.tool.id == id) {
            Some(n) => {
                let mut call = self.pending.remove(n);
                answer(&mut call.tool);
                self.command_done(call)
            }
            None => Vec::new(),
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

    /// Whether `key` is new (an event made of it is printed once).
    pub fn once(&mut self, key: String) -> bool {
        self.emitted.insert(key)
    }
}

/// The order of event kinds, as a test compares it with the real CLI's: `type` (with the
/// `subtype` of a `system` event, the `role` of a `message`), consecutive repeats of a kind
/// folded (the real CLIs split one answer into as many deltas as the model sent chunks).
pub fn kinds_in_order(events: &[Value]) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for event in events {
        let field = |key: &str| event.get(key).and_then(Value::as_str);
        let t = field("type").unwrap_or("");
        let kind = match (field("subtype"), field("role")) {
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
    use crate::core::providers::Provider;
    use crate::core::test_data::{
        CLAUDE_SESSION, CODEX_ROLLOUT, GEMINI_CHAT, turn_records as records,
    };

    fn stream(provider: Provider, records: &[Value]) -> Vec<Value> {
        let mut mapper = StreamMapper::new(provider.module().print().stream_records(), "s");
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
        let mut mapper = StreamMapper::new(Provider::Codex.module().print().stream_records(), "s");
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
        let mut mapper = StreamMapper::new(Provider::Codex.module().print().stream_records(), "s");
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
