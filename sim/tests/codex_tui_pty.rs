//! fake-codex's TUI end to end in a pseudo-terminal (no tmux): trust dialog,
//! hook review, the swallowed Enter after a paste, approval, interrupt, quit.
//! Every frame repaints the whole screen, so needles are chosen to appear
//! only once the awaited state is reached.

mod common;

use std::time::Duration;

use common::codex::{ALL_EVENTS, Sandbox};
use common::pty::{exit_code, exp, send, spawn, spawn_at, step};
use common::{Sim, read_jsonl};

const BYPASS: &[&str] = &["--no-daemon", "--dangerously-bypass-hook-trust"];

#[test]
fn trust_dialog_then_a_turn_then_quit() {
    let s = Sandbox::new("trust").git().hooks(ALL_EVENTS);
    let mut p = spawn(
        &s,
        r#"{"turns":[{"reply":"Hello!"}]}"#,
        &[
            "--no-daemon",
            "--dangerously-bypass-hook-trust",
            "-m",
            "gpt-fake-1",
        ],
    );
    exp(&mut p, "› 1. Trust and continue");
    step(&mut p, "2", "› 2. Back to Agent Command Center");
    step(&mut p, "1", "› 1. Trust and continue");
    assert!(
        !s.config_text().contains("trust_level"),
        "digits only move the highlight"
    );
    step(&mut p, "\r", "› Ask Codex to do anything");
    exp(&mut p, "← for agents · ? for shortcuts");
    let cfg = s.config_text();
    assert!(
        cfg.contains(&format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"",
            s.proj.display()
        )),
        "{cfg}"
    );
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        s.events().is_empty(),
        "no SessionStart before the first prompt"
    );
    step(&mut p, "Say hello\r", "• Hello!");
    exp(&mut p, "  Worked for <1s • 19:52");
    assert_eq!(
        s.events_after(3),
        ["SessionStart", "UserPromptSubmit", "Stop"]
    );
    let payloads = s.payloads();
    assert_eq!(payloads[0]["source"], "startup");
    assert_eq!(payloads[0]["model"], "gpt-fake-1");
    assert_eq!(payloads[2]["last_assistant_message"], "Hello!");
    let id = payloads[0]["session_id"].as_str().unwrap().to_string();
    step(&mut p, "/quit\r", "To continue this session, run:");
    exp(&mut p, &format!("  codex resume {id}"));
    exp(&mut p, "Or run codex resume and select Say hello.");
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
    assert_eq!(s.events_after(4)[3], "SessionEnd");
    assert_eq!(s.payloads()[3]["reason"], "other");
    let rollout = s.rollout();
    assert_eq!(rollout[0]["payload"]["originator"], "codex-tui");
    assert_eq!(rollout.last().unwrap()["payload"]["type"], "task_complete");
}

#[test]
fn back_or_esc_in_the_trust_dialog_exits_1() {
    let s = Sandbox::new("back").git();
    let mut p = spawn(&s, "{}", BYPASS);
    exp(&mut p, "› 1. Trust and continue");
    step(&mut p, "\x1b[B", "› 2. Back to Agent Command Center");
    send(&mut p, "\r");
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(1));
    let mut p = spawn(&s, r#"{"startup":{"trust_dialog":true}}"#, BYPASS);
    exp(&mut p, "Trust this folder?");
    send(&mut p, "\x1b");
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(1));
    assert_eq!(s.config_text(), "");
}

#[test]
fn hook_review_trust_all_is_remembered() {
    let s = Sandbox::new("review").hooks(&["UserPromptSubmit", "Stop"]);
    let mut p = spawn(&s, "{}", &["--no-daemon"]);
    exp(&mut p, "2 hooks are new or changed.");
    exp(&mut p, "› 1. Review hooks");
    step(
        &mut p,
        "\r",
        "Lifecycle hooks from config and enabled plugins.",
    );
    exp(&mut p, "⚠ 2 hooks need review before they can run.");
    step(&mut p, "\x1b", "Hooks need review");
    step(&mut p, "\x1b[B", "› 2. Trust all and continue");
    step(&mut p, "\r", "› Ask Codex to do anything");
    let cfg = s.config_text();
    let key = format!(
        "[hooks.state.\"{}:stop:0:0\"]\ntrusted_hash = \"sha256:",
        s.home.join("hooks.json").display()
    );
    assert!(cfg.contains(&key), "{cfg}");
    step(&mut p, "go\r", "• Response to: go");
    assert_eq!(s.events_after(2), ["UserPromptSubmit", "Stop"]);
    send(&mut p, "/exit\r");
    p.exp_eof().unwrap();
    let mut p = spawn(&s, "{}", &["--no-daemon"]);
    let before = exp(&mut p, "› Ask Codex to do anything");
    assert!(
        !before.contains("Hooks need review"),
        "trusted hooks are not reviewed again"
    );
    send(&mut p, "\x03\x03");
    p.exp_eof().unwrap();
}

#[test]
fn continuing_without_trust_runs_no_hooks() {
    let s = Sandbox::new("skip").hooks(&["UserPromptSubmit", "Stop"]);
    let mut p = spawn(&s, r#"{"startup":{"hook_review":true}}"#, BYPASS);
    exp(&mut p, "› 1. Review hooks");
    step(
        &mut p,
        "3",
        "› 3. Continue without trusting (hooks won't run)",
    );
    step(&mut p, "\r", "› Ask Codex to do anything");
    step(&mut p, "go\r", "• Response to: go");
    std::thread::sleep(Duration::from_millis(150));
    assert!(s.events().is_empty());
    assert!(!s.config_text().contains("hooks.state"));
}

#[test]
fn the_first_enter_after_a_paste_is_swallowed() {
    let s = Sandbox::new("paste").hooks(&["UserPromptSubmit"]);
    let mut p = spawn(&s, r#"{"startup":{"swallow_enters":1}}"#, BYPASS);
    exp(&mut p, "← for agents");
    let pasted = format!("{}\r\nünï end", "x".repeat(1200));
    step(
        &mut p,
        &format!("\x1b[200~{pasted}\x1b[201~"),
        "› [Pasted Content 1209 chars]",
    );
    send(&mut p, "\r");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !s.root.join("rec/prompt-1.txt").exists(),
        "the first Enter is swallowed"
    );
    step(&mut p, "\r", "• Response to: xxxx");
    assert_eq!(s.recorded(1), pasted.as_bytes());
    assert_eq!(s.events_after(1), ["UserPromptSubmit"]);
    assert_eq!(s.payloads()[0]["prompt"], pasted.as_str());
    step(&mut p, "\x1b[200~short\npaste\x1b[201~", "  paste");
    step(&mut p, "\r\r", "• Response to: short");
    assert_eq!(s.recorded(2), b"short\npaste");
}

#[test]
fn approval_then_refusal() {
    let s = Sandbox::new("approval").hooks(ALL_EVENTS);
    let permission = r#"{"permission":{"tool":"Bash","input":{"command":"echo hi","description":"Print a greeting"}}}"#;
    let scenario = format!(
        r#"{{"turns":[{{"match":"one","reply":"The command printed hi.","end":{permission}}},{{"match":"two","end":{permission}}}]}}"#
    );
    let mut p = spawn(&s, &scenario, BYPASS);
    exp(&mut p, "← for agents");
    step(
        &mut p,
        "run one\r",
        "Would you like to run the following command?",
    );
    exp(&mut p, "  Reason: Print a greeting");
    exp(&mut p, "› 1. Yes, proceed (y)");
    exp(&mut p, "Press enter to confirm or esc to cancel");
    let events = s.events_after(4);
    assert_eq!(
        events,
        [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest"
        ]
    );
    assert_eq!(
        s.payloads()[3]["tool_input"]["description"],
        "Print a greeting"
    );
    step(&mut p, "y", "✔ You approved codex to run echo hi this time");
    exp(&mut p, "• Ran echo hi");
    exp(&mut p, "  └ hi");
    exp(&mut p, "• The command printed hi.");
    assert_eq!(s.events_after(6)[4..], ["PostToolUse", "Stop"]);
    assert_eq!(s.payloads()[4]["tool_response"], "hi\n");
    step(&mut p, "run two\r", "› 1. Yes, proceed (y)");
    step(&mut p, "\x1b", "✗ You canceled the request to run echo hi");
    exp(
        &mut p,
        "■ Conversation interrupted - use /feedback if something went wrong",
    );
    let events = s.events_after(10);
    assert_eq!(
        events[6..],
        [
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "Interrupt"
        ]
    );
    let last = read_jsonl(&s.rollouts()[0]).pop().unwrap();
    assert_eq!(last["payload"]["type"], "turn_aborted");
}

#[test]
fn esc_interrupts_a_turn_and_errors_show_their_lines() {
    let s = Sandbox::new("interrupt").hooks(ALL_EVENTS);
    let scenario = r#"{"turns":[
        {"match":"SLOW","reply":"partial","delay_ms":300,"end":"wedge"},
        {"match":"BAD","end":{"api_error":{"status":400,"message":"fake bad request for probing"}}},
        {"match":"LIMIT","end":{"usage_limit":{"retry_at":"8:57 PM"}}},
        {"match":"CRASH","end":{"crash":3}}]}"#;
    let mut p = spawn(&s, scenario, BYPASS);
    exp(&mut p, "← for agents");
    step(
        &mut p,
        "Please SLOW down\r",
        "• Working (0s • esc to interrupt)",
    );
    exp(&mut p, "• partial");
    step(
        &mut p,
        "\x1b",
        "■ Conversation interrupted - use /feedback if something went wrong",
    );
    assert_eq!(
        s.events_after(3),
        ["SessionStart", "UserPromptSubmit", "Interrupt"]
    );
    let records = read_jsonl(&s.rollouts()[0]);
    let n = records.len();
    assert!(
        records[n - 2]["payload"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("<turn_aborted>")
    );
    assert_eq!(records[n - 1]["payload"]["type"], "turn_aborted");
    step(
        &mut p,
        "Please BAD now\r",
        "■ {\"error\": {\"type\": \"invalid_request_error\", \"code\": \"bad_request\"",
    );
    step(
        &mut p,
        "Please LIMIT now\r",
        "■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/",
    );
    exp(
        &mut p,
        "usage to purchase more credits or try again at 8:57 PM.",
    );
    let events = s.events_after(5);
    assert_eq!(
        events[3..],
        ["UserPromptSubmit", "UserPromptSubmit"],
        "no Stop after failures"
    );
    send(&mut p, "CRASH\r");
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(3));
}

#[test]
fn sign_in_screen_sits_there() {
    let s = Sandbox::new("login");
    let mut p = spawn(&s, r#"{"startup":{"sign_in":true}}"#, BYPASS);
    exp(&mut p, "> 1. Sign in with ChatGPT");
    send(&mut p, "\r");
    std::thread::sleep(Duration::from_millis(100));
    send(&mut p, "\x03");
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(1));
}

#[test]
fn a_prompt_argument_is_submitted_and_quit_detaches_without_no_daemon() {
    let s = Sandbox::new("argv").hooks(&["SessionEnd"]);
    let mut p = spawn(&s, "{}", &["--dangerously-bypass-hook-trust", "Say hi"]);
    exp(&mut p, "• Response to: Say hi");
    step(&mut p, "\x03", "ctrl + c again to quit");
    step(
        &mut p,
        "\x03",
        "Disconnected from this task. Any running work continues.",
    );
    exp(&mut p, "Token usage so far: total=");
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
    assert_eq!(s.events_after(1), ["SessionEnd"]);
}

/// 0.149.0 asks for trust its older way ("Do you trust the contents of this directory?") and
/// runs no `Interrupt` hook when Esc aborts a turn (the rollout still records `turn_aborted`).
#[test]
fn release_0_149_0_asks_trust_its_old_way_and_runs_no_interrupt_hook() {
    let s = Sandbox::new("old").git().hooks(ALL_EVENTS);
    let scenario = r#"{"turns":[{"match":"SLOW","reply":"partial","delay_ms":300,"end":"wedge"}]}"#;
    let mut p = spawn_at(
        &s,
        "0.149.0",
        scenario,
        &["--dangerously-bypass-hook-trust"],
    );
    exp(&mut p, "Do you trust the contents of this directory?");
    exp(&mut p, "› 1. Yes, continue");
    step(&mut p, "\r", "› Ask Codex to do anything");
    assert!(s.config_text().contains("trust_level"));
    step(&mut p, "Please SLOW down\r", "• partial");
    step(&mut p, "\x1b", "■ Conversation interrupted");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(s.events(), ["SessionStart", "UserPromptSubmit"]);
    let records = read_jsonl(&s.rollouts()[0]);
    assert_eq!(
        records[records.len() - 1]["payload"]["type"],
        "turn_aborted"
    );
}

/// Before 0.156.0 `--no-daemon` is refused as clap refuses it, exit 2.
#[test]
fn release_0_155_1_refuses_no_daemon() {
    let s = Sandbox::new("nodaemon");
    let out = s
        .scripted("{}", BYPASS)
        .env("UMBEL_SIM_VERSION", "0.155.1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: unexpected argument '--no-daemon' found\n\n  tip: a similar argument exists: '--no-alt-screen'"),
        "{err}"
    );
}

#[test]
fn shift_tab_toggles_plan_mode_as_recorded() {
    let s = Sandbox::new("plan");
    let mut p = spawn(&s, "{}", &["--no-daemon", "-m", "gpt-fake"]);
    exp(&mut p, "  gpt-fake default · ");
    exp(&mut p, "← for agents · ? for shortcuts\x1b[K");
    for _ in 0..2 {
        step(
            &mut p,
            "\x1b[Z",
            "• Model changed to gpt-fake medium for Plan mode.",
        );
        exp(&mut p, "  gpt-fake medium · ");
        exp(&mut p, "← for agents · ? for shortcuts   ");
        exp(&mut p, "Plan mode (shift+tab to cycle)");
        step(&mut p, "\x1b[Z", "  gpt-fake default · ");
        exp(&mut p, "← for agents · ? for shortcuts\x1b[K");
    }
    send(&mut p, "\x1b[Z");
    exp(&mut p, "Plan mode (shift+tab to cycle)");
    step(&mut p, "go\r", "• Response to: go");
    exp(&mut p, "  gpt-fake medium · ");
    exp(&mut p, "Plan mode (shift+tab to cycle)");
    send(&mut p, "\x03\x03");
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(0));
}
