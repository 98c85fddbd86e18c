//! Dialogs and tool boxes against the 0.61.0 captures (120 columns).

use super::*;
use crate::gemini::screens::tests::fixture;
use serde_json::json;

fn tail(f: &[String], n: usize) -> &[String] {
    &f[f.len() - n..]
}

#[test]
fn the_trust_dialog_matches_the_capture() {
    let lines = trust_dialog(120, std::path::Path::new("/tmp/probework/proj"), 0);
    assert_eq!(lines, tail(&fixture("startup-trust-dialog"), lines.len()));
    let moved = trust_dialog(120, std::path::Path::new("/tmp/probework/proj"), 2);
    assert!(moved.iter().any(|l| l.contains("│ ● 3. Don't trust")));
}

#[test]
fn the_auth_dialog_matches_the_capture() {
    let lines = auth_dialog(120, 0, NO_AUTH);
    assert_eq!(lines, tail(&fixture("auth-dialog"), lines.len()));
}

#[test]
fn the_shell_confirmation_matches_the_capture() {
    let cmd = "env | grep -E '^(CLAUDE|AI_AGENT|CODEX|GEMINI)' | sort > /tmp/hooklogs/tool-env-gemini.txt; echo hello-from-tool";
    let lines = confirm(
        120,
        "Shell",
        &json!({"command": cmd, "description": "Print a greeting"}),
        0,
    );
    assert_eq!(
        lines,
        tail(&fixture("permission-prompt-shell"), lines.len())
    );
}

#[test]
fn the_finished_tool_box_matches_the_capture() {
    let f = fixture("turn-complete-after-tool");
    let cmd = "env | grep -E '^(CLAUDE|AI_AGENT|CODEX|GEMINI)' | sort > /tmp/hooklogs/tool-env-gemini.txt; echo hello-from-tool";
    let lines = tool_done(
        120,
        "Shell",
        &json!({"command": cmd}),
        Some("hello-from-tool"),
    );
    let start = f.iter().position(|l| l.starts_with('╭')).unwrap();
    assert_eq!(lines[2..], f[start..start + lines.len() - 2]);
    assert_eq!(f[start - 2..start], ["", ""]);
}

#[test]
fn a_refused_tool_box_and_the_cancel_line_match_the_capture() {
    let input = json!({"command": "echo hi > umbel-tool.txt", "description": "Write hi"});
    for after in ["approval-after-esc", "approval-after-3"] {
        let f = fixture(after);
        let mut lines = tool_done(120, "Shell", &input, None);
        lines.extend(crate::gemini::screens::info(120, "Request cancelled."));
        let start = f.iter().position(|l| l.starts_with('╭')).unwrap();
        assert_eq!(lines[2..], f[start..start + lines.len() - 2], "{after}");
    }
}

#[test]
fn the_shell_confirmation_of_the_approval_recordings_matches() {
    let input = json!({"command": "echo hi > umbel-tool.txt", "description": "Write hi"});
    let lines = confirm(120, "Shell", &input, 0);
    assert_eq!(lines, tail(&fixture("approval-dialog"), lines.len()));
}

#[test]
fn the_quit_summary_has_the_session_and_resume_lines() {
    let id = "ad4e62a5-114c-4e13-a125-f47c5ca0904d";
    let f = fixture("after-quit");
    let lines = quit_summary(
        120,
        &Summary {
            session_id: id,
            tools: (1, 1),
            wall_ms: 201_000,
            active_ms: 10_500,
            model: ("gemini-fake", 7, 3192, 63),
        },
    );
    for want in [
        "Agent powering down. Goodbye!",
        "Session ID:",
        "Tool Calls:",
        "Success Rate:",
        "To resume this session:",
    ] {
        let ours = lines.iter().find(|l| l.contains(want)).unwrap();
        let theirs = f.iter().find(|l| l.contains(want)).unwrap();
        assert_eq!(ours, theirs, "{want}");
    }
    assert!(
        lines
            .iter()
            .all(|l| l.is_empty() || crate::screen::width_of(l) == 120)
    );
}
