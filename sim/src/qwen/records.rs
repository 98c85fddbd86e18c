//! Qwen Code's chat record (`tests/data/qwen/qwen-0.24.4-chat-session.jsonl`), translated from
//! the records fake-gemini's engine writes: JSONL under `<QWEN_HOME>/projects/<cwd>/chats/
//! <session>.jsonl`, one record per line, each with `uuid`, `parentUuid` (the line before),
//! `sessionId`, `timestamp`, `type`, `provenance`, `cwd` and `version`:
//!
//! - a prompt: `user` (`provenance: real_user`, `message.parts` text);
//! - an answer: `assistant` (`message.parts` text or `functionCall`, `usageMetadata`);
//! - a tool's result: `tool_result` (`functionResponse` parts, `toolCallResult.status`);
//! - a failed request: `system` `ui_telemetry` with `uiEvent` `qwen-code.api_error`;
//! - before each response, `qwen-code.api_response` telemetry, and before a cancelled call's
//!   result `qwen-code.tool_call`, each naming the turn's `prompt_id`.
//!
//! fake-gemini's header, `$set` lines and `info` notes have no qwen record; a cancelled turn
//! leaves its prompt only.

use serde_json::Value;

use crate::ids::IdGen;
use crate::json::Obj;
use crate::obj;

/// The note fake-gemini writes for a cancelled turn (qwen shows the same words).
const CANCELLED: &str = "Request cancelled.";

/// How the running turn ended, for the `AfterAgent` → `Stop` / `StopFailure` translation.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum TurnEnd {
    /// With an answer (`Stop`).
    #[default]
    Answered,
    /// With an API error (`StopFailure`): the status and qwen's message.
    Failed {
        /// HTTP status.
        status: u16,
        /// The message qwen shows after `[API Error: `.
        raw: String,
    },
    /// By Esc (no hook at all).
    Cancelled,
}

/// What the translation keeps between records and hooks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    /// The last record's `uuid` (the next one's `parentUuid`).
    pub last_uuid: Option<String>,
    /// How the running turn ended.
    pub end: TurnEnd,
    /// The tool awaiting permission (name, input), for `PermissionRequest`.
    pub asking: Option<(String, Value)>,
    /// The tool call the model just asked for (id, name, input): qwen 0.24.4 records it,
    /// usage and all, as the model's response arrives — before it asks to run it — and not
    /// again once it ran.
    pub call: Option<(String, String, Value)>,
    /// The prompts the session took: the running turn's `prompt_id` is
    /// `<session>########<prompts - 1>` (its hooks and telemetry name it).
    pub prompts: u32,
}

impl Ctx<'_> {
    /// The running turn's id, as qwen 0.24.4's hooks and telemetry name it; `None` before the
    /// first prompt.
    pub fn prompt_id(&self) -> Option<String> {
        let n = self.state.prompts.checked_sub(1)?;
        Some(format!("{}########{n}", self.session))
    }
}

/// What a translation needs of the session.
pub struct Ctx<'a> {
    /// The session id.
    pub session: &'a str,
    /// The working directory as reported.
    pub cwd: &'a str,
    /// The model that answers.
    pub model: &'a str,
    /// The release played.
    pub version: String,
    /// The session's id stream.
    pub ids: &'a mut IdGen,
    /// The state kept between records and hooks.
    pub state: &'a mut State,
}

/// The parts of fake-gemini's `content` (a text, or parts already).
fn parts(rec: &Obj) -> Vec<Value> {
    // The model's thinking first, as `thought` text parts (qwen's record of a reasoning model).
    let thoughts = rec.0.get("thoughts").and_then(Value::as_array);
    let mut parts: Vec<Value> = thoughts
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("description")?.as_str())
        .map(|t| serde_json::json!({ "text": t, "thought": true }))
        .collect();
    match rec.0.get("content") {
        Some(Value::Array(content)) => parts.extend(content.iter().cloned()),
        Some(Value::String(text)) if !text.is_empty() => {
            parts.push(serde_json::json!({ "text": text }));
        }
        _ => {}
    }
    parts
}

/// The fields every record starts with.
fn head(sess: &mut Ctx<'_>, kind: &str, provenance: &str, ts: String) -> Obj {
    let uuid = sess.ids.uuid();
    let parent = sess.state.last_uuid.replace(uuid.clone());
    obj! {
        "uuid" => uuid,
        "parentUuid" => parent,
        "sessionId" => sess.session,
        "timestamp" => ts,
        "type" => kind,
        "provenance" => provenance,
        "cwd" => sess.cwd,
        "version" => sess.version.as_str(),
    }
}

/// A `system` `ui_telemetry` record of `event`, naming the running turn's `prompt_id`.
fn telemetry(sess: &mut Ctx<'_>, event: Obj, ts: String) -> Obj {
    let event = event
        .with("event.timestamp", ts.as_str())
        .with("prompt_id", sess.prompt_id());
    head(sess, "system", "system", ts)
        .with("subtype", "ui_telemetry")
        .with("systemPayload", obj! { "uiEvent" => event })
}

/// The `tool_result` qwen 0.24.4 records for a call refused at its confirmation (status
/// `cancelled`, recorded: `[Operation Cancelled] Reason: Tool call cancelled by user.`).
fn cancelled_result(sess: &mut Ctx<'_>, calls: &[Value], ts: String) -> Vec<Obj> {
    let Some(call) = calls
        .iter()
        .find(|c| c.get("status").and_then(Value::as_str) == Some("cancelled"))
    else {
        return Vec::new();
    };
    let id = call.get("id").cloned().unwrap_or(Value::Null);
    let event = obj! {
        "event.name" => "qwen-code.tool_call",
        "call_id" => id.clone(),
        "function_name" => call.get("name"),
        "status" => "cancelled",
        "execution_status" => "not_started",
        "success" => false,
    };
    let told = telemetry(sess, event, ts.clone());
    let response = serde_json::json!({ "functionResponse": {
        "id": id, "name": call.get("name"),
        "response": { "error": "[Operation Cancelled] Reason: Tool call cancelled by user." }
    } });
    let result = obj! { "callId" => id, "status" => "cancelled" };
    let head = head(sess, "tool_result", "system", ts);
    let record = head
        .with(
            "message",
            obj! { "role" => "user", "parts" => vec![response] },
        )
        .with("toolCallResult", result);
    vec![told, record]
}

/// The qwen records for a record fake-gemini writes (none where qwen writes none).
// long: one arm per fake-gemini record type, each a qwen record's fields.
pub fn translate(sess: &mut Ctx<'_>, rec: &Obj) -> Vec<Obj> {
    let ts = || rec.str("timestamp");
    match rec.str("type").as_str() {
        "user" => {
            let parts = parts(rec);
            let response = parts.iter().find_map(|p| p.get("functionResponse"));
            if let Some(fr) = response.cloned() {
                let ok = fr.pointer("/response/error").is_none();
                let status = if ok { "success" } else { "error" };
                let result = obj! { "callId" => fr.get("id").cloned().unwrap_or(Value::Null), "status" => status };
                let head = head(sess, "tool_result", "system", ts());
                return vec![
                    head.with("message", obj! { "role" => "user", "parts" => parts })
                        .with("toolCallResult", result),
                ];
            }
            sess.state.end = TurnEnd::Answered;
            sess.state.call = None;
            let head = head(sess, "user", "real_user", ts());
            vec![head.with("message", obj! { "role" => "user", "parts" => parts })]
        }
        "gemini" => {
            let calls = rec.0.get("toolCalls").and_then(Value::as_array);
            if let Some(calls) = calls
                && sess.state.call.take().is_some()
            {
                // Recorded when the model asked for it; a refused one's result is recorded
                // as qwen does, `cancelled`.
                return cancelled_result(sess, calls, ts());
            }
            let mut parts = parts(rec);
            if let (true, None, Some((id, name, args))) =
                (parts.is_empty(), calls, &sess.state.call)
            {
                parts = vec![
                    serde_json::json!({ "functionCall": { "id": id, "name": name, "args": args } }),
                ];
            }
            if let Some(calls) = calls {
                parts = calls
                    .iter()
                    .map(|c| {
                        serde_json::json!({ "functionCall": {
                            "id": c.get("id"), "name": c.get("name"), "args": c.get("args")
                        } })
                    })
                    .collect();
            }
            if parts.is_empty() {
                return Vec::new();
            }
            let tokens = rec.0.get("tokens");
            let count = |k: &str| tokens.and_then(|t| t.get(k)).cloned().unwrap_or(0.into());
            let usage = obj! {
                "promptTokenCount" => count("input"),
                "candidatesTokenCount" => count("output"),
                "totalTokenCount" => count("total"),
            };
            let model = rec.str("model");
            let event = obj! {
                "event.name" => "qwen-code.api_response",
                "model" => model.as_str(),
                "status_code" => 200,
                "input_token_count" => count("input"),
                "output_token_count" => count("output"),
                "total_token_count" => count("total"),
            };
            let told = telemetry(sess, event, ts());
            let head = head(sess, "assistant", "system", ts());
            let record = head
                .with("model", model)
                .with("message", obj! { "role" => "model", "parts" => parts })
                .with("usageMetadata", usage)
                .with("contextWindowSize", 262_144u64);
            vec![told, record]
        }
        "error" => {
            let text = rec.str("content");
            let raw = text
                .strip_prefix("[API Error: ")
                .and_then(|t| t.strip_suffix(']'))
                .unwrap_or(&text)
                .to_string();
            let status = raw
                .split(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            sess.state.end = TurnEnd::Failed {
                status,
                raw: raw.clone(),
            };
            let event = obj! {
                "event.name" => "qwen-code.api_error",
                "model" => sess.model,
                "error_message" => raw.as_str(),
                "status_code" => status,
            };
            vec![telemetry(sess, event, ts())]
        }
        "info" if rec.str("content") == CANCELLED => {
            sess.state.end = TurnEnd::Cancelled;
            Vec::new()
        }
        _ => Vec::new(),
    }
}
