//! Qwen Code 0.24.4's approval modes in its TUI (recorded: `tests/data/qwen/qwen-0.24.4-mode-*.txt`):
//! Shift+Tab cycles default → auto-edit → auto → yolo → plan → default, the mode named on the
//! screen's last line (under the footer), and entering auto prints a notice into the history.

use crate::gemini::cli::ApprovalMode;

/// The notice entering auto mode leaves in the history (`●︎` is `●` and U+FE0E).
pub const AUTO_NOTICE: [&str; 3] = [
    "  ●\u{fe0e} Auto mode enabled.",
    "       An LLM classifier evaluates each tool call — safe actions auto-approve,",
    "       risky ones are blocked. Exit: Shift+Tab or /approval-mode default.",
];

/// The mode Shift+Tab moves to from `mode`.
pub fn next(mode: ApprovalMode) -> ApprovalMode {
    use ApprovalMode::*;
    match mode {
        Default => AutoEdit,
        AutoEdit => Auto,
        Auto => Yolo,
        Yolo => Plan,
        Plan => Default,
    }
}

/// The screen's last line while `mode` is on (and nothing else takes that line).
pub fn line(mode: ApprovalMode) -> &'static str {
    use ApprovalMode::*;
    match mode {
        Default => "  ⏸ Ask permissions (shift + tab to cycle)",
        AutoEdit => "  auto-accept edits (shift + tab to cycle)",
        Auto => "  Auto mode (shift + tab to cycle)",
        Yolo => "  YOLO mode (shift + tab to cycle)",
        Plan => "  plan mode (shift + tab to cycle)",
    }
}

/// `mode` as qwen spells it (`--approval-mode`, hooks' `permission_mode`).
pub fn name(mode: ApprovalMode) -> &'static str {
    use ApprovalMode::*;
    match mode {
        Default => "default",
        AutoEdit => "auto-edit",
        Auto => "auto",
        Yolo => "yolo",
        Plan => "plan",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(mode: &str) -> Vec<String> {
        crate::fixtures::repo_screen(&format!("qwen/qwen-0.24.4-mode-{mode}.txt"))
    }

    #[test]
    fn each_mode_names_itself_on_the_recorded_last_line() {
        let mut mode = ApprovalMode::Default;
        for _ in 0..5 {
            let screen = recorded(name(mode));
            assert_eq!(screen.last().map(String::as_str), Some(line(mode)));
            mode = next(mode);
        }
        assert_eq!(mode, ApprovalMode::Default, "five presses go round");
    }

    #[test]
    fn the_auto_notice_is_the_recorded_one() {
        let screen = recorded("auto");
        let at = screen
            .iter()
            .position(|l| l.as_str() == AUTO_NOTICE[0])
            .expect("the notice");
        assert_eq!(screen[at..at + 3], AUTO_NOTICE);
    }
}
