//! fake-claude's TUI end to end in a pseudo-terminal (no tmux): startup
//! screens, turns, bracketed paste, Esc, permission prompts, exit.

mod common;

use common::claude::Sandbox;
use common::pty::{ctrl_c_twice, exp, send, spawn, status, step};
use common::{Sim, read_jsonl};
use rexpect::process::{Signal, WaitStatus};

const SID: &str = "22222222-3333-4444-8555-666666666666";

#[test]
fn trust_dialog_then_a_turn_then_exit() {
    let s = Sandbox::new("pty-trust").signed_in(false);
    let settings = s.settings(&["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]);
    let mut p = spawn(&s, "{}", &["--settings", &settings, "--session-id", SID]);
    exp(&mut p, "❯ No, exit");
    step(&mut p, "\x1b[B", "❯ Yes, I trust this folder");
    step(&mut p, "\r", "? for shortcuts");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.home.join(".claude.json")).unwrap())
            .unwrap();
    assert_eq!(
        doc["projects"][s.proj.to_str().unwrap()]["hasTrustDialogAccepted"],
        true
    );
    assert_eq!(doc["theme"], "dark", "other keys survive");
    send(&mut p, "Say hello");
    step(&mut p, "\r", "● Response to: Say hello");
    exp(&mut p, "? for shortcuts");
    step(&mut p, "/exit\r", &format!("claude --resume {SID}"));
    p.exp_eof().unwrap();
    assert!(matches!(status(&p), WaitStatus::Exited(_, 0)));
    assert_eq!(s.one_turn_payloads()[3]["reason"], "prompt_input_exit");
}

#[test]
fn enter_on_no_exit_leaves_with_status_1() {
    let s = Sandbox::new("pty-no").signed_in(false);
    let mut p = spawn(&s, "{}", &[]);
    exp(&mut p, "❯ No, exit");
    send(&mut p, "1");
    send(&mut p, "\r");
    p.exp_eof().unwrap();
    assert!(matches!(status(&p), WaitStatus::Exited(_, 1)));
}

#[test]
fn not_signed_in_shows_the_onboarding_theme_screen() {
    let s = Sandbox::new("pty-onboard");
    let mut p = spawn(&s, "{}", &[]);
    exp(
        &mut p,
        "Choose the text style that looks best with your terminal",
    );
    ctrl_c_twice(&mut p);
    let s = Sandbox::new("pty-signin").signed_in(true);
    let mut p = spawn(&s, r#"{"startup":{"sign_in":true}}"#, &[]);
    exp(&mut p, "Choose the text style");
    p.process_mut().kill(Signal::SIGKILL).unwrap();
}

#[test]
fn bracketed_paste_arrives_byte_exact_behind_a_placeholder() {
    let s = Sandbox::new("pty-paste").signed_in(true);
    let settings = s.settings(&["UserPromptSubmit"]);
    let mut p = spawn(&s, "{}", &["--settings", &settings]);
    exp(&mut p, "? for shortcuts");
    let pasted = "line 1\r\nline\t2\rline 3\nünï 🙂 end";
    step(
        &mut p,
        &format!("\x1b[200~{pasted}\x1b[201~"),
        "[Pasted text #1 +3 lines]",
    );
    exp(&mut p, "paste again to expand");
    step(&mut p, " tail\r", "● Response to: line 1");
    let want = format!("{pasted} tail");
    assert_eq!(s.recorded(1), want.as_bytes());
    assert_eq!(s.payloads()[0]["prompt"], want.as_str());
    let user = read_jsonl(&s.transcript())
        .into_iter()
        .find(|r| r["type"] == "user")
        .unwrap();
    assert_eq!(user["message"]["content"], want.as_str());
    step(
        &mut p,
        "\x1b[200~short\npaste\x1b[201~\r",
        "● Response to: short",
    );
    assert_eq!(s.recorded(2), b"short\npaste");
}

#[test]
fn esc_interrupts_a_running_turn_without_stop() {
    let s = Sandbox::new("pty-esc").signed_in(true);
    let settings = s.settings(&["Stop", "StopFailure", "UserPromptSubmit"]);
    let scenario =
        r#"{"turns":[{"reply":"alpha beta gamma delta","delay_ms":50,"chunk_ms":3000}]}"#;
    let mut p = spawn(&s, scenario, &["--settings", &settings]);
    exp(&mut p, "? for shortcuts");
    step(&mut p, "go\r", "esc to interrupt");
    exp(&mut p, "● alpha");
    step(
        &mut p,
        "\x1b",
        "Interrupted · What should Claude do instead?",
    );
    exp(&mut p, "? for shortcuts");
    let records = read_jsonl(&s.transcript());
    let last = records.last().unwrap();
    assert_eq!(
        last["message"]["content"][0]["text"],
        "[Request interrupted by user]"
    );
    assert!(
        records
            .iter()
            .any(|r| r["type"] == "assistant" && r["message"]["content"][0]["text"] == "alpha ")
    );
    assert_eq!(s.events(), ["UserPromptSubmit"]);
}

#[test]
fn a_permission_prompt_waits_for_approval_then_finishes() {
    let s = Sandbox::new("pty-perm").signed_in(true);
    let settings = s.settings(&[
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "Notification",
        "PostToolUse",
        "Stop",
    ]);
    // The Notification 300 ms into an untouched dialog (2.1.332: 6 s, `permission_notify_ms`).
    let scenario = r#"{"startup":{"permission_notify_ms":300},"turns":[{"reply":"The command printed hi.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi","description":"Print a greeting"}}}}]}"#;
    let mut p = spawn(&s, scenario, &["--settings", &settings]);
    exp(&mut p, "? for shortcuts");
    let asked = std::time::Instant::now();
    step(&mut p, "run it\r", "Do you want to proceed?");
    exp(&mut p, "4. No");
    assert_eq!(
        s.events_after(4),
        [
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "Notification"
        ]
    );
    assert_eq!(s.payloads()[3]["notification_type"], "permission_prompt");
    let late = asked.elapsed();
    assert!(late.as_millis() >= 300, "the Notification came {late:?} in");
    step(&mut p, "1", "● The command printed hi.");
    exp(&mut p, "? for shortcuts");
    assert_eq!(s.events_after(6)[4..], ["PostToolUse", "Stop"]);
    let kinds: Vec<String> = read_jsonl(&s.transcript())
        .iter()
        .filter_map(|r| {
            r["message"]["content"][0]["type"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(kinds, ["text", "tool_use", "tool_result", "text"]);
}

#[test]
fn a_key_in_the_permission_dialog_puts_its_notification_off_a_whole_interval() {
    // 2.1.332 looks every 6 s for 6 s without a key (rec-out claude-2-run1: a key 1 s in, the
    // Notification 12.4 s after PermissionRequest); here every 700 ms.
    let s = Sandbox::new("pty-notice").signed_in(true);
    let settings = s.settings(&["PermissionRequest", "Notification"]);
    let scenario = r#"{"startup":{"permission_notify_ms":700},"turns":[{"end":{"permission":{"tool":"Bash","input":{"command":"echo hi"}}}}]}"#;
    let mut p = spawn(&s, scenario, &["--settings", &settings]);
    exp(&mut p, "? for shortcuts");
    step(&mut p, "run it\r", "Do you want to proceed?");
    exp(&mut p, "4. No");
    let key = std::time::Instant::now();
    step(&mut p, "\x1b[B", "❯ 2. Yes");
    assert_eq!(s.events_after(2), ["PermissionRequest", "Notification"]);
    let late = key.elapsed();
    assert!(
        late.as_millis() >= 700,
        "the Notification came {late:?} after the key"
    );
    assert_eq!(s.payloads()[1]["notification_type"], "permission_prompt");
}

#[test]
fn refusing_a_permission_prompt_interrupts_the_turn() {
    let s = Sandbox::new("pty-refuse").signed_in(true);
    let settings = s.settings(&["PostToolUse", "Stop"]);
    let scenario =
        r#"{"turns":[{"end":{"permission":{"tool":"Bash","input":{"command":"rm -rf build"}}}}]}"#;
    let mut p = spawn(&s, scenario, &["--settings", &settings]);
    exp(&mut p, "? for shortcuts");
    step(&mut p, "clean\r", "Do you want to proceed?");
    step(
        &mut p,
        "\x1b",
        "Interrupted · What should Claude do instead?",
    );
    exp(&mut p, "? for shortcuts");
    assert!(s.events().is_empty());
    let last = read_jsonl(&s.transcript()).pop().unwrap();
    assert_eq!(
        last["message"]["content"][0]["text"],
        "[Request interrupted by user for tool use]"
    );
}

#[test]
fn an_api_error_shows_on_screen_and_fires_stop_failure() {
    let s = Sandbox::new("pty-api").signed_in(true);
    let settings = s.settings(&["Stop", "StopFailure"]);
    let scenario = r#"{"turns":[{"end":{"api_error":{"status":400,"message":"bad request"}}}]}"#;
    let mut p = spawn(&s, scenario, &["--settings", &settings]);
    exp(&mut p, "? for shortcuts");
    step(&mut p, "x\r", "● API Error: 400 bad request");
    exp(&mut p, "? for shortcuts");
    assert_eq!(s.events_after(1), ["StopFailure"]);
    assert_eq!(s.payloads()[0]["error"], "unknown");
}

#[test]
fn a_signal_end_kills_the_process_and_ctrl_c_twice_exits() {
    let s = Sandbox::new("pty-sig").signed_in(true);
    let mut p = spawn(&s, r#"{"turns":[{"end":{"signal":"KILL"}}]}"#, &[]);
    exp(&mut p, "? for shortcuts");
    send(&mut p, "die\r");
    p.exp_eof().unwrap();
    assert!(matches!(
        status(&p),
        WaitStatus::Signaled(_, Signal::SIGKILL, _)
    ));
    assert_eq!(
        s.live_sessions(),
        0,
        "the session registry is removed before the kill"
    );

    let mut p = spawn(&s, r#"{"turns":[{"end":"wedge"}]}"#, &[]);
    exp(&mut p, "? for shortcuts");
    step(&mut p, "hang\r", "esc to interrupt");
    p.send_control('c').unwrap();
    exp(&mut p, "Press Ctrl-C again to exit");
    p.send_control('c').unwrap();
    p.exp_eof().unwrap();
    assert!(matches!(status(&p), WaitStatus::Exited(_, 0)));
    assert_eq!(s.live_sessions(), 0);
}

#[test]
fn shift_tab_cycles_the_permission_mode_and_the_hooks_carry_it() {
    let s = Sandbox::new("pty-modes").signed_in(true);
    let settings = s.settings(&["UserPromptSubmit", "Stop"]);
    let args = ["--settings", &settings, "--permission-mode", "auto"];
    let mut p = spawn(&s, "{}", &args);
    let auto = "  ⏵⏵ auto mode on (shift+tab to cycle) · ? for shortcuts";
    exp(&mut p, auto);
    let cycle = [
        "  ⏸ manual mode on · ? for shortcuts",
        "  ⏵⏵ accept edits on (shift+tab to cycle) · ? for shortcuts",
        "  ⏸ plan mode on (shift+tab to cycle) · ? for shortcuts",
        auto,
    ];
    for footer in cycle {
        step(&mut p, "\x1b[Z", footer);
    }
    send(&mut p, "\x1b[Z\x1b[Z\x1b[Z");
    exp(&mut p, cycle[2]);
    step(&mut p, "Say hello\r", "● Response to: Say hello");
    exp(&mut p, cycle[2]);
    assert_eq!(s.events_after(2), ["UserPromptSubmit", "Stop"]);
    for payload in s.payloads() {
        assert_eq!(payload["permission_mode"], "plan", "{payload}");
    }
    let records = read_jsonl(&s.transcript());
    let modes: Vec<&serde_json::Value> = records
        .iter()
        .filter_map(|r| r.get("permissionMode"))
        .collect();
    assert!(records.iter().any(|r| r["type"] == "permission-mode"));
    assert!(
        !modes.is_empty() && modes.iter().all(|m| *m == "plan"),
        "{modes:?}"
    );
    step(&mut p, "\x1b[Z", auto);
    ctrl_c_twice(&mut p);
}
