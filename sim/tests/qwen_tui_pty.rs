//! fake-qwen's TUI in a pseudo-terminal (no tmux): the tool confirmation answered as the real
//! qwen 0.24.4 answered it (the approval recordings `qwen-1`, `qwen-esc`, `qwen-x-esc`):
//! `PreToolUse` only once the call is allowed, and Esc fires no `Stop` — only the
//! `idle_prompt` Notification a moment later — leaving the turn on the screen and the input
//! box empty; and Shift+Tab cycling the approval mode as the `qwen-0.24.4-mode-*` recordings.

mod common;

use std::time::{Duration, Instant};

use common::Sim;
use common::pty::{ctrl_c_twice, exp, send, spawn, step};
use common::qwen::Qwen;

/// What the empty input box shows.
const IDLE: &str = "Type your message or @path/to/file";

/// The recordings' scenario: the tool, then a second question.
const SCENARIO: &str = r#"{"turns":[
    {"match":"run the tool","reply":"It printed hi.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi > umbel-tool.txt","description":"Write hi"}}}},
    {"match":"second question","reply":"Second answer."}]}"#;

fn pair(event: &str, kind: &str) -> (String, String) {
    (event.to_string(), kind.to_string())
}

#[test]
fn esc_on_the_confirmation_fires_no_stop_only_the_idle_notice_a_moment_later() {
    let s = Qwen::new("esc");
    let mut p = spawn(&s, SCENARIO, &[]);
    exp(&mut p, IDLE);
    step(&mut p, "run the tool\r", "4. No, suggest changes (esc)");
    let asked = [
        pair("UserPromptSubmit", ""),
        pair("PermissionRequest", ""),
        pair("Notification", "permission_prompt"),
    ];
    assert_eq!(s.events_after(3).len(), 3);
    assert_eq!(s.fired(), asked, "no PreToolUse before the call is allowed");
    let esc = Instant::now();
    send(&mut p, "\x1b");
    let shown = exp(&mut p, IDLE);
    assert!(
        shown.contains("-  Shell echo hi > umbel-tool.txt"),
        "{shown}"
    );
    assert!(!shown.contains("Request cancelled"), "{shown}");
    assert_eq!(s.events_after(4).len(), 4, "the idle notice");
    let late = esc.elapsed();
    assert!(
        late >= Duration::from_millis(150),
        "came {late:?} after Esc"
    );
    assert_eq!(s.fired()[3..], [pair("Notification", "idle_prompt")]);
    // The input box is empty: the next prompt goes as typed.
    step(&mut p, "the second question\r", "Second answer.");
    assert_eq!(s.events_after(7).len(), 7);
    assert_eq!(s.payloads()[4]["prompt"], "the second question");
    let next = [
        pair("UserPromptSubmit", ""),
        pair("Stop", ""),
        pair("Notification", "idle_prompt"),
    ];
    assert_eq!(s.fired()[4..], next);
}

#[test]
fn allowing_the_call_fires_pre_tool_use_then_the_rest_of_the_turn() {
    let s = Qwen::new("allow");
    let mut p = spawn(&s, SCENARIO, &[]);
    exp(&mut p, IDLE);
    step(&mut p, "run the tool\r", "1. Yes, allow once");
    assert_eq!(s.events_after(3).len(), 3);
    step(&mut p, "1", "It printed hi.");
    let after = [
        pair("PreToolUse", ""),
        pair("PostToolUse", ""),
        pair("UserPromptSubmit", ""),
        pair("Stop", ""),
        pair("Notification", "idle_prompt"),
    ];
    assert_eq!(s.events_after(8)[3..].len(), 5);
    assert_eq!(s.fired()[3..], after);
}

/// Shift+Tab as the terminal sends it.
const SHIFT_TAB: &str = "\x1b[Z";

#[test]
fn shift_tab_cycles_the_five_modes_and_yolo_runs_the_tool_unasked() {
    let s = Qwen::new("modes");
    let mut p = spawn(&s, SCENARIO, &[]);
    exp(&mut p, IDLE);
    exp(&mut p, "  ⏸ Ask permissions (shift + tab to cycle)");
    step(
        &mut p,
        SHIFT_TAB,
        "  auto-accept edits (shift + tab to cycle)",
    );
    // Entering auto leaves its notice in the history, over the composer.
    step(&mut p, SHIFT_TAB, "  ●\u{fe0e} Auto mode enabled.");
    exp(&mut p, "An LLM classifier evaluates each tool call");
    exp(&mut p, "Exit: Shift+Tab or /approval-mode default.");
    exp(&mut p, "  Auto mode (shift + tab to cycle)");
    step(&mut p, SHIFT_TAB, " *   Type your message");
    exp(&mut p, "  YOLO mode (shift + tab to cycle)");
    step(&mut p, "run the tool\r", "It printed hi.");
    exp(&mut p, "  YOLO mode (shift + tab to cycle)");
    let fired = s.events_after(6);
    assert_eq!(
        fired[..3],
        ["UserPromptSubmit", "PreToolUse", "PostToolUse"]
    );
    assert!(
        !fired.contains(&"PermissionRequest".to_string()),
        "{fired:?}"
    );
    assert_eq!(s.payloads()[0]["permission_mode"], "yolo");
    step(&mut p, SHIFT_TAB, "  plan mode (shift + tab to cycle)");
    step(
        &mut p,
        SHIFT_TAB,
        "  ⏸ Ask permissions (shift + tab to cycle)",
    );
    ctrl_c_twice(&mut p);
}
