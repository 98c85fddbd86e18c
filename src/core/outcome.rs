//! How a wait ended: the vocabulary every face shares (exit codes, JSON, MCP results).
//!
//! | outcome | exit | meaning |
//! |---|---|---|
//! | `stop` | 0 | the turn ended normally and its answer is readable |
//! | `rejected` | 121 | the answer failed its guardrails (`--accept`, `--schema`) on every attempt |
//! | `provider-error` | 122 | the provider failed the turn (`api-error`, `usage-limit`, `interrupted`) |
//! | `idle` | 123 | nothing moved for `--idle-timeout` |
//! | `timeout` | 124 | `--timeout` reached |
//! | `dead` | 125 | the worker process ended |
//! | `input` | 126 | the worker waits for a person (`permission`, `question`, `sign-in`, `trust`) |

use super::guard::CheckKind;
use serde::{Deserialize, Serialize};

/// The kind of end a wait reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OutcomeKind {
    Stop,
    Rejected,
    ProviderError,
    Idle,
    Timeout,
    Dead,
    Input,
    /// A limit of the worker's budget was reached during the turn, which was interrupted.
    Budget,
}

impl OutcomeKind {
    /// The exit status the CLI reports for this outcome.
    pub fn exit_code(self) -> u8 {
        match self {
            OutcomeKind::Stop => 0,
            OutcomeKind::Rejected => 121,
            OutcomeKind::ProviderError => 122,
            OutcomeKind::Idle => 123,
            OutcomeKind::Timeout => 124,
            OutcomeKind::Dead => 125,
            OutcomeKind::Input => 126,
            OutcomeKind::Budget => 120,
        }
    }

    /// The outcome's name as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Stop => "stop",
            OutcomeKind::Rejected => "rejected",
            OutcomeKind::ProviderError => "provider-error",
            OutcomeKind::Idle => "idle",
            OutcomeKind::Timeout => "timeout",
            OutcomeKind::Dead => "dead",
            OutcomeKind::Input => "input",
            OutcomeKind::Budget => "budget",
        }
    }
}

/// How a worker process ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ExitStatus {
    /// The exit code, when it exited by itself.
    #[serde(rename = "exitCode", skip_serializing_if = "Option::is_none", default)]
    pub exit_code: Option<i32>,
    /// The signal number, when a signal ended it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub signal: Option<i32>,
}

impl ExitStatus {
    /// What the process did, as the predicate of a sentence about it ("the worker …", "its
    /// CLI …"): `exited with status 3`, `was killed by signal 9`.
    pub fn describe(&self) -> String {
        match (self.exit_code, self.signal) {
            (_, Some(sig)) => format!("was killed by signal {sig}"),
            (Some(code), None) => format!("exited with status {code}"),
            (None, None) => "ended without a recorded status".to_string(),
        }
    }
}

/// The end of a wait, with what is known about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    pub outcome: OutcomeKind,
    /// A finer reason: `api-error`, `permission`, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A human-readable line.
    pub message: String,
    /// The event-log position just past the event that decided the outcome; pass it to the
    /// next `wait --since` to wait for something newer.
    pub position: usize,
    /// How the process ended (`dead` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitStatus>,
    /// The pending tool (`input`/`permission` only), as the hook reported it.
    #[serde(rename = "pendingTool", skip_serializing_if = "Option::is_none")]
    pub pending_tool: Option<serde_json::Value>,
    /// The pending approval's id (`input` only): what `approve`/`deny --expect` take.
    #[serde(
        rename = "approvalId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub approval_id: Option<String>,
    /// When the provider says to try again (`provider-error`/`usage-limit`), as it wrote it.
    #[serde(rename = "retryAt", skip_serializing_if = "Option::is_none")]
    pub retry_at: Option<String>,
    /// The last screen, as evidence (`dead`, `timeout`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
    /// How many answers the guardrails looked at (guarded waits only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// The accepted answer as clean JSON (`--schema` only).
    #[serde(rename = "structuredOutput", skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
    /// The last guardrail check that ran: what it said (`rejected` carries the rejection).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckReport>,
}

/// One guardrail check of one answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    /// Which check: `schema` or `accept`.
    pub check: CheckKind,
    /// The answer passed.
    pub accepted: bool,
    /// The `--accept` command's exit code (absent when a signal ended it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The command's output (stdout then stderr), or the schema problems one per line.
    pub output: String,
}

impl Outcome {
    /// The outcome's kind, and its reason in parentheses when it has one: `input (dialog)`.
    pub fn headline(&self) -> String {
        match &self.reason {
            Some(reason) => format!("{} ({reason})", self.outcome.as_str()),
            None => self.outcome.as_str().to_string(),
        }
    }

    /// A bare outcome with a message.
    pub fn new(outcome: OutcomeKind, message: impl Into<String>, position: usize) -> Self {
        Outcome {
            outcome,
            reason: None,
            message: message.into(),
            position,
            exit: None,
            pending_tool: None,
            approval_id: None,
            retry_at: None,
            screen: None,
            attempts: None,
            structured_output: None,
            check: None,
        }
    }

    /// Adds a reason.
    pub fn with_reason(mut self, reason: &str) -> Self {
        self.reason = Some(reason.to_string());
        self
    }
}

/// The retry time in a usage-limit message: "… or try again at 8:57 PM." → `8:57 PM`.
pub fn retry_time(message: &str) -> Option<String> {
    let at = message.rfind("try again at ")? + "try again at ".len();
    let time = message[at..].trim().trim_end_matches('.').trim();
    (!time.is_empty()).then(|| time.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headline_names_the_reason_when_there_is_one() {
        let plain = Outcome::new(OutcomeKind::Timeout, "late", 3);
        assert_eq!(plain.headline(), "timeout");
        assert_eq!(plain.with_reason("file").headline(), "timeout (file)");
        let input = Outcome::new(OutcomeKind::Input, "asks", 0).with_reason("dialog");
        assert_eq!(input.headline(), "input (dialog)");
    }

    #[test]
    fn exit_codes_follow_the_documented_table() {
        let table = [
            (OutcomeKind::Stop, 0, "stop"),
            (OutcomeKind::Rejected, 121, "rejected"),
            (OutcomeKind::ProviderError, 122, "provider-error"),
            (OutcomeKind::Idle, 123, "idle"),
            (OutcomeKind::Timeout, 124, "timeout"),
            (OutcomeKind::Dead, 125, "dead"),
            (OutcomeKind::Input, 126, "input"),
        ];
        for (kind, code, name) in table {
            assert_eq!(kind.exit_code(), code);
            assert_eq!(kind.as_str(), name);
            assert_eq!(serde_json::to_value(kind).unwrap(), name);
        }
    }

    #[test]
    fn the_retry_time_comes_from_the_usage_limit_message() {
        let codex = "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 8:57 PM.";
        assert_eq!(retry_time(codex).as_deref(), Some("8:57 PM"));
        assert_eq!(retry_time("API Error: 400"), None);
    }

    #[test]
    fn exit_status_reads_the_launch_wrapper_record() {
        let s: ExitStatus = serde_json::from_str(r#"{"exitCode":3}"#).unwrap();
        assert_eq!(s.describe(), "exited with status 3");
        let s: ExitStatus = serde_json::from_str(r#"{"signal":9}"#).unwrap();
        assert_eq!(s.describe(), "was killed by signal 9");
    }
}
