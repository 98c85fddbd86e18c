//! A turn's rollout records, shaped like codex 0.171's (see
//! `codex-0.171.0-rollout-tui-session.jsonl`): `task_started`, the user
//! message, `item_completed` items, tool calls, token records, and the end
//! (`task_complete`, with an `error` for failed turns, or `turn_aborted` plus
//! the injected `<turn_aborted>` user message after an interrupt).

use super::session::{Session, Usage};
use crate::json::{J, Obj, empty_array, null};
use crate::obj;

/// The marker codex injects after an interrupt.
pub const TURN_ABORTED_TEXT: &str = "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec processes may still be running in the background. If any tools/commands were aborted, they may have partially executed.\n</turn_aborted>";

/// The context window reported everywhere.
pub const CONTEXT_WINDOW: u64 = 258_400;

fn secs(ms: i64) -> i64 {
    ms.div_euclid(1000)
}

impl Session {
    fn event(&mut self, payload: Obj) -> Obj {
        self.rec("event_msg", payload, None)
    }

    /// The records that open a turn, up to (not including) the user message.
    pub fn rec_turn_start(&mut self, turn_id: &str, first: bool) -> Vec<Obj> {
        let mut out = Vec::new();
        if !first {
            out.push(self.rec_thread_settings());
        }
        let attribution = obj! {
            "turn_id" => turn_id,
            "turn_trigger" => "user",
            "parent_turn_id" => null(),
            "initiating_agent_path" => null(),
            "root_turn_id" => turn_id,
        };
        let started = obj! {
            "type" => "task_started",
            "turn_attribution" => attribution,
            "turn_id" => turn_id,
            "root_turn_id" => turn_id,
            "started_at" => secs(self.clock.now_ms()),
            "model_context_window" => CONTEXT_WINDOW,
            "collaboration_mode_kind" => "default",
        };
        out.push(self.event(started));
        if first {
            out.push(self.rec_developer(turn_id));
            out.push(self.rec_environment(turn_id));
            out.push(self.rec_world_state());
        }
        out.push(self.rec_turn_context(turn_id));
        if first {
            out.push(self.rec_thread_settings());
        }
        out
    }

    /// The user's message: `response_item` plus `item_completed/UserMessage`.
    pub fn rec_user_message(&mut self, turn_id: &str, prompt: &str) -> Vec<Obj> {
        let msg_id = format!("msg_{}", self.uuid7());
        let payload = obj! {
            "type" => "message",
            "id" => msg_id.as_str(),
            "role" => "user",
            "content" => vec![obj! { "type" => "input_text", "text" => prompt }],
            "internal_chat_message_metadata_passthrough" => obj! {
                "turn_id" => turn_id,
                "create_time" => self.clock.now_ms() as f64 / 1000.0,
                "content_item_kinds" => vec![J::from("user.text")],
                "content_item_metadata" => vec![obj! { "provenance" => obj! { "type" => "user" } }],
            },
        };
        let meta = self
            .retained_meta(&msg_id, turn_id, "user")
            .with("mcp_attribution", obj! { "status" => "none" })
            .with("model_search_state", "unused");
        let item_rec = self.rec("response_item", payload, Some(meta));
        let now = self.clock.now_ms();
        let item = obj! {
            "type" => "UserMessage",
            "id" => self.uuid7(),
            "client_id" => crate::ids::uuid_from(self.rand64(), self.rand64()),
            "content" => vec![obj! { "type" => "text", "text" => prompt, "text_elements" => empty_array() }],
        };
        let done = self.item_completed(turn_id, item, now);
        self.sampled = self.history_seq;
        vec![item_rec, done]
    }

    /// History metadata naming the retained message `message_id` as its source.
    fn retained_meta(&mut self, message_id: &str, turn_id: &str, role: &str) -> Obj {
        let retained = obj! {
            "id" => obj! { "message_id" => message_id, "turn_id" => turn_id, "role" => role },
            "revision" => format!("retained_{}", self.uuid7()),
            "complete" => true,
        };
        let meta = self.history_meta(true);
        insert_after(
            meta,
            "sampled_through_sequence",
            "retained_source",
            retained.into(),
        )
    }

    fn item_completed(&mut self, turn_id: &str, item: Obj, started_ms: i64) -> Obj {
        let payload = obj! {
            "type" => "item_completed",
            "thread_id" => self.id.as_str(),
            "turn_id" => turn_id,
            "item" => item,
            "started_at_ms" => started_ms,
            "completed_at_ms" => self.clock.now_ms(),
        };
        self.event(payload)
    }

    /// The answer: `item_completed/AgentMessage` plus the assistant `response_item`.
    pub fn rec_agent_message(&mut self, turn_id: &str, text: &str, started_ms: i64) -> Vec<Obj> {
        let msg_id = format!("msg_{}", self.ids.hex(40));
        let item = obj! {
            "type" => "AgentMessage",
            "id" => msg_id.as_str(),
            "content" => vec![obj! { "type" => "Text", "text" => text }],
        };
        let done = self.item_completed(turn_id, item, started_ms);
        let payload = obj! {
            "type" => "message",
            "status" => "completed",
            "id" => msg_id.as_str(),
            "role" => "assistant",
            "content" => vec![obj! { "type" => "output_text", "text" => text, "annotations" => empty_array() }],
            "internal_chat_message_metadata_passthrough" => obj! {
                "turn_id" => turn_id,
                "content_item_kinds" => vec![J::from("unknown")],
            },
        };
        let meta = self
            .retained_meta(&msg_id, turn_id, "assistant")
            .with("model_search_state", "unused");
        let item_rec = self.rec("response_item", payload, Some(meta));
        vec![done, item_rec]
    }

    /// The model's reasoning before its answer: a `reasoning` response item whose summary is
    /// `thinking` (its content encrypted: none here).
    pub fn rec_reasoning(&mut self, turn_id: &str, thinking: &str) -> Obj {
        let payload = obj! {
            "type" => "reasoning",
            "id" => format!("rs_{}", self.ids.hex(40)),
            "summary" => vec![obj! { "type" => "summary_text", "text" => thinking }],
            "content" => J::Null,
            "encrypted_content" => J::Null,
            "internal_chat_message_metadata_passthrough" => obj! { "turn_id" => turn_id },
        };
        let meta = self
            .history_meta(false)
            .with("model_search_state", "unused");
        self.rec("response_item", payload, Some(meta))
    }

    /// The model's `exec_command` call (`arguments` is a JSON string).
    pub fn rec_function_call(
        &mut self,
        turn_id: &str,
        call_id: &str,
        cmd: &str,
        why: Option<&str>,
    ) -> Obj {
        let mut args = obj! { "cmd" => cmd };
        if let Some(why) = why {
            args.set("sandbox_permissions", "require_escalated");
            args.set("justification", why);
        }
        let payload = obj! {
            "type" => "function_call",
            "status" => "completed",
            "id" => format!("fc_{}", self.ids.hex(10)),
            "name" => "exec_command",
            "arguments" => args.to_line(),
            "call_id" => call_id,
            "internal_chat_message_metadata_passthrough" => obj! { "turn_id" => turn_id },
        };
        let meta = self.history_meta(true).with("model_search_state", "unused");
        self.rec("response_item", payload, Some(meta))
    }

    /// The command's `item_completed/CommandExecution` and `function_call_output`.
    pub fn rec_command_done(
        &mut self,
        turn_id: &str,
        call_id: &str,
        cmd: &str,
        output: &str,
        started_ms: i64,
    ) -> Vec<Obj> {
        let item = obj! {
            "type" => "CommandExecution",
            "id" => call_id,
            "process_id" => (10_000 + self.rand64() % 50_000).to_string(),
            "command" => vec![J::from("/bin/bash"), J::from("-lc"), J::from(cmd)],
            "cwd" => format!("file://{}", self.cwd),
            "parsed_cmd" => vec![obj! { "type" => "unknown", "cmd" => cmd }],
            "source" => "unified_exec_startup",
            "status" => "completed",
            "aggregated_output" => output,
            "exit_code" => 0u64,
            "duration" => obj! { "secs" => 0u64, "nanos" => 30_000u64 },
        };
        let done = self.item_completed(turn_id, item, started_ms);
        let text = format!(
            "Chunk ID: {}\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: {}\nOutput:\n{output}",
            self.ids.hex(6),
            output.len().div_ceil(4)
        );
        vec![done, self.rec_call_output(turn_id, call_id, &text)]
    }

    /// The `function_call_output` the model reads: a command's output, or why it did not run.
    pub fn rec_call_output(&mut self, turn_id: &str, call_id: &str, text: &str) -> Obj {
        let payload = obj! {
            "type" => "function_call_output",
            "id" => format!("fco_{}", self.uuid7()),
            "call_id" => call_id,
            "output" => text,
            "internal_chat_message_metadata_passthrough" => obj! {
                "turn_id" => turn_id,
                "create_time" => self.clock.now_ms() as f64 / 1000.0,
            },
        };
        let meta = self
            .history_meta(false)
            .with("fallback_token_limit_override", 3000u64)
            .with("model_search_state", "unused");
        let out = self.rec("response_item", payload, Some(meta));
        self.sampled = self.history_seq;
        out
    }

    /// One model response's `token_usage_record`; updates the thread totals.
    pub fn rec_token_usage(&mut self, turn_id: &str, usage: Usage, turn: Usage) -> Obj {
        self.thread_usage.add(usage);
        self.last_usage = usage;
        let payload = obj! {
            "thread_id" => self.id.as_str(),
            "turn_id" => turn_id,
            "session_id" => self.id.as_str(),
            "root_turn_id" => turn_id,
            "response_id" => format!("resp_{}", self.ids.hex(40)),
            "usage" => usage.obj(true),
            "turn_token_usage" => turn.obj(true),
            "thread_token_usage" => self.thread_usage.obj(true),
        };
        self.rec("token_usage_record", payload, None)
    }

    /// `event_msg/token_count` with the thread totals so far.
    pub fn rec_token_count(&mut self) -> Obj {
        let info = obj! {
            "total_token_usage" => self.thread_usage.obj(true),
            "last_token_usage" => self.last_usage.obj(true),
            "last_usage_includes_reasoning" => false,
            "model_context_window" => CONTEXT_WINDOW,
        };
        let limits = obj! {
            "limit_id" => "codex",
            "limit_name" => null(),
            "primary" => null(),
            "secondary" => null(),
            "credits" => null(),
            "individual_limit" => null(),
            "spend_control_reached" => null(),
            "plan_type" => null(),
            "rate_limit_reached_type" => null(),
        };
        self.event(obj! { "type" => "token_count", "info" => info, "rate_limits" => limits })
    }

    /// `event_msg/task_complete`: `last_agent_message`, or null plus `error`.
    pub fn rec_task_complete(
        &mut self,
        turn_id: &str,
        outcome: Result<&str, (&str, &str)>,
        started_ms: i64,
        ttft_ms: u64,
    ) -> Obj {
        let now = self.clock.now_ms();
        let mut o =
            obj! { "type" => "task_complete", "root_turn_id" => turn_id, "turn_id" => turn_id };
        match outcome {
            Ok(text) => o.set("last_agent_message", text),
            Err((message, info)) => o.set("last_agent_message", null()).set(
                "error",
                obj! { "message" => message, "codex_error_info" => info },
            ),
        };
        o.set("started_at", secs(started_ms));
        o.set("completed_at", secs(now));
        o.set("duration_ms", (now - started_ms).max(0));
        if outcome.is_ok() {
            o.set("time_to_first_token_ms", ttft_ms);
        }
        self.event(o)
    }

    /// After an interrupt: the `<turn_aborted>` user message, then `turn_aborted`.
    pub fn rec_turn_aborted(&mut self, turn_id: &str, started_ms: i64) -> Vec<Obj> {
        let payload = obj! {
            "type" => "message",
            "role" => "user",
            "content" => vec![obj! { "type" => "input_text", "text" => TURN_ABORTED_TEXT }],
        };
        let meta = self
            .history_meta(false)
            .with("model_search_state", "unused");
        let marker = self.rec("response_item", payload, Some(meta));
        let aborted = obj! {
            "type" => "turn_aborted",
            "turn_id" => turn_id,
            "reason" => "interrupted",
            "duration_ms" => (self.clock.now_ms() - started_ms).max(0),
        };
        vec![marker, self.event(aborted)]
    }
}

/// `o` with `key: value` placed right after `after`.
fn insert_after(o: Obj, after: &str, key: &str, value: J) -> Obj {
    let mut out = Obj::new();
    for (k, v) in o.0 {
        let hit = k == after;
        out.0.insert(k, v);
        if hit {
            out.0.insert(key.to_string(), value.clone());
        }
    }
    out
}
