//! What a `send` proves: the verdict of a delivered prompt (which record confirmed the submit,
//! how many Enters, how long it queued), and for a failed one, what it left in the CLI's
//! composer. One struct for `send --json`, MCP `umbel_send` and a remote host's reply.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `send`: a prompt the CLI confirmed it submitted, and the event-log position to wait from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    /// The position just before the prompt's turn; `wait --since` it.
    pub position: usize,
    /// Always `true`: a prompt the CLI did not confirm is an error, never a `Sent`.
    #[serde(default = "yes")]
    pub submitted: bool,
    /// The CLI's own record that proved the submit: its hook event (`UserPromptSubmit` for
    /// claude and codex, `BeforeAgent` for gemini).
    #[serde(default)]
    pub confirmed_by: String,
    /// The Enters pressed until the CLI confirmed the prompt (1 unless the CLI took one as
    /// something else; at most 4).
    #[serde(default)]
    pub enters: u32,
    /// How long the prompt waited for a running turn to end before it was typed (`send
    /// --queue`; 0 for a plain send).
    #[serde(default)]
    pub queued_ms: u64,
    /// `true` when the worker was parked and its CLI was started again first (`umbel park`);
    /// absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed: Option<bool>,
    /// How long that resume took, in milliseconds; absent unless `resumed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_ms: Option<u64>,
}

impl Sent {
    /// This verdict for a worker whose parked CLI was started again first, taking `resume_ms`.
    pub fn after_resume(self, resume_ms: Option<u64>) -> Sent {
        Sent {
            resumed: resume_ms.map(|_| true),
            resume_ms,
            ..self
        }
    }
}

fn yes() -> bool {
    true
}

/// What a failed `send` left in the CLI's composer (its input line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Composer {
    /// Nothing was typed: the send failed before its paste.
    Untouched,
    /// The prompt reached the composer and umbel emptied it again.
    Cleared,
    /// The prompt reached the composer and the CLI took it off the input line, but its submit
    /// hook never came: the composer is empty, the CLI may be running it as a turn.
    TakenByCli,
    /// The prompt reached the composer, then the CLI ended: nothing is left.
    Gone,
    /// The prompt reached the composer and a dialog opened over it: umbel presses nothing into
    /// a dialog, so the text waits under it; the next `send` empties the composer first.
    UnderDialog,
    /// The prompt reached the composer and umbel could not empty it (tmux failed); the next
    /// `send` empties it first.
    Stuck,
}

impl Composer {
    /// Whether the prompt's text reached the composer.
    pub fn text_reached(self) -> bool {
        self != Composer::Untouched
    }

    /// For a prompt that reached the composer: whether the composer holds none of it now.
    pub fn cleared(self) -> Option<bool> {
        match self {
            Composer::Untouched => None,
            Composer::UnderDialog | Composer::Stuck => Some(false),
            Composer::Cleared | Composer::TakenByCli | Composer::Gone => Some(true),
        }
    }

    /// The sentence a send error ends with.
    pub fn sentence(self) -> &'static str {
        match self {
            Composer::Untouched => "nothing was typed",
            Composer::Cleared => "the prompt reached the composer and umbel cleared it",
            Composer::TakenByCli => {
                "the prompt reached the composer and the CLI took it off the input line (it may be running it)"
            }
            Composer::Gone => "the prompt reached the composer; the CLI ended, nothing is left",
            Composer::UnderDialog => {
                "the prompt reached the composer and waits under the dialog (umbel presses nothing into a dialog); the next `send` clears it first"
            }
            Composer::Stuck => {
                "the prompt reached the composer and umbel could not clear it; the next `send` clears it first"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_reads_back_from_an_older_host_with_defaults() {
        let sent: Sent = serde_json::from_str(r#"{"position":7,"enters":1}"#).unwrap();
        assert_eq!(sent.position, 7);
        assert!(sent.submitted);
        assert_eq!(sent.queued_ms, 0);
        let json = serde_json::to_value(Sent {
            position: 3,
            submitted: true,
            confirmed_by: "BeforeAgent".into(),
            enters: 2,
            queued_ms: 10,
            resumed: None,
            resume_ms: None,
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"position":3,"submitted":true,"confirmedBy":"BeforeAgent","enters":2,"queuedMs":10})
        );
    }

    #[test]
    fn a_resumed_send_says_so_and_how_long_the_resume_took() {
        let sent = Sent {
            position: 1,
            submitted: true,
            confirmed_by: "UserPromptSubmit".into(),
            enters: 1,
            queued_ms: 0,
            resumed: None,
            resume_ms: None,
        };
        assert_eq!(sent.clone().after_resume(None), sent);
        let json = serde_json::to_value(sent.after_resume(Some(840))).unwrap();
        assert_eq!(json["resumed"], true);
        assert_eq!(json["resumeMs"], 840);
    }

    #[test]
    fn only_a_prompt_left_under_a_dialog_counts_as_not_cleared() {
        assert_eq!(Composer::Untouched.cleared(), None);
        assert!(!Composer::Untouched.text_reached());
        assert_eq!(Composer::Cleared.cleared(), Some(true));
        assert_eq!(Composer::UnderDialog.cleared(), Some(false));
    }
}
