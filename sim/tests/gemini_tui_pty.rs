//! fake-gemini's TUI end to end in a pseudo-terminal (no tmux): the trust
//! dialog and its restart, the auth dialog, paste placeholders, the tool
//! confirmation, cancel, API errors, `/quit` and Shift+Tab's approval-mode
//! cycle.

mod common;

use common::gemini::{Sandbox, ready};
use common::pty::{ctrl_c_twice, exp, send, spawn, status, step};
use common::{Sim, read_jsonl};
use rexpect::process::{Signal, WaitStatus};

const SID: &str = "22222222-3333-4444-8555-666666666666";
const IDLE: &str = " >   Type your message or @path/to/file";
/// Shift+Tab as the terminal sends it.
const SHIFT_TAB: &str = "\x1b[Z";

#[test]
fn trusting_the_folder_restarts_then_a_turn_then_quit() {
    let s = Sandbox::new("trust").settings(
        true,
        &["SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd"],
    );
    let mut p = spawn(&s, "{}", &["--session-id", SID]);
    exp(&mut p, "Do you trust the files in this folder?");
    exp(&mut p, "│ ● 1. Trust folder (proj)");
    exp(&mut p, "│   2. Trust parent folder (work)");
    assert!(s.events().is_empty(), "no SessionStart before the restart");
    step(
        &mut p,
        "1",
        "Gemini CLI is restarting to apply the trust changes...",
    );
    exp(&mut p, "Authenticated with gemini-api-key /auth");
    exp(&mut p, IDLE);
    assert_eq!(s.trust_level(), "TRUST_FOLDER");
    assert_eq!(s.events_after(1), ["SessionStart"]);
    step(&mut p, "Say hello\r", " > Say hello");
    exp(&mut p, "Executing Hook: log-BeforeAgent");
    exp(&mut p, "✦ Response to: Say hello");
    exp(&mut p, "? for shortcuts");
    assert_eq!(s.events_after(3)[1..], ["BeforeAgent", "AfterAgent"]);
    step(&mut p, "/quit\r", "Agent powering down. Goodbye!");
    exp(
        &mut p,
        &format!("To resume this session: gemini --resume {SID}"),
    );
    p.exp_eof().unwrap();
    assert!(
        matches!(status(&p), WaitStatus::Exited(_, 0)),
        "same pid after the restart"
    );
    assert_eq!(
        s.events(),
        ["SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd"]
    );
    assert_eq!(s.payloads()[3]["reason"], "exit");
    assert_eq!(s.recorded(2), b"/quit");
}

#[test]
fn dont_trust_goes_on_untrusted_and_esc_exits_130() {
    let s = Sandbox::new("notrust").settings(true, &["SessionStart"]);
    let mut p = spawn(&s, r#"{"turns":[{"reply":"x"}]}"#, &["-y"]);
    exp(&mut p, "│ ● 1. Trust folder (proj)");
    step(&mut p, "\x1b[B", "│ ● 2. Trust parent folder (work)");
    step(&mut p, "\x1b[B\r", " Shift+Tab to accept edits");
    exp(&mut p, IDLE);
    assert_eq!(s.trust_level(), "DO_NOT_TRUST");
    assert_eq!(s.events_after(1), ["SessionStart"]);
    p.send_control('c').unwrap();
    p.send_control('c').unwrap();
    exp(&mut p, "Agent powering down. Goodbye!");
    p.exp_eof().unwrap();

    let s = Sandbox::new("esc").settings(true, &[]).trusted();
    let mut p = spawn(&s, r#"{"startup":{"trust_dialog":true}}"#, &[]);
    exp(&mut p, "Do you trust the files in this folder?");
    step(
        &mut p,
        "\x1b",
        "A folder trust level must be selected to continue. Exiting since escape was pressed.",
    );
    p.exp_eof().unwrap();
    assert!(matches!(status(&p), WaitStatus::Exited(_, 130)));
}

#[test]
fn without_auth_the_auth_dialog_stays() {
    let s = Sandbox::new("auth")
        .settings(false, &["SessionStart"])
        .trusted();
    let mut p = spawn(&s, "{}", &[]);
    exp(
        &mut p,
        "How would you like to authenticate for this project?",
    );
    exp(&mut p, "│   ● 1. Sign in with Google");
    step(&mut p, "\x1b[B", "│   ● 2. Use Gemini API Key");
    send(&mut p, "\r");
    ctrl_c_twice(&mut p);
    assert!(matches!(status(&p), WaitStatus::Exited(_, 0)));
    assert!(s.events().is_empty());

    let s = ready("signin", &[]);
    let mut p = spawn(&s, r#"{"startup":{"sign_in":true}}"#, &[]);
    exp(&mut p, "No authentication method selected.");
    p.process_mut().kill(Signal::SIGKILL).unwrap();
}

#[test]
fn pastes_collapse_and_arrive_byte_exact() {
    let s = ready("paste", &["BeforeAgent"]);
    let mut p = spawn(&s, "{}", &[]);
    exp(&mut p, IDLE);
    let pasted: String = (1..=30)
        .map(|i| format!("line {i}\r\n"))
        .collect::<String>()
        + "ünï 🙂\tend";
    step(
        &mut p,
        &format!("\x1b[200~{pasted}\x1b[201~"),
        " Press Ctrl+O to expand pasted text",
    );
    exp(&mut p, " > [Pasted Text: 31 lines]");
    step(
        &mut p,
        &format!("\x1b[200~{pasted}\x1b[201~"),
        " > [Pasted Text: 31 lines][Pasted Text: 31 lines #2]",
    );
    // An Enter within 40 ms of a paste would be a newline (see the test below).
    std::thread::sleep(std::time::Duration::from_millis(60));
    step(&mut p, " tail\r", "✦ Response to: line 1");
    let want = format!("{pasted}{pasted} tail");
    assert_eq!(s.recorded(1), want.as_bytes());
    assert_eq!(s.events_after(1), ["BeforeAgent"]);
    assert_eq!(s.payloads()[0]["prompt"], want.as_str());
    assert_eq!(s.chat_records()[0]["content"][0]["text"], want.as_str());
    step(&mut p, "\x1b[200~short\npaste\x1b[201~", "   paste");
    p.send_control('c').unwrap();
    exp(&mut p, IDLE);
    // Still within 40 ms of that paste, the Enter would be a newline: a fast run got there.
    std::thread::sleep(std::time::Duration::from_millis(60));
    step(&mut p, "x\r", "✦ Response to: x");
    assert_eq!(s.recorded(2), b"x", "Ctrl+C cleared the composer");
}

#[test]
fn the_tool_confirmation_waits_then_runs() {
    let s = ready(
        "perm",
        &[
            "BeforeAgent",
            "BeforeTool",
            "Notification",
            "AfterTool",
            "AfterAgent",
        ],
    );
    let scenario = r#"{"turns":[{"reply":"The command printed hi.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi","description":"Print a greeting"}}}}]}"#;
    let mut p = spawn(&s, scenario, &[]);
    exp(&mut p, IDLE);
    step(&mut p, "Please RUN_TOOL now\r", "│ ? Shell  echo hi");
    exp(&mut p, "│ Allow execution of [Shell]?");
    exp(&mut p, "│ ● 1. Allow once");
    exp(&mut p, "│   3. No, suggest changes (esc)");
    assert_eq!(
        s.events_after(3),
        ["BeforeAgent", "BeforeTool", "Notification"]
    );
    let note = &s.payloads()[2];
    assert_eq!(note["notification_type"], "ToolPermission");
    assert_eq!(
        note["message"],
        "Tool Confirm Shell Command requires execution"
    );
    assert_eq!(note["details"]["rootCommand"], "echo");
    step(&mut p, "1", "│ ✓  Shell echo hi");
    exp(&mut p, "✦ The command printed hi.");
    exp(&mut p, IDLE);
    assert_eq!(s.events_after(5)[3..], ["AfterTool", "AfterAgent"]);
    assert_eq!(
        s.payloads()[4]["prompt_response"],
        "The command printed hi."
    );
    let types: Vec<String> = s
        .chat_records()
        .iter()
        .map(|r| r["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(types, ["user", "gemini", "user", "gemini"]);
    assert_eq!(s.chat_records()[1]["toolCalls"][0]["status"], "success");
}

#[test]
fn yolo_skips_the_confirmation_and_refusing_cancels() {
    let s = ready("yolo", &["Notification", "AfterAgent"]);
    let scenario = r#"{"turns":[{"reply":"ran","end":{"permission":{"tool":"Bash","input":{"command":"echo yo"}}}},
        {"reply":"never","end":{"permission":{"tool":"Bash","input":{"command":"rm -rf build"}}}}]}"#;
    let mut p = spawn(&s, scenario, &["--approval-mode", "yolo"]);
    exp(&mut p, " YOLO Ctrl+Y");
    step(&mut p, "go\r", "│ ✓  Shell echo yo");
    exp(&mut p, "✦ ran");
    assert_eq!(s.events_after(1), ["AfterAgent"]);
    ctrl_c_twice(&mut p);

    // Esc on the confirmation (gemini 0.61.0, rec-out gemini-esc.md): no hook at all, the
    // call cancelled, `ℹ Request cancelled.`, the chat's `info`, and the prompt is ready.
    let s = ready(
        "refuse",
        &["BeforeAgent", "AfterTool", "AfterAgent", "Notification"],
    );
    let mut p = spawn(&s, scenario, &[]);
    exp(&mut p, IDLE);
    step(&mut p, "first\r", "│ ● 1. Allow once");
    step(&mut p, "1", "✦ ran");
    exp(&mut p, IDLE);
    step(&mut p, "second\r", "│ ? Shell  rm -rf build");
    assert_eq!(s.events_after(6).len(), 6);
    step(&mut p, "\x1b", "│ -  Shell rm -rf build");
    exp(&mut p, "ℹ Request cancelled.");
    exp(&mut p, IDLE);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        s.events()[4..],
        ["BeforeAgent", "Notification"],
        "nothing after the refusal"
    );
    let lines = read_jsonl(&s.chat());
    let info = lines.iter().rev().find(|r| r["type"] == "info").unwrap();
    assert_eq!(info["content"], "Request cancelled.");
    step(&mut p, "third\r", "✦ Response to: third");
    assert_eq!(s.events_after(8)[6..], ["BeforeAgent", "AfterAgent"]);
}

#[test]
fn an_enter_right_after_a_paste_is_a_newline_and_one_later_submits() {
    let s = ready("pasteenter", &["BeforeAgent"]);
    let mut p = spawn(&s, "{}", &[]);
    exp(&mut p, IDLE);
    send(&mut p, "\x1b[200~pasted\x1b[201~\r");
    exp(&mut p, " > pasted");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        s.events_after(0).is_empty(),
        "the first Enter did not submit"
    );
    step(&mut p, "\r", "✦ Response to: pasted");
}

#[test]
fn esc_after_streamed_text_fires_after_agent_with_that_text() {
    let s = ready("partial", &["BeforeAgent", "AfterAgent"]);
    let scenario = r#"{"turns":[{"reply":"Thinking slowly... ","end":"wedge"}]}"#;
    let mut p = spawn(&s, scenario, &[]);
    exp(&mut p, IDLE);
    step(&mut p, "long task\r", "✦ Thinking slowly...");
    step(&mut p, "\x1b", "ℹ Request cancelled.");
    exp(&mut p, "? for shortcuts");
    assert_eq!(s.events_after(2), ["BeforeAgent", "AfterAgent"]);
    assert_eq!(s.payloads()[1]["prompt_response"], "Thinking slowly... ");
    let records = read_jsonl(&s.chat());
    assert!(
        records.iter().all(|r| r["type"] != "gemini"),
        "no gemini record keeps the partial text"
    );
}

#[test]
fn esc_cancels_a_running_turn_and_after_agent_still_fires() {
    let s = ready("cancel", &["BeforeAgent", "AfterAgent"]);
    // Nothing streamed yet: `[no response text]` (the test below streams first).
    let scenario = r#"{"turns":[{"match":"hang","delay_ms":60000}]}"#;
    let mut p = spawn(&s, scenario, &[]);
    exp(&mut p, IDLE);
    step(&mut p, "please hang\r", "Thinking... (esc to cancel, 0s)");
    step(&mut p, "\x1b", "ℹ Request cancelled.");
    exp(&mut p, "? for shortcuts");
    assert_eq!(s.events_after(2), ["BeforeAgent", "AfterAgent"]);
    assert_eq!(s.payloads()[1]["prompt_response"], "[no response text]");
    let lines = read_jsonl(&s.chat());
    assert_eq!(lines[lines.len() - 3]["content"], "Request cancelled.");
    assert!(
        lines.last().unwrap()["$set"]["messages"].is_array(),
        "history rewritten"
    );
}

#[test]
fn an_api_error_shows_both_lines_and_fires_after_agent() {
    let s = ready("apierr", &["AfterAgent"]);
    let scenario = r#"{"turns":[{"end":{"api_error":{"status":400,"message":"fake bad request for probing"}}}]}"#;
    let mut p = spawn(&s, scenario, &[]);
    exp(&mut p, IDLE);
    step(
        &mut p,
        "Please BADREQ now\r",
        r#"✕ [API Error: {"error":{"code":400,"message":"fake bad request for probing","status":"INVALID_ARGUMENT"}}]"#,
    );
    exp(
        &mut p,
        "ℹ This request failed. Press F12 for diagnostics, or run /settings and change \"Error Verbosity\" to full for full",
    );
    exp(&mut p, "? for shortcuts");
    assert_eq!(s.events_after(1), ["AfterAgent"]);
    assert_eq!(s.payloads()[0]["prompt_response"], "[no response text]");
}

#[test]
fn a_positional_query_runs_at_startup_and_signal_ends_kill() {
    let s = ready("query", &["BeforeAgent"]);
    let mut p = spawn(
        &s,
        r#"{"turns":[{"reply":"first"},{"end":{"signal":"KILL"}}]}"#,
        &["hello there"],
    );
    exp(&mut p, " > hello there");
    exp(&mut p, "✦ first");
    assert_eq!(s.events_after(1), ["BeforeAgent"]);
    send(&mut p, "die\r");
    p.exp_eof().unwrap();
    assert!(matches!(
        status(&p),
        WaitStatus::Signaled(_, Signal::SIGKILL, _)
    ));
}

#[test]
fn shift_tab_cycles_default_auto_edit_plan_and_back() {
    // Recorded: tests/data/gemini/gemini-0.61.0-mode-{default,auto_edit,plan}.txt.
    let s = ready("modes", &[]);
    let mut p = spawn(&s, "{}", &[]);
    exp(&mut p, " Shift+Tab to accept edits");
    exp(&mut p, IDLE);
    step(&mut p, SHIFT_TAB, " auto-accept edits Shift+Tab to plan");
    step(&mut p, SHIFT_TAB, " plan Shift+Tab to manual");
    step(&mut p, SHIFT_TAB, " Shift+Tab to accept edits");
    exp(&mut p, IDLE);
    ctrl_c_twice(&mut p);
}

#[test]
fn shift_tab_from_yolo_goes_to_default_where_tools_ask_again() {
    let s = ready("yolotab", &["Notification", "AfterAgent"]);
    let scenario = r#"{"turns":[{"reply":"ran","end":{"permission":{"tool":"Bash","input":{"command":"echo yo"}}}}]}"#;
    let mut p = spawn(&s, scenario, &["--approval-mode", "yolo"]);
    exp(&mut p, " YOLO Ctrl+Y");
    exp(&mut p, " *   Type your message");
    step(&mut p, SHIFT_TAB, " Shift+Tab to accept edits");
    exp(&mut p, IDLE);
    step(&mut p, "go\r", "│ ● 1. Allow once");
    assert_eq!(
        s.events_after(1),
        ["Notification"],
        "asked, as default does"
    );
    step(&mut p, "1", "✦ ran");
    exp(&mut p, IDLE);
    assert_eq!(s.events_after(2), ["Notification", "AfterAgent"]);
    ctrl_c_twice(&mut p);
}
