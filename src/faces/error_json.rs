//! The one shape of a failure, as `--json` prints it on stdout and as an MCP error result's
//! structured content: `{"error": {code, message, exitCode, hint, …}}`, plus the one-line text
//! an MCP host shows its model (kind, exit code, reason, the dialog it waits on, the hint, and
//! the JSON itself).

use crate::core::errors::Error;
use crate::core::workflow::Problem;
use schemars::JsonSchema;
use serde::Serialize;
use std::path::PathBuf;

/// `{"error": …}`: what every verb prints (or returns) when it fails.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ErrorReply {
    /// What failed.
    pub error: ErrorBody,
}

/// One failure.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// The kind, a stable snake_case code (`not_found`, `usage`, …; docs/mcp.md lists them).
    pub code: String,
    /// What went wrong, naming the thing that failed.
    pub message: String,
    /// The exit status the command line ends with for this error.
    pub exit_code: u8,
    /// What to do next.
    pub hint: String,
    /// The dialog the worker waits on (`dialog` errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialog: Option<String>,
    /// The last screen, as evidence (`startup_failed`, `not_submitted`, `dialog`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
    /// The workflow file (`invalid_workflow`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// Every problem found in the workflow file (`invalid_workflow`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problems: Option<Vec<Problem>>,
    /// A failed `send`: whether the prompt's text reached the CLI's composer (false: nothing
    /// was typed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_reached_composer: Option<bool>,
    /// A failed `send` whose text reached the composer: whether the composer holds none of it
    /// now (umbel cleared it, or the CLI took it or ended); `false` only for a prompt left
    /// under a dialog that opened mid-send.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub composer_cleared: Option<bool>,
}

impl ErrorReply {
    /// The reply for a failed verb.
    pub fn of(err: &Error) -> Self {
        let mut body = ErrorBody {
            code: err.code().to_string(),
            message: err.to_string(),
            exit_code: err.exit_code(),
            hint: err.hint().to_string(),
            dialog: None,
            screen: err.screen().map(str::to_string),
            file: None,
            problems: None,
            text_reached_composer: None,
            composer_cleared: None,
        };
        if let Error::SendFailed { composer, .. } = err {
            body.text_reached_composer = Some(composer.text_reached());
            body.composer_cleared = composer.cleared();
        }
        match err.unsent() {
            Error::InvalidWorkflow { file, problems } => {
                body.file = Some(file.clone());
                body.problems = Some(problems.clone());
            }
            Error::DialogOpen { what, .. } => body.dialog = Some(what.clone()),
            _ => {}
        }
        ErrorReply { error: body }
    }

    /// A failure inside umbel itself (a bug), not caused by the caller.
    pub fn internal(message: String) -> Self {
        ErrorReply {
            error: ErrorBody {
                code: "internal".to_string(),
                message,
                exit_code: 1,
                hint: "this is a bug in umbel: please report it with the message".to_string(),
                dialog: None,
                screen: None,
                file: None,
                problems: None,
                text_reached_composer: None,
                composer_cleared: None,
            },
        }
    }

    /// As JSON (an encoding failure cannot happen for these plain fields; `Null` if it did).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// One line for hosts that show the model only text: `error <code> (exit N): <message>.
    /// Dialog: … Hint: … JSON: {…}`.
    pub fn text(&self) -> String {
        let e = &self.error;
        let message = e.message.lines().collect::<Vec<_>>().join("; ");
        let message = message.trim_end_matches('.');
        let dialog = e
            .dialog
            .as_deref()
            .map(|d| format!(" Dialog: \"{d}\"."))
            .unwrap_or_default();
        let json = serde_json::to_string(self).unwrap_or_default();
        format!(
            "error {} (exit {}): {message}{dialog} Hint: {}. JSON: {json}",
            e.code, e.exit_code, e.hint
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_holds_kind_exit_code_hint_and_json_on_one_line() {
        let reply = ErrorReply::of(&Error::NotFound { name: "w".into() });
        let text = reply.text();
        assert!(!text.contains('\n'), "{text}");
        assert!(
            text.starts_with("error not_found (exit 1): no worker named `w`"),
            "{text}"
        );
        assert!(
            text.contains("Hint: list the workers with `umbel ls`"),
            "{text}"
        );
        let json = text.split_once("JSON: ").map(|(_, j)| j).unwrap_or("");
        let value: serde_json::Value = serde_json::from_str(json).expect("JSON at the end");
        assert_eq!(value["error"]["exitCode"], 1);
    }

    #[test]
    fn a_dialog_error_names_the_dialog() {
        let err = Error::DialogOpen {
            name: "w".into(),
            provider: "claude",
            what: "Do you trust the files in this folder?".into(),
            hint: "h".into(),
            screen: None,
        };
        let reply = ErrorReply::of(&err);
        assert_eq!(reply.error.exit_code, 126);
        assert!(
            reply.text().contains("Dialog: \"Do you trust"),
            "{}",
            reply.text()
        );
    }
}
