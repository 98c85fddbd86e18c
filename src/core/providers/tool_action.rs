//! What a turn's tool calls look like to every provider: [`ToolAction`] and its status, and the
//! short summary of a tool's input. The providers fill them in (`actions.rs`); the turn reader
//! (`core/turns.rs`) carries them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One tool call of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolAction {
    /// The tool's name as the provider calls it (`Bash`, `exec_command`, `run_shell_command`).
    pub tool: String,
    /// A short summary of its input: the command of a shell tool, the path of a file tool,
    /// else compact JSON, cut at [`SUMMARY_CHARS`] characters.
    pub input: String,
    /// Whether it ran fine, failed (or was refused), or has no result yet.
    pub status: ActionStatus,
    /// Its whole input, as the CLI recorded it (`umbel acp` shows it; `actions` the summary).
    #[serde(skip)]
    #[schemars(skip)]
    pub args: Value,
    /// What it printed or the error it ended with, once it has a result the transcript keeps.
    #[serde(skip)]
    #[schemars(skip)]
    pub output: Option<String>,
}

impl ToolAction {
    /// A call of `tool` with `args`, its result `status` and `output`.
    pub fn new(tool: &str, args: &Value, status: ActionStatus, output: Option<String>) -> Self {
        ToolAction {
            tool: tool.to_string(),
            input: summarize_input(args),
            status,
            args: args.clone(),
            output,
        }
    }
}

/// The result of a tool call.
/// Ordered by severity (`max` keeps the worse of two reports).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ActionStatus {
    Ok,
    Error,
    Pending,
}

impl ActionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionStatus::Ok => "ok",
            ActionStatus::Error => "error",
            ActionStatus::Pending => "pending",
        }
    }
}

/// How long an input summary may get.
pub const SUMMARY_CHARS: usize = 120;

/// Input fields that say what a tool call is about, most telling first.
const SUMMARY_FIELDS: &[&str] = &[
    "command",
    "cmd",
    "file_path",
    "path",
    "absolute_path",
    "notebook_path",
    "pattern",
    "url",
    "query",
    "prompt",
];

/// The short summary of a tool's input (see [`ToolAction::input`]).
pub fn summarize_input(input: &Value) -> String {
    let picked = SUMMARY_FIELDS.iter().find_map(|key| match input.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        // codex `shell` takes the command as an argv array.
        Some(Value::Array(parts)) if parts.iter().all(Value::is_string) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    });
    let text = match (picked, input) {
        (Some(text), _) => text,
        (None, Value::String(s)) => s.clone(),
        (None, other) => other.to_string(),
    };
    truncate(&text.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn truncate(text: &str) -> String {
    match text.char_indices().nth(SUMMARY_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}
