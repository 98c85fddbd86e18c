//! The scenario ends that leave a turn waiting for a person, in a
//! pseudo-terminal (no tmux): `sign_in` (each fake loses its session mid-turn
//! and shows its startup sign-in screen) and fake-claude's `question`.

mod common;

use std::time::Duration;

use common::pty::{ctrl_c_twice, exit_code, exp, send, spawn, step};
use common::{Sim, read_jsonl};

const SIGN_IN: &str = r#"{"turns":[{"reply":"Half an answer","delay_ms":20,"end":"sign_in"}]}"#;

#[test]
fn claude_loses_its_session_and_shows_the_onboarding_screen() {
    let s = common::claude::Sandbox::new("mid-signin").signed_in(true);
    let settings = s.settings(&["UserPromptSubmit", "Stop", "StopFailure", "SessionEnd"]);
    let mut p = spawn(&s, SIGN_IN, &["--settings", &settings]);
    exp(&mut p, "? for shortcuts");
    step(
        &mut p,
        "go\r",
        "Choose the text style that looks best with your terminal",
    );
    send(&mut p, "1\r\x1b");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(s.events(), ["UserPromptSubmit"], "no end-of-turn hook");
    ctrl_c_twice(&mut p);
    assert_eq!(exit_code(&p), Some(0));
}

#[test]
fn claude_question_fires_the_elicitation_notification_and_esc_cancels_it() {
    let s = common::claude::Sandbox::new("question").signed_in(true);
    let settings = s.settings(&["UserPromptSubmit", "Notification", "Stop"]);
    let scenario = r#"{"turns":[{"reply":"Let me ask.","end":{"question":{"text":"Which branch should I use?"}}}]}"#;
    let mut p = spawn(&s, scenario, &["--settings", &settings]);
    exp(&mut p, "? for shortcuts");
    step(&mut p, "pick\r", "● Let me ask.");
    exp(&mut p, "Which branch should I use?");
    exp(&mut p, "Esc to cancel");
    send(&mut p, "1\r");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(s.events(), ["UserPromptSubmit", "Notification"]);
    let note = &s.payloads()[1];
    assert_eq!(note["notification_type"], "elicitation_dialog");
    assert_eq!(note["message"], "Which branch should I use?");
    assert_eq!(note["prompt_id"], s.payloads()[0]["prompt_id"]);
    step(
        &mut p,
        "\x1b",
        "Interrupted · What should Claude do instead?",
    );
    exp(&mut p, "? for shortcuts");
    assert_eq!(s.events(), ["UserPromptSubmit", "Notification"], "no Stop");
    let last = read_jsonl(&s.transcript()).pop().unwrap();
    assert_eq!(
        last["message"]["content"][0]["text"],
        "[Request interrupted by user]"
    );
}

#[test]
fn codex_loses_its_session_and_shows_the_login_screen() {
    let s = common::codex::Sandbox::new("mid-login").hooks(&["UserPromptSubmit", "Stop"]);
    let mut p = spawn(
        &s,
        SIGN_IN,
        &["--no-daemon", "--dangerously-bypass-hook-trust"],
    );
    exp(&mut p, "› Ask Codex to do anything");
    step(&mut p, "go\r", "> 1. Sign in with ChatGPT");
    send(&mut p, "\r");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(s.events(), ["UserPromptSubmit"], "no end-of-turn hook");
    send(&mut p, "\x03");
    p.exp_eof().unwrap();
    assert_eq!(exit_code(&p), Some(1));
}

#[test]
fn gemini_loses_its_session_and_shows_the_auth_box() {
    let s = common::gemini::ready("mid-auth", &["BeforeAgent", "AfterAgent"]);
    let mut p = spawn(&s, SIGN_IN, &[]);
    exp(&mut p, "? for shortcuts");
    step(&mut p, "go\r", "✦ Half an answer");
    exp(
        &mut p,
        "How would you like to authenticate for this project?",
    );
    exp(&mut p, "│   ● 1. Sign in with Google");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(s.events(), ["BeforeAgent"], "no AfterAgent");
    ctrl_c_twice(&mut p);
    assert_eq!(exit_code(&p), Some(0));
}

#[test]
fn print_modes_end_a_lost_session_as_a_startup_without_one() {
    let s = common::claude::Sandbox::new("mid-print").signed_in(true);
    let (code, out, _) = common::run(
        s.cmd()
            .args(["-p", "go"])
            .env("UMBEL_SIM_SCENARIO", SIGN_IN),
    );
    assert_eq!(
        (code, out.as_str()),
        (1, "Invalid API key · Please run /login\n")
    );

    let s = common::codex::Sandbox::new("mid-exec");
    let args = ["exec", "--skip-git-repo-check", "go"];
    let (code, _, err) = common::run(&mut s.scripted(SIGN_IN, &args));
    assert_eq!(code, 1);
    assert!(err.contains("Not signed in. Run `codex login`"), "{err}");

    let s = common::gemini::ready("mid-headless", &["AfterAgent"]);
    let (code, _, err) = common::run(
        s.cmd()
            .args(["-p", "go"])
            .env("UMBEL_SIM_SCENARIO", SIGN_IN),
    );
    assert_eq!(
        (code, err.as_str()),
        (41, "Invalid auth method selected.\n")
    );
    assert!(s.events().is_empty(), "no AfterAgent");
}
