//! fake-copilot's TUI in a pseudo-terminal (no tmux), as copilot 1.0.102 was recorded: the
//! folder-trust dialog (remembered with option 2), a turn and its hooks, Esc Esc interrupting
//! (one Esc lapses) or, before any text, taking the turn back, the permission dialog's `1` and
//! Esc, the not-signed-in composer, Shift+Tab cycling the agent mode on the status line.

mod common;

use std::time::Duration;

use rexpect::process::WaitStatus;
use rexpect::session::spawn_command;

use common::copilot::Copilot;
use common::pty::{ctrl_c_twice, exp, send, spawn, status, step};

const SID: &str = "44444444-2222-4333-8444-555555555555";

/// The idle status line.
const IDLE: &str = "← open sidebar · Interactive · Manual Approval";

const SCENARIO: &str = r#"{"turns":[
    {"match":"hang","reply":"thinking","end":"wedge"},
    {"match":"long task","reply":"late","delay_ms":60000},
    {"match":"run the tool","reply":"It printed hi.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi > out.txt","description":"Print hi"}}}},
    {"match":"tool again","reply":"It printed hi.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi > out2.txt","description":"Print hi"}}}},
    {"match":"lose it","reply":"Half an answer","end":"sign_in"}]}"#;

/// The kinds of the session log's last `n` events.
fn last_kinds(s: &Copilot, n: usize) -> Vec<String> {
    let kinds = s.kinds(SID);
    kinds[kinds.len().saturating_sub(n)..].to_vec()
}

#[test]
fn trust_then_a_turn_its_hooks_and_exit() {
    let s = Copilot::new("turn");
    let mut p = spawn(&s, SCENARIO, &["--session-id", SID]);
    exp(&mut p, "Confirm folder trust");
    step(&mut p, "1", IDLE);
    assert_eq!(s.kinds(SID), ["session.start", "session.model_change"]);
    assert!(s.hooks().is_empty(), "nothing fires while idle at startup");
    send(&mut p, "Say hello");
    exp(&mut p, "Interactive · Manual Approval · @ files · # issues");
    step(&mut p, "\r", "● Response to: Say hello");
    assert_eq!(s.fired(3), ["SessionStart", "UserPromptSubmit", "Stop"]);
    let (_, start) = &s.hooks()[0];
    assert_eq!(
        (start["source"].as_str(), start["initial_prompt"].as_str()),
        (Some("new"), Some("Say hello"))
    );
    send(&mut p, "/exit\r");
    p.exp_eof().unwrap();
    assert!(matches!(status(&p), WaitStatus::Exited(_, 0)));
    assert_eq!(s.fired(4)[3], "SessionEnd");
    assert_eq!(s.hooks()[3].1["reason"], "user_exit");
    assert_eq!(last_kinds(&s, 1), ["session.shutdown"]);
}

#[test]
fn esc_esc_interrupts_a_running_turn_and_one_esc_lapses() {
    let s = Copilot::new("esc");
    let mut p = spawn(&s, SCENARIO, &["--session-id", SID]);
    exp(&mut p, "Confirm folder trust");
    step(&mut p, "1", IDLE);
    step(&mut p, "hang\r", "esc esc interrupt");
    step(&mut p, "\x1b", "esc again to interrupt");
    std::thread::sleep(Duration::from_millis(700));
    exp(&mut p, "esc esc interrupt");
    step(&mut p, "\x1b", "esc again to interrupt");
    assert!(
        !s.kinds(SID).contains(&"abort".to_string()),
        "a lapsed Esc interrupts nothing"
    );
    step(&mut p, "\x1b", "● Operation cancelled by user");
    exp(&mut p, IDLE);
    assert_eq!(last_kinds(&s, 2), ["assistant.turn_end", "abort"]);
    assert_eq!(s.log(SID).last().unwrap()["data"]["reason"], "user_abort");
    assert_eq!(
        s.fired(2),
        ["SessionStart", "UserPromptSubmit"],
        "no hook on an interrupt"
    );
    ctrl_c_twice(&mut p);
}

/// The input line holding `text` (the prompt's echo above has its time after it).
fn input_line(text: &str) -> String {
    format!("❯ {text}\x1b[K")
}

#[test]
fn esc_esc_before_any_text_takes_the_turn_back() {
    let s = Copilot::new("take-back");
    let mut p = spawn(&s, SCENARIO, &["--session-id", SID]);
    exp(&mut p, "Confirm folder trust");
    step(&mut p, "1", IDLE);
    step(&mut p, "long task\r", "Working esc esc edit prompt");
    step(&mut p, "\x1b", "Working esc again to edit prompt");
    // The key came after the turn's start: its hooks fired, its events are in the log.
    assert_eq!(s.fired(2), ["SessionStart", "UserPromptSubmit"]);
    assert!(s.kinds(SID).contains(&"user.message".to_string()));
    send(&mut p, "\x1b");
    let before = exp(&mut p, &input_line("long task"));
    exp(&mut p, "Interactive · Manual Approval · @ files · # issues");
    assert!(!before.contains("Operation cancelled"), "not an interrupt");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.kinds(SID), ["session.start", "session.model_change"]);
    assert_eq!(s.hooks().len(), 2, "no hook on a take-back");
    // The prompt put back goes again: a turn of its own, chained to what the log kept.
    step(&mut p, "\r", "● Response to: long task");
    assert_eq!(s.fired(4)[2..], ["UserPromptSubmit", "Stop"]);
    let log = s.log(SID);
    assert_eq!(log[2]["type"], "hook.start");
    assert_eq!(log[2]["parentId"], log[1]["id"]);
    assert_eq!(
        last_kinds(&s, 3),
        ["assistant.turn_end", "hook.start", "hook.end"]
    );
    ctrl_c_twice(&mut p);
}

#[test]
fn the_permission_dialog_runs_the_tool_on_1_and_refuses_it_on_esc() {
    let s = Copilot::new("permission");
    let mut p = spawn(&s, SCENARIO, &["--session-id", SID]);
    exp(&mut p, "Confirm folder trust");
    step(&mut p, "1", IDLE);
    step(&mut p, "run the tool\r", "Do you want to run this command?");
    let asked = [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "Notification",
    ];
    assert_eq!(s.fired(5), asked);
    assert_eq!(s.hooks()[4].1["message"], "Run command: echo hi > out.txt");
    step(&mut p, "1", "● It printed hi.");
    assert_eq!(s.fired(7)[5..], ["PostToolUse", "Stop"]);
    step(&mut p, "tool again\r", "Do you want to run this command?");
    assert_eq!(s.fired(11).len(), 11);
    step(&mut p, "\x1b", "✗ Shell Print hi Operation aborted by user");
    exp(&mut p, "● Operation cancelled by user");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(s.hooks().len(), 11, "no hook on a refusal");
    let end = ["permission.completed", "assistant.turn_end", "abort"];
    assert_eq!(last_kinds(&s, 3), end);
    assert_eq!(
        s.log(SID).last().unwrap()["data"]["reason"],
        "user_initiated"
    );
    ctrl_c_twice(&mut p);
}

#[test]
fn a_remembered_folder_skips_the_trust_dialog() {
    let s = Copilot::new("remember");
    let mut p = spawn(&s, "{}", &[]);
    exp(
        &mut p,
        "2. Yes, and remember this folder for future sessions",
    );
    step(&mut p, "2", IDLE);
    ctrl_c_twice(&mut p);
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.home.join("config.json")).unwrap())
            .unwrap();
    assert_eq!(
        config["trustedFolders"][0],
        s.proj.to_string_lossy().as_ref()
    );
    let mut p = spawn(&s, "{}", &[]);
    let before = exp(&mut p, IDLE);
    assert!(!before.contains("Confirm folder trust"), "{before}");
    ctrl_c_twice(&mut p);
    let mut p = spawn(&s, "{}", &[]);
    exp(&mut p, IDLE);
    send(&mut p, "\x03");
    send(&mut p, "\x03");
    p.exp_eof().unwrap();
    assert!(s.sessions().is_empty(), "no prompt, no session folder");
}

#[test]
fn esc_on_the_trust_dialog_exits() {
    let s = Copilot::new("no-trust");
    let mut p = spawn(&s, "{}", &[]);
    step(&mut p, "\x1b[B\x1b[B", "❯ 3. No (Esc)");
    send(&mut p, "\x1b");
    p.exp_eof().unwrap();
    assert!(matches!(status(&p), WaitStatus::Exited(_, 1)));
}

#[test]
fn not_signed_in_the_composer_says_so_until_ctrl_c_twice() {
    let s = Copilot::new("signed-out");
    let mut cmd = s.signed_out();
    cmd.env("UMBEL_SIM_SCENARIO", "{}");
    let mut p = spawn_command(cmd, Some(10_000)).unwrap();
    step(&mut p, "1", "Please use /login to sign in to use Copilot");
    ctrl_c_twice(&mut p);
    assert!(matches!(status(&p), WaitStatus::Exited(_, 0)));
}

#[test]
fn a_lost_session_shows_the_sign_in_line_and_fires_nothing_more() {
    let s = Copilot::new("lost");
    let mut p = spawn(&s, SCENARIO, &["--session-id", SID]);
    exp(&mut p, "Confirm folder trust");
    step(&mut p, "1", IDLE);
    step(
        &mut p,
        "lose it\r",
        "Please use /login to sign in to use Copilot",
    );
    assert_eq!(s.fired(2), ["SessionStart", "UserPromptSubmit"]);
    ctrl_c_twice(&mut p);
    assert_eq!(s.hooks().len(), 2);
}

#[test]
fn shift_tab_cycles_interactive_plan_autopilot_on_the_status_line() {
    // Recorded: tests/data/copilot/1.0.102/copilot-1.0.102-mode-{interactive,plan,autopilot}.txt.
    let s = Copilot::new("modes");
    let mut p = spawn(&s, SCENARIO, &["--session-id", SID]);
    exp(&mut p, "Confirm folder trust");
    step(&mut p, "1", IDLE);
    let plan = "← open sidebar · Plan · Manual Approval · / commands · ? help · tab next tab";
    step(&mut p, "\x1b[Z", plan);
    let autopilot = "← open sidebar · Autopilot · Manual Approval · / commands · tab next tab";
    step(&mut p, "\x1b[Z", autopilot);
    step(&mut p, "\x1b[Z", IDLE);
    assert!(s.hooks().is_empty(), "no hook on a mode change");
    ctrl_c_twice(&mut p);
}
