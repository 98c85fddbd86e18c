//! Turns nobody sent: the CLI opens a turn by itself after its `Stop` (claude's background tasks
//! waking the model), played by the fakes' `then_self`. The worker shows `busy` with
//! `origin: cli`, `wait` without `--since` waits for that turn's end, and `read` returns its
//! answer.

use crate::harness::*;
use serde_json::json;
use std::time::Duration;

fn status(sb: &Sandbox, name: &str) -> serde_json::Value {
    sb.umbel(["status", name, "--json"]).success().json()
}

#[test]
fn a_turn_claude_opens_by_itself_is_busy_origin_cli_and_wait_returns_its_end() {
    self_turn("claude");
}

#[test]
fn a_turn_codex_opens_by_itself_is_busy_origin_cli_and_wait_returns_its_end() {
    self_turn("codex");
}

#[test]
fn a_turn_gemini_opens_by_itself_is_busy_origin_cli_and_wait_returns_its_end() {
    self_turn("gemini");
}

fn self_turn(provider: &str) {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "s",
        json!({ "turns": [
            { "match": "start the task", "reply": "Started it in the background.",
              "then_self": { "after_ms": 300, "prompt": "<task-notification> background task done" } },
            { "match": "background task done", "reply": "The background task finished.", "delay_ms": 2000 },
            { "match": "next", "reply": "Next done.", "delay_ms": 1500 }
        ] }),
        &["--provider", provider],
    );
    sb.turn("s", "start the task").success();
    let mut seen = serde_json::Value::Null;
    let busy_cli = eventually(Duration::from_secs(10), || {
        seen = status(&sb, "s");
        seen["state"] == "busy"
    });
    assert!(busy_cli, "never busy: {seen}");
    assert_eq!(seen["origin"], "cli", "{seen}");
    let out = sb.cmd("wait s --json").success().json();
    assert_eq!(out["outcome"], "stop", "{out}");
    sb.umbel(["read", "s"])
        .stdout("The background task finished.\n")
        .success();
    let idle = status(&sb, "s");
    assert!(idle.get("origin").is_none(), "{idle}");
    // A turn umbel sent has no origin.
    sb.umbel(["send", "s", "next"]).success();
    let sent = status(&sb, "s");
    assert_eq!(sent["state"], "busy", "{sent}");
    assert!(sent.get("origin").is_none(), "{sent}");
}
