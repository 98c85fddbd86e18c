//! Startup: dialogs passed safely, sign-in refused, bad input refused before anything exists.

use crate::harness::*;
use serde_json::{Value, json};

#[test]
fn the_trust_dialog_is_answered_yes_explicitly() {
    let sb = Sandbox::untrusted();
    sb.spawn("t1", &[]);
    let config: Value =
        serde_json::from_slice(&std::fs::read(sb.home.join(".claude.json")).unwrap()).unwrap();
    let key = sb.project.to_string_lossy().into_owned();
    assert_eq!(
        config["projects"][key.as_str()]["hasTrustDialogAccepted"],
        true
    );
    assert_eq!(
        config["hasCompletedOnboarding"], true,
        "other keys preserved"
    );
    assert_success(&sb.run(&["send", "t1", "hi"]), "send after trust");
    assert_success(&sb.run(&["wait", "t1"]), "wait after trust");
}

#[test]
fn a_sign_in_screen_is_refused_with_126_and_leaves_nothing() {
    let sb = Sandbox::bare();
    let out = sb.run(&["spawn", "--name", "s1"]);
    assert_eq!(out.status.code(), Some(126), "{}", stderr(&out));
    assert!(stderr(&out).contains("not signed in"), "{}", stderr(&out));
    assert!(sb.worker_dirs().is_empty());
    assert!(sb.ls().is_empty());

    let sb = Sandbox::new();
    let scenario = sb.scenario("s", json!({ "startup": { "sign_in": true } }));
    let out = sb.run(&["spawn", "--name", "s2", "--env", &scenario]);
    assert_eq!(out.status.code(), Some(126), "{}", stderr(&out));
    assert!(sb.worker_dirs().is_empty());
}

#[test]
fn bad_input_is_refused_before_anything_is_created() {
    let sb = Sandbox::new();
    for (args, needle) in [
        (vec!["spawn", "--name", "Bad/Name"], "invalid worker name"),
        (
            vec!["spawn", "--name", "ok", "--cwd", "/does/not/exist"],
            "--cwd",
        ),
        (
            vec!["spawn", "--name", "ok", "--env", "NOT_SET_ANYWHERE"],
            "NOT_SET_ANYWHERE",
        ),
        (
            vec!["spawn", "--name", "ok", "--env", "=x"],
            "not a valid variable name",
        ),
        (
            vec!["spawn", "--name", "ok", "--startup-timeout", "soon"],
            "--startup-timeout",
        ),
        (vec!["spawn", "--provider", "nope"], "nope"),
    ] {
        let out = sb.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
    assert!(sb.worker_dirs().is_empty());
}

#[test]
fn a_missing_binary_is_a_clear_error() {
    let mut sb = Sandbox::new();
    sb.var("UMBEL_CLAUDE_BIN", "/nonexistent/claude");
    let out = sb.run(&["spawn", "--name", "nb"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("UMBEL_CLAUDE_BIN"),
        "{}",
        stderr(&out)
    );
    assert!(sb.worker_dirs().is_empty());
}

#[test]
fn a_cli_that_dies_at_startup_is_reported_with_its_status() {
    let sb = Sandbox::new();
    // The fake refuses a scenario with an unknown field and exits 1 before drawing anything.
    let scenario = sb.scenario(
        "s",
        json!({ "startup": { "delay_ms": 0 }, "bogus_field": 1 }),
    );
    let out = sb.run(&["spawn", "--name", "d1", "--env", &scenario]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("did not start"), "{}", stderr(&out));
    assert!(sb.worker_dirs().is_empty());
}
