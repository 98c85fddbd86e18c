//! The send verdict (docs/outcomes.md, "How a send ends"): a delivered prompt says which record
//! of the CLI proved the submit; every failed one says whether its text reached the composer,
//! and umbel empties the composer again unless a dialog covers it. fake-codex plays the failures
//! after the paste (`swallow_enters` and what a swallowed Enter does). The success on each CLI
//! runs on both tiers (tiers.rs `send_json_carries_the_verdict`).

use crate::harness::*;
use rustix::process::Signal;
use serde_json::{Value, json};

/// A codex worker whose next paste gets `swallow` Enters swallowed, and `then` for them.
fn swallowing(sb: &Sandbox, name: &str, swallow: u32, then: Value) {
    let mut startup = json!({ "swallow_enters": swallow });
    if let (Some(startup), Some(then)) = (startup.as_object_mut(), then.as_object()) {
        startup.extend(then.clone());
    }
    sb.spawn_playing(
        name,
        json!({ "startup": startup }),
        &["--provider", "codex", "--env", &sb.record_env()],
    );
}

/// The `--json` error of a failed send, checked for its exit code and composer fields.
fn failed(sb: &Sandbox, name: &str, prompt: &str, exit: i32) -> Value {
    let out = sb
        .umbel(["send", name, prompt, "--json"])
        .status(exit)
        .json();
    out["error"].clone()
}

fn screen(sb: &Sandbox, name: &str) -> String {
    sb.umbel(["capture", name]).success().stdout()
}

#[test]
fn a_prompt_never_submitted_is_cleared_from_the_composer() {
    let sb = Sandbox::new();
    swallowing(&sb, "n", 9, json!({}));
    let error = failed(&sb, "n", "zebra never submitted", 1);
    assert_eq!(error["code"], "not_submitted", "{error}");
    assert_eq!(error["textReachedComposer"], true, "{error}");
    assert_eq!(error["composerCleared"], true, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("umbel cleared it"),
        "{error}"
    );
    assert!(!screen(&sb, "n").contains("zebra"), "{}", screen(&sb, "n"));
    assert!(sb.received().is_empty());
}

#[test]
fn a_cli_dying_mid_send_is_dead_and_leaves_nothing() {
    let sb = Sandbox::new();
    swallowing(&sb, "d", 3, json!({ "swallowed_enter_exits": 7 }));
    let error = failed(&sb, "d", "zebra dying", 125);
    assert_eq!(error["code"], "dead", "{error}");
    assert_eq!(error["textReachedComposer"], true, "{error}");
    assert_eq!(error["composerCleared"], true, "{error}");
    assert!(sb.received().is_empty());
}

#[test]
fn a_dialog_opening_mid_send_gets_no_enter_and_is_126() {
    let sb = Sandbox::new();
    swallowing(
        &sb,
        "g",
        3,
        json!({ "swallowed_enter_dialog": "Let the zebra through?" }),
    );
    let error = failed(&sb, "g", "zebra under a dialog", 126);
    assert_eq!(error["code"], "dialog", "{error}");
    assert_eq!(error["dialog"], "Let the zebra through?", "{error}");
    assert_eq!(error["textReachedComposer"], true, "{error}");
    assert_eq!(error["composerCleared"], false, "{error}");
    // No Enter answered it: the dialog is still open, nothing was submitted.
    assert!(screen(&sb, "g").contains("Let the zebra through?"));
    assert!(sb.received().is_empty());
}

#[test]
fn a_signal_mid_send_clears_the_composer_and_exits_130() {
    let sb = Sandbox::new();
    swallowing(&sb, "s", 9, json!({}));
    let pause = Pause::new(&sb, "send-entered");
    let running = pause
        .on(sb.umbel(["send", "s", "zebra signalled", "--json"]))
        .start();
    // The paste and the first Enter are in (and swallowed): the signal comes now.
    pause.reached();
    running.signal(Signal::TERM);
    pause.release();
    let out = running.status(130);
    let error = &out.json()["error"];
    assert_eq!(error["code"], "interrupted", "{error}");
    assert_eq!(error["textReachedComposer"], true, "{error}");
    assert_eq!(error["composerCleared"], true, "{error}");
    assert!(!screen(&sb, "s").contains("zebra"), "{}", screen(&sb, "s"));
    assert!(sb.received().is_empty());
}

#[test]
fn a_send_refused_before_its_paste_says_nothing_was_typed() {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "b",
        json!({ "turns": [{ "reply": "slow", "delay_ms": 5000 }] }),
        &["--env", &sb.record_env()],
    );
    sb.umbel(["send", "b", "long task"]).success();
    let error = failed(&sb, "b", "zebra refused", 1);
    assert_eq!(error["code"], "busy", "{error}");
    assert_eq!(error["textReachedComposer"], false, "{error}");
    assert!(error.get("composerCleared").is_none(), "{error}");
    let refused = sb
        .umbel([
            "send",
            "b",
            "zebra refused",
            "--schema",
            "no-such-schema.json",
        ])
        .run();
    assert_ne!(refused.status.code(), Some(0));
    assert!(
        refused.stderr().contains("nothing was typed"),
        "{}",
        refused.stderr()
    );
    assert_eq!(sb.received(), [b"long task".to_vec()]);
}

#[test]
fn a_queued_send_says_how_long_it_waited() {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "q",
        json!({ "turns": [{ "match": "long", "reply": "slow", "delay_ms": 1500 }] }),
        &["--env", &sb.record_env()],
    );
    sb.umbel(["send", "q", "long task"]).success();
    let sent = sb
        .umbel(["send", "q", "next", "--queue", "--json"])
        .success()
        .json();
    assert_eq!(sent["submitted"], true, "{sent}");
    assert!(sent["queuedMs"].as_u64().unwrap() >= 500, "{sent}");
}
