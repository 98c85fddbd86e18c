//! codex's rollout read into a turn's [`TurnStats`]: the model from `turn_context`, usage per
//! model response, shell calls and their outputs.

use crate::core::print::stats::{
    ContextReading, Tokens, ToolCall, TurnStats, UsagePaths, UsageReading,
};
use crate::core::providers::str_field;
use serde_json::Value;

/// How `top` adds a session's usage up from this transcript.
pub const USAGE: UsageReading = UsageReading {
    marks: &["\"token_usage_record\"", "\"turn_context\""],
    context_type: Some("turn_context"),
    message_id: None,
    context: Some(ContextReading {
        used: &["/payload/info/last_token_usage/total_tokens"],
        window: "/payload/info/model_context_window",
    }),
    thoughts_apart: false,
    cached_in_input: true,
};

const CODEX_USAGE: UsagePaths = UsagePaths {
    input: "/input_tokens",
    output: "/output_tokens",
    cache_read: "/cached_input_tokens",
    cache_creation: Some("/cache_write_input_tokens"),
    thoughts: "/reasoning_output_tokens",
};

/// Codex: the model from `turn_context`, one `token_usage_record` per model response, tool
/// calls as `function_call` / `function_call_output`, the end in `task_complete`.
pub fn read(records: &[Value], stats: &mut TurnStats) {
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
            (_, Some("function_call")) => stats.tools.push(call(payload)),
            (_, Some("function_call_output")) => {
                let id = str_field(payload, "call_id").unwrap_or("");
                if let Some(tool) = stats.tool(id) {
                    call_output(tool, payload);
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
pub fn call(payload: &Value) -> ToolCall {
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
pub fn call_output(tool: &mut ToolCall, payload: &Value) {
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
