//! How each CLI asks for a tool's approval on its screen and which of its own keys answer it
//! (`umbel approve`, `umbel deny`, and the rules that answer by themselves). Data per provider:
//! the lines that prove the dialog is up (keys are pressed only on a screen that shows them,
//! never blind) and the keys for each answer.

use crate::core::rules::ToolNames;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An answer to a pending approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    /// Run the tool this once.
    Approve,
    /// Run the tool, and let the CLI stop asking for it for the rest of its session.
    ApproveAlways,
    /// Refuse the tool (or decline the question).
    Deny,
    /// Pick a choice of the model's question (`umbel answer`).
    Choose,
}

impl Answer {
    /// The answer as `events` and `--json` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Approve => "approve",
            Answer::ApproveAlways => "approve-always",
            Answer::Deny => "deny",
            Answer::Choose => "choose",
        }
    }

    /// Whether the tool runs.
    pub fn allows(self) -> bool {
        !matches!(self, Answer::Deny)
    }
}

/// A CLI's approval dialog, as data.
#[derive(Debug)]
pub struct ApprovalKeys {
    /// Texts that all appear on a screen showing the dialog (each on some line).
    pub shown: &'static [&'static str],
    /// Keys that run the tool once, pressed one at a time.
    pub once: &'static [&'static str],
    /// Keys that run it and stop the CLI asking again this session.
    pub always: &'static [&'static str],
    /// Keys that refuse it.
    pub deny: &'static [&'static str],
    /// How the CLI shows that a refusal ended the turn.
    pub refusal: Refusal,
    /// The hook event that names the tool asking (where a rule is checked).
    pub ask_event: &'static str,
    /// Its names for claude's tools, for the rules (`spawn --allowed-tools`).
    pub tools: ToolNames,
}

/// What a CLI leaves behind when a refusal ends its turn: its evidence that the answer took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// An end hook of its own (codex's `Interrupt`; opencode's `PermissionReplied`, then
    /// `SessionIdle`).
    Hook,
    /// No hook: its transcript's last turn ends interrupted (claude's interrupted record,
    /// gemini's `Request cancelled.`).
    Transcript,
    /// No end hook: a notice hook that it is idle at its prompt (qwen's `Notification` with
    /// `notification_type: idle_prompt`), `field` of the payload holding `value`.
    Notice {
        event: &'static str,
        field: &'static str,
        value: &'static str,
    },
}

impl Refusal {
    /// Whether the hook line `event` with `payload` is this CLI's notice that it is idle.
    pub fn is_notice(&self, event: &str, payload: Option<&serde_json::Value>) -> bool {
        match self {
            Refusal::Notice {
                event: kind,
                field,
                value,
            } => {
                event == *kind
                    && payload
                        .and_then(|p| p.get(*field))
                        .and_then(serde_json::Value::as_str)
                        == Some(*value)
            }
            Refusal::Hook | Refusal::Transcript => false,
        }
    }
}

impl ApprovalKeys {
    /// Whether `screen` shows the dialog.
    pub fn shown_on(&self, screen: &str) -> bool {
        self.shown.iter().all(|text| screen.contains(text))
    }

    /// The keys for `answer` (none for a choice: an approval has no choices).
    pub fn keys(&self, answer: Answer) -> &'static [&'static str] {
        match answer {
            Answer::Approve => self.once,
            Answer::ApproveAlways => self.always,
            Answer::Deny => self.deny,
            Answer::Choose => &[],
        }
    }
}

/// claude 2.1.332: "Do you want to proceed? ❯ 1. Yes / 2. Yes, and don't ask again … / 3. …
/// / 4. No · Esc to cancel · Tab to amend". A number picks at once; Esc refuses and ends the
/// turn ("Interrupted · What should Claude do instead?").
pub const CLAUDE: ApprovalKeys = ApprovalKeys {
    shown: &["1. Yes", "Esc to cancel"],
    once: &["1"],
    always: &["2"],
    deny: &["Escape"],
    refusal: Refusal::Transcript,
    ask_event: "PermissionRequest",
    tools: &[("Edit", &["MultiEdit", "Write", "NotebookEdit"])],
};

/// codex 0.171.0: "Would you like to run the following command? › 1. Yes, proceed (y) / 2. Yes,
/// and don't ask again … (p) / 3. No, and tell Codex what to do differently (esc)". Esc ends the
/// turn as interrupted.
pub const CODEX: ApprovalKeys = ApprovalKeys {
    shown: &["Press enter to confirm or esc to cancel"],
    once: &["y"],
    always: &["p"],
    deny: &["Escape"],
    refusal: Refusal::Hook,
    ask_event: "PermissionRequest",
    tools: &[("Edit", &["apply_patch"])],
};

/// gemini 0.61.0: "Allow execution of [Shell]? ● 1. Allow once / 2. Allow for this session /
/// 3. No, suggest changes (esc)". Esc cancels the request and fires no hook: the chat records
/// `Request cancelled.` and the CLI is back at its prompt.
pub const GEMINI: ApprovalKeys = ApprovalKeys {
    shown: &["1. Allow once"],
    once: &["1"],
    always: &["2"],
    deny: &["Escape"],
    refusal: Refusal::Transcript,
    ask_event: "Notification",
    tools: &[
        ("Bash", &["run_shell_command"]),
        ("Edit", &["replace", "write_file", "edit"]),
        ("Write", &["write_file"]),
        ("Read", &["read_file", "read_many_files"]),
        ("WebFetch", &["web_fetch"]),
    ],
};

/// qwen 0.24.4: "Allow execution of: 'touch'? › 1. Yes, allow once / 2. Always allow … in this
/// project / 3. … for this user / 4. No, suggest changes (esc)". Esc fires no `Stop`: only
/// the `idle_prompt` notice, ~0.6 s later, with the CLI back at its prompt.
pub const QWEN: ApprovalKeys = ApprovalKeys {
    shown: &["1. Yes, allow once"],
    once: &["1"],
    always: &["2"],
    deny: &["Escape"],
    refusal: Refusal::Notice {
        event: "Notification",
        field: "notification_type",
        value: "idle_prompt",
    },
    ask_event: "PermissionRequest",
    tools: &[
        ("Bash", &["run_shell_command"]),
        ("Edit", &["edit", "replace", "write_file"]),
        ("Write", &["write_file"]),
        ("Read", &["read_file", "read_many_files"]),
        ("WebFetch", &["web_fetch"]),
    ],
};

/// opencode 1.18.33: "Permission required … Allow once   Allow always   Reject … ⇆ select  enter
/// confirm", drawn with "Allow once" selected (told by colour alone; Left wraps round to
/// Reject). Enter on the fresh dialog allows once; Right, Enter opens "Always allow … Confirm
/// Cancel" with Confirm selected; one Esc rejects and ends the turn (recorded on the real 1.18.33).
pub const OPENCODE: ApprovalKeys = ApprovalKeys {
    shown: &["Permission required", "Allow once", "Reject"],
    once: &["Enter"],
    always: &["Right", "Enter", "Enter"],
    deny: &["Escape"],
    refusal: Refusal::Hook,
    ask_event: "PermissionAsked",
    tools: &[
        ("Bash", &["bash"]),
        ("Edit", &["edit", "write", "patch"]),
        ("Write", &["write"]),
        ("Read", &["read"]),
        ("WebFetch", &["webfetch"]),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    use crate::core::test_data::fixture;

    #[test]
    fn each_recorded_dialog_is_recognised_and_an_idle_screen_is_not() {
        let recorded = [
            (
                &CLAUDE,
                fixture!("claude/claude-2.1.332-permission-prompt-bash.txt"),
            ),
            (
                &CODEX,
                fixture!("codex/codex-0.171.0-approval-prompt-escalate.txt"),
            ),
            (
                &GEMINI,
                fixture!("gemini/gemini-0.61.0-shell-confirm-default.txt"),
            ),
            (&QWEN, fixture!("qwen/qwen-0.24.4-permission.txt")),
        ];
        for (keys, screen) in recorded {
            assert!(keys.shown_on(screen), "{screen}");
        }
        let idle = [
            (
                &CLAUDE,
                fixture!("claude/claude-2.1.332-turn-complete-after-tool.txt"),
            ),
            (&CODEX, fixture!("codex/codex-0.171.0-after-approval.txt")),
            (
                &GEMINI,
                fixture!("gemini/gemini-0.61.0-after-esc-cancel.txt"),
            ),
        ];
        for (keys, screen) in idle {
            assert!(!keys.shown_on(screen), "{screen}");
        }
    }

    #[test]
    fn every_answer_has_keys_and_only_deny_refuses() {
        for keys in [&CLAUDE, &CODEX, &GEMINI, &QWEN, &OPENCODE] {
            for answer in [Answer::Approve, Answer::ApproveAlways, Answer::Deny] {
                assert!(!keys.keys(answer).is_empty(), "{answer:?}");
            }
        }
        assert!(Answer::Approve.allows() && !Answer::Deny.allows());
    }

    #[test]
    fn qwen_tells_its_idle_notice_from_its_permission_notice() {
        let idle = serde_json::json!({"notification_type": "idle_prompt", "message": "Qwen Code is waiting for your input"});
        let asking = serde_json::json!({"notification_type": "permission_prompt"});
        assert!(QWEN.refusal.is_notice("Notification", Some(&idle)));
        assert!(!QWEN.refusal.is_notice("Notification", Some(&asking)));
        assert!(!QWEN.refusal.is_notice("Stop", Some(&idle)));
        assert!(!QWEN.refusal.is_notice("Notification", None));
        assert!(!GEMINI.refusal.is_notice("Notification", Some(&idle)));
    }
}
