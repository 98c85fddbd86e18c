//! A print-mode turn as every provider's JSON shape reads it ([`PrintTurn`]), what a shape needs
//! from outside it ([`Stamps`]: fresh ids and the time — core reads no clock), and the
//! [`PrintShapes`] each provider implements in `core/providers/<name>/print.rs`: its
//! `--output-format json` documents, its failure object, and the first and last events of its
//! `stream-json`. Fields umbel cannot know are present and `null` (docs/print-mode.md).

use super::stats::TurnStats;
use super::stream::RecordEvents;
use crate::core::outcome::{Outcome, OutcomeKind};
use serde_json::{Value, json};
use std::path::Path;

/// One finished (or failed) print-mode turn.
#[derive(Debug, Clone)]
pub struct PrintTurn {
    pub outcome: Outcome,
    /// The answer's text ("" without one).
    pub text: String,
    /// The provider failed the turn; `text` is its error message.
    pub is_error: bool,
    pub session_id: String,
    /// Tokens, models and tools of the turn, from its transcript.
    pub stats: TurnStats,
}

impl PrintTurn {
    /// What stdout gets: the accepted value as clean JSON under `--schema`, else the answer.
    pub fn printed(&self) -> String {
        match &self.outcome.structured_output {
            Some(value) => serde_json::to_string_pretty(value).unwrap_or_default(),
            None => self.text.clone(),
        }
    }

    /// The turn ended and its answer is not a provider error.
    pub fn ok(&self) -> bool {
        self.outcome.outcome == OutcomeKind::Stop && !self.is_error
    }

    /// What went wrong, in one line: the provider's error text, else the outcome.
    pub fn error_message(&self) -> String {
        match (self.text.as_str(), &self.outcome.reason) {
            (text, _) if !text.is_empty() => text.to_string(),
            (_, Some(reason)) => format!(
                "{} ({reason}): {}",
                self.outcome.outcome.as_str(),
                self.outcome.message
            ),
            (_, None) => format!(
                "{}: {}{}",
                self.outcome.outcome.as_str(),
                self.outcome.message,
                self.outcome
                    .check
                    .as_ref()
                    .map(|c| format!("; the check said: {}", c.output.trim_end()))
                    .unwrap_or_default()
            ),
        }
    }
}

/// What a shape takes from the world: a fresh id (a v4 UUID) and the time.
pub trait Stamps {
    fn id(&self) -> String;
    /// Milliseconds since the epoch.
    fn now_ms(&self) -> u64;
    /// The time as RFC 3339 with milliseconds.
    fn rfc3339(&self) -> String;
}

/// The worker a stream starts on, for the stream's first event.
pub struct StreamStart<'a> {
    pub session_id: &'a str,
    pub model: Option<&'a str>,
    pub cwd: &'a Path,
}

/// What the stream already printed from the transcript while the turn ran (the face's mapper).
pub struct Streamed {
    /// Nothing came from the transcript (its path was not known).
    pub nothing: bool,
    /// The answer's message was among it.
    pub answered: bool,
    /// The id the next item takes (codex's `item_N`).
    pub next_item: String,
}

/// One CLI's print-mode output, in its own shape.
pub trait PrintShapes: Sync {
    /// `--output-format json`: the documents in order, each with whether it goes to stderr.
    fn json(&self, turn: &PrintTurn, duration_ms: u64, stamps: &dyn Stamps) -> Vec<(Value, bool)>;

    /// The documents of a failure before any turn ran (bad input, a failed spawn), with
    /// umbel's own `{code, message}` added; the bool: to stderr.
    fn json_failure(&self, code: &str, message: &str, stamps: &dyn Stamps) -> Vec<(Value, bool)>;

    /// The one prompt its print mode makes of a prompt argument and piped stdin (both given).
    fn join_stdin(&self, prompt: &str, stdin: &str) -> String;

    /// Whether its print mode reads piped stdin to the end even with a prompt argument (codex
    /// does; the others take what is there at once).
    fn reads_all_stdin(&self) -> bool {
        false
    }

    /// Whether `--output-format json` is itself a stream of events (`codex exec --json`).
    fn json_streams(&self) -> bool {
        false
    }

    /// How its `stream-json` makes events of a transcript record while the turn runs (none:
    /// printed whole at the turn's end, as opencode's).
    fn stream_records(&self) -> RecordEvents {
        |_, _| Vec::new()
    }

    /// `stream-json`'s first events.
    fn stream_init(&self, start: &StreamStart<'_>, stamps: &dyn Stamps) -> Vec<Value>;

    /// `stream-json`'s last events, after what the transcript gave while the turn ran
    /// (`streamed`: `None` when nothing was tailed).
    fn stream_end(
        &self,
        turn: &PrintTurn,
        duration_ms: u64,
        streamed: Option<&Streamed>,
        stamps: &dyn Stamps,
    ) -> Vec<Value>;
}

/// umbel's own fields, when they apply: the accepted value, the attempts, the reason.
pub fn add_outcome_fields(result: &mut Value, turn: &PrintTurn) {
    if let Some(value) = &turn.outcome.structured_output {
        result["structured_output"] = value.clone();
    }
    if let Some(attempts) = turn.outcome.attempts {
        result["attempts"] = json!(attempts);
    }
    if let Some(reason) = &turn.outcome.reason {
        result["reason"] = json!(reason);
    }
}

/// The tool calls a person (or a rule) denied, as claude and qwen list them.
pub fn denials(stats: &TurnStats) -> Vec<Value> {
    stats
        .tools
        .iter()
        .filter(|t| t.denied)
        .map(|t| json!({ "tool_name": t.name, "tool_use_id": t.id, "tool_input": t.input }))
        .collect()
}

/// Adds one to the count at `pointer`.
pub fn bump(value: &mut Value, pointer: &str) {
    if let Some(n) = value.pointer_mut(pointer) {
        *n = json!(n.as_u64().unwrap_or(0) + 1);
    }
}

/// What the shapes' tests stamp with: ids and times that do not change.
#[cfg(test)]
pub mod test_stamps {
    use serde_json::Value;

    /// Stamps that are always the same.
    pub struct Fixed;

    impl super::Stamps for Fixed {
        fn id(&self) -> String {
            "00000000-0000-4000-8000-000000000000".into()
        }
        fn now_ms(&self) -> u64 {
            1_700_000_000_000
        }
        fn rfc3339(&self) -> String {
            "2023-11-14T22:13:20.000Z".into()
        }
    }

    /// The sorted keys of an object.
    pub fn keys(value: &Value) -> Vec<String> {
        let mut keys: Vec<String> = value
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    }
}
