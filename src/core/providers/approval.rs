//! How each CLI asks for a tool's approval on its screen and which of its own keys answer it
//! (`umbel approve`, `umbel deny`, and the rules that answer by themselves). Data per provider:
//! the lines that prove the dialog is up (keys are pressed only on a screen that shows them,
//! never blind) and the keys for each answer.

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
    /// Refuse the tool.
    Deny,
}

impl Answer {
    /// The answer as `events` and `--json` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Approve => "approve",
            Answer::ApproveAlways => "approve-always",
            Answer::Deny => "deny",
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
}

impl ApprovalKeys {
    /// Whether `screen` shows the dialog.
    pub fn shown_on(&self, screen: &str) -> bool {
        self.shown.iter().all(|text| screen.contains(text))
    }

    /// The keys for `answer`.
    pub fn keys(&self, answer: Answer) -> &'static [&'static str] {
        match answer {
            Answer::Approve => self.once,
            Answer::ApproveAlways => self.always,
            Answer::Deny => self.deny,
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
};

/// codex 0.171.0: "Would you like to run the following command? › 1. Yes, proceed (y) / 2. Yes,
/// and don't ask again … (p) / 3. No, and tell Codex what to do differently (esc)". Esc ends the
/// turn as interrupted.
pub const CODEX: ApprovalKeys = ApprovalKeys {
    shown: &["Press enter to confirm or esc to cancel"],
    once: &["y"],
    always: &["p"],
    deny: &["Escape"],
};

/// gemini 0.61.0: "Allow execution of [Shell]? ● 1. Allow once / 2. Allow for this session /
/// 3. No, suggest changes (esc)". Esc cancels the request.
pub const GEMINI: ApprovalKeys = ApprovalKeys {
    shown: &["1. Allow once"],
    once: &["1"],
    always: &["2"],
    deny: &["Escape"],
};

/// qwen 0.24.4: "Allow execution of: 'touch'? › 1. Yes, allow once / 2. Always allow … in this
/// project / 3. … for this user / 4. No, suggest changes (esc)".
pub const QWEN: ApprovalKeys = ApprovalKeys {
    shown: &["1. Yes, allow once"],
    once: &["1"],
    always: &["2"],
    deny: &["Escape"],
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
}
