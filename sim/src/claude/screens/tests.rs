//! The screens against the recorded 2.1.332 captures (120 columns).

use super::*;
use crate::input::InputBuffer;
use serde_json::json;

fn fixture(name: &str) -> Vec<String> {
    crate::fixtures::screen(&format!("claude-2.1.332-{name}.txt"))
}

const CWD: &str = "/tmp/probework/proj";

fn opus() -> Model {
    super::super::session::resolve_model(None)
}

#[test]
fn the_idle_screen_matches_the_auto_mode_capture() {
    let f = fixture("idle-prompt-auto-mode");
    let mut lines = header(super::super::release::PINNED, &opus(), CWD);
    lines.extend(auto_notice());
    lines.push(String::new());
    lines.extend(input_box(120, "", footer(Mode::Auto, Footer::Idle)));
    assert_eq!(
        lines[..12],
        f[..12],
        "header, notice, rules and the `❯`+NBSP input line"
    );
    assert!(lines[12].starts_with("  ⏵⏵ auto mode on (shift+tab to cycle)"));
    assert!(lines[12].contains("? for shortcuts"));
}

#[test]
fn the_manual_mode_footer_matches_the_capture() {
    let f = fixture("turn-complete-after-tool");
    assert_eq!(footer(Mode::Default, Footer::Idle), f[f.len() - 1]);
    assert_eq!(
        input_box(120, "", footer(Mode::Default, Footer::Idle)),
        f[f.len() - 4..]
    );
}

#[test]
fn the_busy_footer_says_esc_to_interrupt() {
    let f = fixture("busy-streaming");
    assert_eq!(footer(Mode::Auto, Footer::Busy), f[f.len() - 1]);
    assert!(spinner(4).starts_with("✻ Vibing… (4s"));
    assert!(spinner(4).contains("esc to interrupt"));
}

#[test]
fn a_finished_turn_matches_the_capture() {
    let f = fixture("turn-complete");
    let mut lines = echo("Say hello");
    lines.extend(answer(
        "Hello from the fake Anthropic server. FINAL_ANSWER_TEXT",
    ));
    lines.extend(done_line("Churned", 0, "7:52 PM"));
    assert_eq!(lines, f[8..14]);
}

#[test]
fn the_trust_dialog_matches_the_capture_exactly() {
    assert_eq!(
        trust_dialog(
            super::super::release::at(super::super::release::PINNED),
            120,
            CWD,
            0
        ),
        fixture("trust-dialog")
    );
    let yes = trust_dialog(
        super::super::release::at(super::super::release::PINNED),
        120,
        CWD,
        1,
    );
    assert!(yes.contains(&" ❯ Yes, I trust this folder".to_string()));
    assert!(yes.contains(&"   No, exit".to_string()));
}

#[test]
fn the_onboarding_screen_matches_the_capture_exactly() {
    assert_eq!(onboarding(), fixture("onboarding-theme"));
    assert!(
        onboarding()
            .iter()
            .any(|l| l.contains("Choose the text style that looks best with your terminal"))
    );
}

#[test]
fn the_permission_dialog_matches_the_bash_capture() {
    let f = fixture("permission-prompt-bash");
    let cmd = "env | grep -E '^(CLAUDE|AI_AGENT|CODEX|GEMINI)' | sort > /tmp/hooklogs/tool-env-claude.txt; echo hello-from-tool";
    let input = json!({"command": cmd, "description": "Print a greeting"});
    let dialog = permission_dialog(120, "Bash", &input, 0, (Mode::Default, CWD));
    assert_eq!(dialog, f[19..]);
    let moved = permission_dialog(120, "Bash", &input, 3, (Mode::Default, CWD));
    assert!(moved.contains(&" ❯ 4. No".to_string()) && moved.contains(&"   1. Yes".to_string()));
}

#[test]
fn a_write_into_the_folder_offers_access_to_it_as_the_approval_capture_does() {
    // 2.1.332 asked for `echo hi > umbel-tool.txt` (rec-out claude-*.md): option 2 offers the
    // folder, the command shows unmarked, no "This command requires approval".
    let f = fixture("approval-dialog");
    let cwd = "/tmp/ujY8TLn/project";
    let input = json!({"command": "echo hi > umbel-tool.txt", "description": "Write hi"});
    let dialog = permission_dialog(120, "Bash", &input, 0, (Mode::Default, cwd));
    let trimmed = |rows: &[String]| -> Vec<String> {
        rows.iter().map(|r| r.trim_end().to_string()).collect()
    };
    assert_eq!(trimmed(&dialog), trimmed(&f[f.len() - dialog.len()..]));
}

#[test]
fn a_tool_result_matches_the_capture() {
    let f = fixture("turn-complete-after-tool");
    let cmd = "env | grep -E '^(CLAUDE|AI_AGENT|CODEX|GEMINI)' | sort > /tmp/hooklogs/tool-env-claude.txt; echo hello-from-tool";
    let lines = tool_call("Bash", &json!({"command": cmd}), "hello-from-tool");
    assert_eq!(lines, f[24..27]);
}

#[test]
fn the_interrupted_and_api_error_lines_match_the_captures() {
    let f = fixture("interrupted-mid-stream");
    assert_eq!(INTERRUPTED_LINE, f[6]);
    let f = fixture("api-error-400");
    assert!(f.contains(&answer("API Error: 400 fake bad request for probing")[1]));
}

#[test]
fn the_placeholder_rule_matches_the_paste_captures() {
    let thirty: String = (1..=30)
        .map(|i| format!("line {i} of pasted text with some words"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut input = InputBuffer::new();
    input.paste(thirty.as_bytes(), paste_label);
    assert_eq!(
        input_box(120, &input.display(), String::new())[1],
        fixture("paste-30-lines")[12]
    );
    assert_eq!(input.expanded(), thirty);
    input.clear();
    input.paste("x".repeat(1500).as_bytes(), paste_label);
    assert_eq!(
        input_box(120, &input.display(), String::new())[1],
        fixture("paste-1500-chars-one-line")[12]
    );
    input.clear();
    input.paste(b"first line\nsecond line\nthird line", paste_label);
    assert_eq!(
        input_box(120, &input.display(), String::new())[1..4],
        fixture("paste-3-lines")[12..15]
    );
    assert_eq!(
        footer(Mode::Default, Footer::Pasted),
        fixture("paste-30-lines")[14]
    );
}

#[test]
fn placeholder_thresholds() {
    assert_eq!(
        paste_label(1, "a\nb\nc"),
        None,
        "two line breaks stay inline"
    );
    assert_eq!(
        paste_label(1, "a\nb\nc\nd").as_deref(),
        Some("[Pasted text #1 +3 lines]")
    );
    assert_eq!(
        paste_label(2, "a\r\nb\r\nc\r\nd").as_deref(),
        Some("[Pasted text #2 +3 lines]"),
        "CRLF counts once"
    );
    assert_eq!(paste_label(1, &"x".repeat(800)), None);
    assert_eq!(
        paste_label(4, &"x".repeat(801)).as_deref(),
        Some("[Pasted text #4]")
    );
    assert_eq!(
        paste_label(5, &format!("{}\nend", "x".repeat(900))).as_deref(),
        Some("[Pasted text #5 +1 lines]")
    );
}

#[test]
fn the_resume_hint_matches_the_exit_capture() {
    let f = fixture("after-exit");
    let hint = resume_hint("884e50ce-5271-475f-bf12-94e3d81a1741");
    let lines: Vec<&str> = hint.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines, [f[f.len() - 2].as_str(), f[f.len() - 1].as_str()]);
}

/// The screens recorded as Shift+Tab cycled 2.1.332's modes (`tests/data/claude/`): header,
/// input box and the mode at the footer's start, for the modes in the cycle's order. (The real
/// footer goes on with `← for agents` and, at the right, `◐ medium · /effort`, which the fake
/// leaves out; it keeps its `· ? for shortcuts`, which 2.1.332 shows in manual mode only.)
#[test]
fn each_mode_of_the_shift_tab_cycle_is_the_recorded_one() {
    let cycle = [
        (Mode::Auto, "auto"),
        (Mode::Default, "manual"),
        (Mode::AcceptEdits, "acceptEdits"),
        (Mode::Plan, "plan"),
    ];
    for (i, (mode, name)) in cycle.into_iter().enumerate() {
        assert_eq!(cycle[(i + 1) % 4].0, mode.next());
        let f = crate::fixtures::repo_screen(&format!("claude/claude-2.1.332-mode-{name}.txt"));
        let f: Vec<&str> = f.iter().map(|r| r.trim_end_matches(' ')).collect();
        let header = header(
            super::super::release::PINNED,
            &opus(),
            "/tmp/ux8N4I8/project",
        );
        assert_eq!(header, f[..3]);
        let ours = input_box(120, "", footer(mode, Footer::Idle));
        assert_eq!(ours[..3], f[f.len() - 4..f.len() - 1], "{name}");
        let label = format!("  {} · ", mode.label());
        assert!(f[f.len() - 1].starts_with(&label), "{name}: {label:?}");
        assert!(ours[3].starts_with(&label), "{name}: {:?}", ours[3]);
        if mode == Mode::Default {
            assert!(f[f.len() - 1].starts_with(&ours[3]), "{:?}", ours[3]);
        }
    }
}
