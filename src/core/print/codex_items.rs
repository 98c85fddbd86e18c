//! The items of `codex exec --json` that umbel makes from a rollout: a shell command as a
//! `command_execution` item, the usage of `turn.completed`. One definition for the events
//! printed at a turn's end (`-o json`) and those streamed while it runs (`-o stream-json`).

use super::stats::{Tokens, ToolCall};
use serde_json::{Value, json};

/// Whether a codex tool call runs a shell command (codex exec shows those as items).
pub fn is_shell(tool: &ToolCall) -> bool {
    matches!(
        tool.name.as_str(),
        "exec_command" | "shell" | "local_shell" | "shell_command"
    )
}

/// The `command_execution` item of a shell call: in progress, or done with its output.
pub fn command_item(id: &str, tool: &ToolCall, completed: bool) -> Value {
    let status = match (completed, tool.ok) {
        (false, _) => "in_progress",
        (true, Some(true)) => "completed",
        (true, _) => "failed",
    };
    json!({
        "id": id,
        "type": "command_execution",
        "command": command_line(tool),
        "aggregated_output": if completed { tool.output.clone().unwrap_or_default() } else { String::new() },
        "exit_code": if completed { tool.exit_code } else { None },
        "status": status,
    })
}

/// The same item for a command codex refused once it had been shown as started: codex's
/// own status for it is `declined`.
pub fn declined_item(id: &str, tool: &ToolCall) -> Value {
    json!({
        "id": id,
        "type": "command_execution",
        "command": command_line(tool),
        "aggregated_output": tool.output.clone().unwrap_or_default(),
        "exit_code": null,
        "status": "declined",
    })
}

/// `turn.completed` with the turn's token counts.
pub fn turn_completed(t: &Tokens) -> Value {
    json!({ "type": "turn.completed", "usage": {
        "input_tokens": t.input,
        "cached_input_tokens": t.cache_read,
        "cache_write_input_tokens": t.cache_creation,
        "output_tokens": t.output,
        "reasoning_output_tokens": t.thoughts,
    } })
}

/// The agent's message as a completed item.
pub fn agent_message(id: &str, text: &str) -> Value {
    json!({ "type": "item.completed", "item": { "id": id, "type": "agent_message", "text": text } })
}

/// The command as codex's exec events show it: `cmd`/`command`, an argv joined by spaces.
fn command_line(tool: &ToolCall) -> String {
    ["cmd", "command"]
        .iter()
        .find_map(|k| tool.input.get(*k))
        .map_or(String::new(), |c| match c {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
            other => other.to_string(),
        })
}
