//! `umbel doctor` on the fakes: everything ok, a missing provider binary and an open state root
//! reported with what to do; it never starts a tmux server.

use crate::harness::*;
use std::os::unix::fs::PermissionsExt;

/// A sandbox whose three providers have their configuration folders.
fn configured() -> Sandbox {
    let sb = Sandbox::new();
    for dir in [".claude", ".codex", ".gemini"] {
        std::fs::create_dir_all(sb.home.join(dir)).expect("mkdir");
    }
    sb
}

fn line<'a>(text: &'a str, check: &str) -> &'a str {
    text.lines()
        .find(|l| l.split_whitespace().nth(1) == Some(check))
        .unwrap_or_else(|| panic!("no `{check}` line in:\n{text}"))
}

#[test]
fn doctor_on_the_fakes_is_all_ok_and_starts_no_server() {
    let sb = configured();
    let out = sb.umbel(["doctor"]).success();
    let text = out.stdout();
    for check in [
        "tmux",
        "socket",
        "state-root",
        "hooks",
        "claude",
        "codex",
        "gemini",
    ] {
        assert!(line(&text, check).starts_with("ok "), "{check}:\n{text}");
    }
    assert!(
        line(&text, "claude").contains("2.1.332 (supported: 2.1.246 to 2.1.332)"),
        "{text}"
    );
    assert!(
        line(&text, "codex").contains(": 0.171.0 (supported"),
        "{text}"
    );
    assert!(line(&text, "gemini").contains("0.61.0"), "{text}");
    assert!(line(&text, "socket").contains("no server yet"), "{text}");
    // Asking again finds no server either: doctor looked without starting one.
    assert!(line(&sb.umbel(["doctor"]).run().stdout(), "socket").contains("no server yet"));

    let json = sb.umbel(["doctor", "--json"]).json();
    assert_eq!(json["ok"], true, "{json}");
    sb.spawn("d1", &[]);
    let after = sb.umbel(["doctor"]).run().stdout();
    assert!(
        line(&after, "socket").contains("server running, 1 session(s)"),
        "{after}"
    );
    assert!(
        line(&after, "hooks").contains("event.sh, launch.sh"),
        "{after}"
    );
    let checks = json["checks"].as_array().expect("checks");
    assert!(checks.iter().all(|c| c["level"] != "fail"), "{json}");
}

#[test]
fn a_missing_provider_binary_is_reported_with_what_to_do() {
    let mut sb = configured();
    sb.var("UMBEL_CODEX_BIN", "/nonexistent/codex");
    // One provider missing is a warning: the others still work.
    let out = sb.umbel(["doctor"]).success();
    let codex = line(&out.stdout(), "codex").to_string();
    assert!(codex.starts_with("warn"), "{codex}");
    assert!(codex.contains("/nonexistent/codex` not found"), "{codex}");
    assert!(codex.contains("set UMBEL_CODEX_BIN"), "{codex}");

    sb.var("UMBEL_CLAUDE_BIN", "/nonexistent/claude")
        .var("UMBEL_GEMINI_BIN", "/nonexistent/gemini");
    let none = sb.umbel(["doctor"]).status(1);
    assert!(line(&none.stdout(), "claude").starts_with("fail"));
}

#[test]
fn an_open_state_root_fails_with_the_chmod_to_run() {
    let sb = configured();
    std::fs::create_dir_all(&sb.state).expect("mkdir");
    std::fs::set_permissions(&sb.state, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = sb.umbel(["doctor"]).status(1);
    let state = line(&out.stdout(), "state-root").to_string();
    assert!(state.starts_with("fail"), "{state}");
    assert!(
        state.contains(&format!("chmod 700 {}", sb.state.display())),
        "{state}"
    );
    let json = sb.umbel(["doctor", "--json"]).json();
    assert_eq!(json["ok"], false);
}

#[test]
fn a_state_root_that_cannot_be_created_is_still_reported() {
    let mut sb = configured();
    sb.var("UMBEL_STATE", "/proc/no-state-here");
    let out = sb.umbel(["doctor"]).status(1);
    let state = line(&out.stdout(), "state-root").to_string();
    assert!(state.starts_with("fail"), "{state}");
    assert!(state.contains("/proc/no-state-here"), "{state}");
    assert!(state.contains("set UMBEL_STATE"), "{state}");
}
