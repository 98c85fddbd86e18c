//! What one turn cost and did, read from the records of its transcript (oldest first, as
//! [`last_turn_records`] cuts them): tokens per model, model requests, tool calls with their
//! results, the stop reason and the API error. The print-mode JSON of every provider is filled
//! from this; nothing here is guessed — a field the transcript lacks stays at zero / absent.

use crate::core::providers::{Provider, ProviderModule, TranscriptTurn, str_field};
use serde_json::Value;

/// Token counts of one model (or of the whole turn).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
    pub thoughts: u64,
    /// Model requests these tokens came from.
    pub requests: u64,
}

impl ToolCall {
    /// A call without its result yet.
    fn new(id: Option<&str>, name: Option<&str>, input: Option<&Value>) -> Self {
        ToolCall {
            id: id.unwrap_or("").to_string(),
            name: name.unwrap_or("").to_string(),
            input: input.cloned().unwrap_or(Value::Null),
            output: None,
            ok: None,
            exit_code: None,
            denied: false,
            state: None,
        }
    }
}

/// Where one provider's usage object keeps each count (JSON pointers; `None`: it has none).
struct UsagePaths {
    input: &'static str,
    output: &'static str,
    cache_read: &'static str,
    cache_creation: Option<&'static str>,
    thoughts: &'static str,
}

const CLAUDE_USAGE: UsagePaths = UsagePaths {
    input: "/input_tokens",
    output: "/output_tokens",
    cache_read: "/cache_read_input_tokens",
    cache_creation: Some("/cache_creation_input_tokens"),
    thoughts: "/output_tokens_details/thinking_tokens",
};

const CODEX_USAGE: UsagePaths = UsagePaths {
    input: "/input_tokens",
    output: "/output_tokens",
    cache_read: "/cached_input_tokens",
    cache_creation: Some("/cache_write_input_tokens"),
    thoughts: "/reasoning_output_tokens",
};

const GEMINI_USAGE: UsagePaths = UsagePaths {
    input: "/tokens/input",
    output: "/tokens/output",
    cache_read: "/tokens/cached",
    cache_creation: None,
    thoughts: "/tokens/thoughts",
};

const QWEN_USAGE: UsagePaths = UsagePaths {
    input: "/usageMetadata/promptTokenCount",
    output: "/usageMetadata/candidatesTokenCount",
    cache_read: "/usageMetadata/cachedContentTokenCount",
    cache_creation: None,
    thoughts: "/usageMetadata/thoughtsTokenCount",
};

impl Tokens {
    /// One model request's counts, read from `usage` where `paths` say.
    fn read(usage: &Value, paths: &UsagePaths) -> Self {
        Tokens {
            input: u64_at(usage, paths.input),
            output: u64_at(usage, paths.output),
            cache_read: u64_at(usage, paths.cache_read),
            cache_creation: paths.cache_creation.map_or(0, |p| u64_at(usage, p)),
            thoughts: u64_at(usage, paths.thoughts),
            requests: 1,
        }
    }

    fn add(&mut self, other: &Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_creation += other.cache_creation;
        self.thoughts += other.thoughts;
        self.requests += other.requests;
    }
}

/// One tool call of the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
    /// Its output, once it has one.
    pub output: Option<String>,
    /// Whether it succeeded (None: no result yet).
    pub ok: Option<bool>,
    /// The process exit code of a shell tool, when the transcript says.
    pub exit_code: Option<i64>,
    /// The CLI refused it (a permission denial).
    pub denied: bool,
    /// The CLI's own record of the call's state, for its shape (opencode's tool part `state`:
    /// status, input, output, title, metadata, time).
    pub state: Option<Value>,
}

/// What a turn's records tell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnStats {
    /// Tokens per model, in the order the models were first used.
    pub models: Vec<(String, Tokens)>,
    pub tools: Vec<ToolCall>,
    /// The model's last stop reason (claude: `end_turn`, `tool_use`, `stop_sequence`).
    pub stop_reason: Option<String>,
    /// The HTTP status and type of an API error that ended the turn.
    pub api_error_status: Option<u64>,
    pub api_error_type: Option<String>,
    /// How long the turn took by the CLI's own clock (codex writes it).
    pub duration_ms: Option<u64>,
    /// The last model message's usage object as the API sent it (claude), for its shape.
    pub usage: Option<Value>,
    /// The error object that ended the turn as the CLI recorded it (opencode's assistant
    /// message `error`: name, data with the status, body and headers), for its shape.
    pub api_error: Option<Value>,
    /// The id of the turn's last record that has one (claude's `uuid`).
    pub uuid: Option<String>,
    /// opencode: the assistant's parts (steps, texts, tools), newest version of each, in the
    /// order they first appear, for `opencode run --format json`'s step-by-step events.
    pub parts: Vec<Value>,
}

impl TurnStats {
    /// Tokens of all models together.
    pub fn total(&self) -> Tokens {
        let mut total = Tokens::default();
        for (_, tokens) in &self.models {
            total.add(tokens);
        }
        total
    }

    /// Adds `tokens` to `model`'s (a session added up record by record).
    pub fn add_tokens(&mut self, model: &str, tokens: &Tokens) {
        self.model(model).add(tokens);
    }

    fn model(&mut self, name: &str) -> &mut Tokens {
        let at = match self.models.iter().position(|(m, _)| m == name) {
            Some(at) => at,
            None => {
                self.models.push((name.to_string(), Tokens::default()));
                self.models.len() - 1
            }
        };
        &mut self.models[at].1
    }

    fn tool(&mut self, id: &str) -> Option<&mut ToolCall> {
        self.tools.iter_mut().find(|t| t.id == id)
    }
}

/// The last turn and its records, oldest first, from transcript lines given newest first: the
/// lines the provider's own [`ProviderModule::last_turn`] reads back to the turn's prompt.
pub fn last_turn_records(
    provider: &dyn ProviderModule,
    lines_newest_first: &mut dyn Iterator<Item = String>,
) -> (TranscriptTurn, Vec<Value>) {
    let mut consumed = Vec::new();
    let turn = {
        let mut feed = lines_newest_first.inspect(|l| consumed.push(l.clone()));
        provider.last_turn(&mut feed)
    };
    let records = consumed
        .iter()
        .rev()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (turn, records)
}

/// The stats of a turn from its records (oldest first).
pub fn turn_stats(provider: Provider, records: &[Value]) -> TurnStats {
    let mut stats = TurnStats::default();
    match provider {
        Provider::Claude => claude(records, &mut stats),
        Provider::Codex => codex(records, &mut stats),
        Provider::Gemini => gemini(records, &mut stats),
        Provider::Qwen => qwen(records, &mut stats),
        Provider::Opencode => opencode(records, &mut stats),
    }
    stats
}

fn u64_at(v: &Value, pointer: &str) -> u64 {
    v.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// Claude writes one line per content block, each with its message's usage so far; the last
/// line of a message id has its final usage. A `<synthetic>` message is an API error.
fn claude(records: &[Value], stats: &mut TurnStats) {
    let mut counted: Vec<(String, String, Tokens)> = Vec::new();
    for record in records {
        let message = record.get("message").unwrap_or(&Value::Null);
        match str_field(record, "type") {
            Some("assistant") => claude_assistant(record, message, stats, &mut counted),
            Some("user") => claude_results(record, message, stats),
            _ => {}
        }
    }
    for (_, model, tokens) in counted {
        stats.model(&model).add(&tokens);
    }
}

/// One assistant line: the turn's last usage, stop reason and API error, the message's tokens
/// (the latest line of a message id wins, in `counted`), and its tool calls.
fn claude_assistant(
    record: &Value,
    message: &Value,
    stats: &mut TurnStats,
    counted: &mut Vec<(String, String, Tokens)>,
) {
    let model = str_field(message, "model").unwrap_or("");
    stats.uuid = str_field(record, "uuid").map(str::to_string);
    stats.usage = message.get("usage").filter(|u| u.is_object()).cloned();
    if let Some(reason) = str_field(message, "stop_reason") {
        stats.stop_reason = Some(reason.to_string());
    }
    if record.get("isApiErrorMessage") == Some(&Value::Bool(true)) {
        stats.api_error_status = record.get("apiErrorStatus").and_then(Value::as_u64);
        stats.api_error_type = str_field(record, "apiErrorType").map(str::to_string);
    }
    if model == "<synthetic>" || model.is_empty() {
        return;
    }
    let usage = message.get("usage").unwrap_or(&Value::Null);
    let tokens = Tokens::read(usage, &CLAUDE_USAGE);
    let id = str_field(message, "id").unwrap_or("").to_string();
    match counted
        .iter_mut()
        .find(|(i, _, _)| *i == id && !id.is_empty())
    {
        Some(entry) => entry.2 = tokens,
        None => counted.push((id, model.to_string(), tokens)),
    }
    for block in blocks(message) {
        if str_field(block, "type") == Some("tool_use") {
            stats.tools.push(ToolCall::new(
                str_field(block, "id"),
                str_field(block, "name"),
                block.get("input"),
            ));
        }
    }
}

/// One user line: the results of tool calls (and whether a person denied them).
fn claude_results(record: &Value, message: &Value, stats: &mut TurnStats) {
    let decision = record.pointer("/permissionDecision/decision");
    let denied = decision
        .and_then(Value::as_str)
        .is_some_and(|d| matches!(d, "deny" | "reject"));
    for block in blocks(message) {
        if str_field(block, "type") != Some("tool_result") {
            continue;
        }
        let id = str_field(block, "tool_use_id").unwrap_or("");
        if let Some(tool) = stats.tool(id) {
            tool.output = Some(result_text(block.get("content")));
            tool.ok = Some(block.get("is_error") != Some(&Value::Bool(true)));
            tool.denied = denied;
        }
    }
}

fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A tool result's content: a string, or text blocks.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| str_field(i, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Codex: the model from `turn_context`, one `token_usage_record` per model response, tool
/// calls as `function_call` / `function_call_output`, the end in `task_complete`.
fn codex(records: &[Value], stats: &mut TurnStats) {
    let mut model = String::new();
    for record in records {
        let payload = record.get("payload").unwrap_or(&Value::Null);
        match (str_field(record, "type"), str_field(payload, "type")) {
            (Some("turn_context"), _) => {
                model = str_field(payload, "model").unwrap_or("").to_string();
            }
            (Some("token_usage_record"), _) => {
                let usage = payload.get("usage").unwrap_or(&Value::Null);
                let tokens = Tokens::read(usage, &CODEX_USAGE);
                let name = model.clone();
                stats.model(&name).add(&tokens);
            }
            (_, Some("function_call")) => stats.tools.push(codex_call(payload)),
            (_, Some("function_call_output")) => {
                let id = str_field(payload, "call_id").unwrap_or("");
                if let Some(tool) = stats.tool(id) {
                    codex_call_output(tool, payload);
                }
            }
            (_, Some("task_complete")) => {
                stats.duration_ms = payload.get("duration_ms").and_then(Value::as_u64);
            }
            _ => {}
        }
    }
}

/// A codex `function_call` payload as a tool call without its result.
pub fn codex_call(payload: &Value) -> ToolCall {
    let input: Option<Value> =
        str_field(payload, "arguments").and_then(|a| serde_json::from_str(a).ok());
    ToolCall::new(
        str_field(payload, "call_id"),
        str_field(payload, "name"),
        input.as_ref(),
    )
}

/// Its `function_call_output` payload: what the command printed and how it ended, or that
/// codex refused to run it (no exit code, a rejection).
pub fn codex_call_output(tool: &mut ToolCall, payload: &Value) {
    let raw = str_field(payload, "output").unwrap_or("");
    let exit_code = codex_exit_code(raw);
    tool.output = Some(codex_output(raw).to_string());
    tool.exit_code = exit_code;
    tool.ok = Some(exit_code == Some(0));
    tool.denied = exit_code.is_none() && raw.contains("reject");
}

/// `Process exited with code N` in a codex tool output.
fn codex_exit_code(output: &str) -> Option<i64> {
    output
        .lines()
        .find_map(|l| l.strip_prefix("Process exited with code "))
        .and_then(|n| n.trim().parse().ok())
}

/// What the command printed: the part after codex's `Output:` header.
fn codex_output(output: &str) -> &str {
    output
        .split_once("\nOutput:\n")
        .map_or(output, |(_, rest)| rest)
}

/// Gemini: each `gemini` record (the last version of an id counts) has its model and tokens,
/// and its `toolCalls` with their results.
fn gemini(records: &[Value], stats: &mut TurnStats) {
    let mut latest: Vec<&Value> = Vec::new();
    for record in records {
        let Some(id) = str_field(record, "id") else {
            continue;
        };
        match latest.iter().position(|r| str_field(r, "id") == Some(id)) {
            Some(at) => latest[at] = record,
            None => latest.push(record),
        }
    }
    for record in latest {
        match str_field(record, "type") {
            Some("gemini") => {
                let tokens = Tokens::read(record, &GEMINI_USAGE);
                let model = str_field(record, "model").unwrap_or("").to_string();
                stats.model(&model).add(&tokens);
                let calls = record.get("toolCalls").and_then(Value::as_array);
                for call in calls.map_or(&[][..], Vec::as_slice) {
                    let status = str_field(call, "status");
                    let output = call
                        .pointer("/result/0/functionResponse/response/output")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    stats.tools.push(ToolCall {
                        output,
                        ok: status.map(|s| s == "success"),
                        denied: matches!(status, Some("cancelled" | "rejected")),
                        ..ToolCall::new(
                            str_field(call, "id"),
                            str_field(call, "name"),
                            call.get("args"),
                        )
                    });
                }
            }
            Some("error") => {
                let content = str_field(record, "content").unwrap_or("");
                stats.api_error_status = gemini_error_code(content);
            }
            _ => {}
        }
    }
}

/// Qwen: one `assistant` record per model response (its usage, its `functionCall` parts), a
/// `tool_result` record per call, and a `system` `qwen-code.api_error` telemetry record for a
/// failed request.
fn qwen(records: &[Value], stats: &mut TurnStats) {
    let parts = |record: &Value| {
        record
            .pointer("/message/parts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    for record in records {
        match str_field(record, "type") {
            Some("assistant") => {
                let model = str_field(record, "model").unwrap_or("").to_string();
                stats.model(&model).add(&Tokens::read(record, &QWEN_USAGE));
                for call in parts(record).iter().filter_map(|p| p.get("functionCall")) {
                    stats.tools.push(ToolCall::new(
                        str_field(call, "id"),
                        str_field(call, "name"),
                        call.get("args"),
                    ));
                }
            }
            Some("tool_result") => {
                let status = record
                    .pointer("/toolCallResult/status")
                    .and_then(Value::as_str);
                for response in parts(record)
                    .iter()
                    .filter_map(|p| p.get("functionResponse"))
                {
                    let id = str_field(response, "id");
                    if let Some(tool) = stats.tools.iter_mut().find(|t| Some(t.id.as_str()) == id) {
                        tool.output = response
                            .pointer("/response/output")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        tool.ok = Some(status == Some("success"));
                        tool.denied = matches!(status, Some("cancelled" | "rejected"));
                    }
                }
            }
            Some("system") => {
                let event = record.pointer("/systemPayload/uiEvent");
                if event.and_then(|e| str_field(e, "event.name")) == Some("qwen-code.api_error") {
                    // A request to that model, which failed (qwen's own stats count it).
                    if let Some(model) = event.and_then(|e| str_field(e, "model")) {
                        stats.model(model).requests += 1;
                    }
                    stats.api_error_status = event
                        .and_then(|e| e.get("status_code"))
                        .and_then(Value::as_u64);
                    stats.api_error_type = event
                        .and_then(|e| str_field(e, "error_type"))
                        .map(str::to_string);
                }
            }
            _ => {}
        }
    }
}

/// The `"code":N` of the JSON error gemini quotes in its `[API Error: …]` record.
fn gemini_error_code(content: &str) -> Option<u64> {
    let at = content.find("\"code\":")? + "\"code\":".len();
    let digits: String = content[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

const OPENCODE_USAGE: UsagePaths = UsagePaths {
    input: "/input",
    output: "/output",
    cache_read: "/cache/read",
    cache_creation: Some("/cache/write"),
    thoughts: "/reasoning",
};

/// The parts of opencode's assistant messages among `latest` (messages and parts, newest
/// version of each), in order: the user's text part is the prompt, not the answer.
fn assistant_parts(latest: &[&Value]) -> Vec<Value> {
    let assistant: Vec<&str> = latest
        .iter()
        .filter(|o| str_field(o, "role") == Some("assistant"))
        .filter_map(|o| str_field(o, "id"))
        .collect();
    latest
        .iter()
        .filter(|o| str_field(o, "messageID").is_some_and(|m| assistant.contains(&m)))
        .map(|o| (*o).clone())
        .collect()
}

/// opencode's record (`{"type":"message","info"}` / `{"type":"part","part"}`, upserted by id):
/// each assistant message's newest version counts its tokens (`info.tokens`) once, a message
/// with `info.error` is the API error; `tool` parts are the calls with their state.
fn opencode(records: &[Value], stats: &mut TurnStats) {
    let mut latest: Vec<&Value> = Vec::new();
    for record in records {
        let Some(object) = record.get("info").or_else(|| record.get("part")) else {
            continue;
        };
        let id = str_field(object, "id");
        match latest
            .iter()
            .position(|r| id.is_some() && str_field(r, "id") == id)
        {
            Some(at) => latest[at] = object,
            None => latest.push(object),
        }
    }
    stats.parts = assistant_parts(&latest);
    for object in latest {
        if str_field(object, "role") == Some("assistant") {
            let model = str_field(object, "modelID").unwrap_or("").to_string();
            let mut tokens = Tokens::read(
                object.get("tokens").unwrap_or(&Value::Null),
                &OPENCODE_USAGE,
            );
            tokens.requests = 1;
            stats.model(&model).add(&tokens);
            stats.stop_reason = str_field(object, "finish").map(str::to_string);
            if let Some(error) = object.get("error") {
                stats.api_error_status = error.pointer("/data/statusCode").and_then(Value::as_u64);
                stats.api_error_type = str_field(error, "name").map(str::to_string);
                stats.api_error = Some(error.clone());
            }
        } else if str_field(object, "type") == Some("tool") {
            let state = object.get("state").unwrap_or(&Value::Null);
            let status = str_field(state, "status");
            stats.tools.push(ToolCall {
                output: str_field(state, "output")
                    .or_else(|| str_field(state, "error"))
                    .map(str::to_string),
                ok: match status {
                    Some("completed") => Some(true),
                    Some("error") => Some(false),
                    _ => None,
                },
                denied: status == Some("error")
                    && str_field(state, "error").is_some_and(|e| e.contains("rejected")),
                state: Some(state.clone()),
                ..ToolCall::new(
                    str_field(object, "callID"),
                    str_field(object, "tool"),
                    state.get("input"),
                )
            });
        }
    }
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
