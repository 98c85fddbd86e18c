//! Every turn of a transcript, in order: its number, prompt, answer, how it ended and the tools
//! it ran. Built on each provider's [`ProviderModule::last_turn`] (which stops right after a
//! turn's opening prompt): calling it again on the same newest-first lines yields the turn
//! before, so the providers need no second notion of where a turn starts. The lines each call
//! consumed are that turn's records, from which [`ProviderModule::turn_actions`] reads its tools.

use super::providers::ProviderModule;
use serde::Serialize;
use serde_json::Value;

/// One turn of a worker's conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// 1-based, oldest first.
    pub turn: usize,
    /// The prompt that opened the turn, when the transcript has it.
    pub prompt: Option<String>,
    /// The final answer (or the provider's error message), when written yet.
    pub answer: Option<String>,
    /// Whether the transcript marks the turn as finished.
    pub ended: bool,
    /// The provider failed the turn (API error, usage limit, interrupted).
    pub is_error: bool,
    /// The tools the worker ran in this turn, in order.
    pub actions: Vec<ToolAction>,
}

/// One tool call of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolAction {
    /// The tool's name as the provider calls it (`Bash`, `exec_command`, `run_shell_command`).
    pub tool: String,
    /// A short summary of its input: the command of a shell tool, the path of a file tool,
    /// else compact JSON, cut at [`SUMMARY_CHARS`] characters.
    pub input: String,
    /// Whether it ran fine, failed (or was refused), or has no result yet.
    pub status: ActionStatus,
}

/// The result of a tool call.
/// Ordered by severity (`max` keeps the worse of two reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
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

/// Every turn of a transcript given oldest line first. Records before the first prompt (session
/// metadata) make no turn.
pub fn all_turns(provider: &dyn ProviderModule, lines_oldest_first: &[String]) -> Vec<Turn> {
    let mut lines = lines_oldest_first.iter().rev();
    let mut newest_first = Vec::new();
    loop {
        let mut consumed: Vec<&String> = Vec::new();
        let parsed = {
            let mut feed = lines.by_ref().inspect(|l| consumed.push(l)).cloned();
            provider.last_turn(&mut feed)
        };
        if consumed.is_empty() {
            break;
        }
        if parsed.prompt.is_none() && parsed.answer.is_none() {
            continue; // the preamble before the first prompt
        }
        let records: Vec<Value> = consumed
            .iter()
            .rev()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        newest_first.push(Turn {
            turn: 0,
            prompt: parsed.prompt,
            answer: parsed.answer,
            ended: parsed.ended,
            is_error: parsed.is_error,
            actions: provider.turn_actions(&records),
        });
    }
    newest_first.reverse();
    for (index, turn) in newest_first.iter_mut().enumerate() {
        turn.turn = index + 1;
    }
    newest_first
}

#[cfg(test)]
#[path = "turns_tests.rs"]
mod tests;
