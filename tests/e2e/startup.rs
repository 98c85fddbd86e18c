//! Startup: dialogs passed safely, sign-in refused, bad input refused before anything exists.

use crate::each_provider;
use crate::harness::*;
use serde_json::{Value, json};

each_provider!(
    a_forced_trust_dialog_is_answered,
    a_sign_in_screen_is_refused_with_126_and_leaves_nothing
);

#[test]
fn the_claude_trust_dialog_is_answered_yes_explicitly() {
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
    sb.turn("t1", "hi").success();
}

fn a_forced_trust_dialog_is_answered(provider: &str) {
    let sb = Sandbox::new();
    let script = json!({ "startup": { "trust_dialog": true } });
    sb.spawn_playing("t2", script, &["--provider", provider]);
    sb.turn("t2", "hi").success();
}

/// A claude starved of CPU takes keys seconds late: umbel waits for each answer to show before
/// it reads the dialog again, rather than pressing Down again on a screen that has not redrawn
/// yet (six unanswered presses used to end the startup, and a second Down could move past the
/// option or confirm a stale choice).
#[test]
fn a_trust_dialog_that_reacts_late_is_answered_once_per_step() {
    let sb = Sandbox::new();
    let script = json!({ "startup": { "trust_dialog": true, "key_lag_ms": 1500 } });
    sb.spawn_playing("t3", script, &["--provider", "claude"]);
    sb.turn("t3", "hi").success();
}

/// Gemini's yolo mode marks its composer ` *`, and 24-bit colour draws its frame with `▄▄▄`/`▀▀▀`:
/// neither may keep umbel from seeing the idle prompt (the real 0.61.0 did, once).
#[test]
fn gemini_is_ready_in_yolo_mode_and_in_true_colour() {
    for (colorterm, unattended) in [("truecolor", false), ("truecolor", true), ("", true)] {
        let mut sb = Sandbox::new();
        sb.var("COLORTERM", colorterm);
        let mut args = vec!["--provider", "gemini", "--env", "COLORTERM"];
        if unattended {
            args.push("--unattended");
        }
        sb.spawn("g1", &args);
        let sent = sb.umbel(["send", "g1", "Say hello"]).success();
        sb.umbel(["wait", "g1", "--since", &sent.line()]).success();
        let screen = sb.umbel(["capture", "g1"]).run().stdout();
        let (frame, mark) = (
            colorterm == "truecolor",
            if unattended { " *" } else { " >" },
        );
        assert_eq!(screen.contains("▀▀▀▀▀▀"), frame, "{screen}");
        assert!(
            screen.contains(&format!("{mark}   Type your message")),
            "{screen}"
        );
    }
}

#[test]
fn the_codex_hook_review_is_answered_trust_all() {
    let sb = Sandbox::new();
    let script = json!({ "startup": { "hook_review": true } });
    sb.spawn_playing("hr", script, &["--provider", "codex"]);
    sb.turn("hr", "hi").success();
}

/// codex 0.171.0 draws its composer before its session is configured (no `model · folder`
/// status line yet; a prompt submitted then waits for it): a spawn is ready only once it is,
/// so the first send is taken by the first Enter.
#[test]
fn codex_is_ready_once_its_session_is_configured_not_when_its_composer_shows() {
    let sb = Sandbox::new();
    let script = json!({ "startup": { "configure_ms": 1500 } });
    sb.spawn_playing("cf", script, &["--provider", "codex"]);
    let screen = sb.umbel(["capture", "cf"]).run().stdout();
    assert!(screen.contains(" default · "), "{screen}");
    let sent = sb.umbel(["send", "cf", "--json", "hi"]).json();
    assert_eq!(sent["enters"], 1, "{sent}");
    sb.cmd("wait cf --timeout 60s").success();
}

/// copilot applies `--deny-tool`/`--allow-all` seconds after its input line shows (its
/// permission seeding, up to 5 s; the fake plays a minute of it so
/// that every tool here is asked for before): umbel calls it ready at that line, so its
/// `permissionRequest` hook must decide a tool asked for meanwhile as the flags would — `-p`
/// refuses it and the turn goes on, `--on-permission allow` runs it, neither meets the dialog.
#[test]
fn copilot_decides_a_tool_by_hook_before_it_applies_its_permission_flags() {
    let sb = Sandbox::new();
    let input = json!({ "command": "echo hi > umbel-tool.txt", "description": "Write hi" });
    let scenario = json!({
        "startup": { "configure_ms": 60000 },
        "default": { "reply": "It printed hi.", "end": { "permission": { "tool": "Bash", "input": input } } }
    });
    let env = sb.scenario("seeding", scenario.clone());
    // A dialog would be a wait for a person: 126.
    sb.umbel(["-p", "run the tool", "--provider", "copilot", "--env", &env])
        .stdout("It printed hi.\n")
        .success();
    sb.spawn_playing(
        "al",
        scenario,
        &["--provider", "copilot", "--on-permission", "allow"],
    );
    let done = sb.turn_outcome("al", "run the tool", 0);
    assert_eq!(done["outcome"], "stop", "{done}");
    let status = sb.umbel(["status", "al", "--json"]).json();
    let log = std::fs::read_to_string(status["transcriptPath"].as_str().unwrap()).unwrap();
    let ran = log.lines().any(|l| {
        l.contains(r#""type":"tool.execution_complete""#) && l.contains(r#""success":true"#)
    });
    assert!(ran, "the tool ran: {log}");
}

#[test]
fn codex_and_gemini_homes_are_private_and_leave_the_users_config_alone() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.home.join(".codex")).unwrap();
    sb.write(sb.home.join(".codex/config.toml"), "model = \"gpt-user\"\n");
    sb.write(sb.home.join(".codex/auth.json"), "{}");
    sb.spawn("cx", &["--provider", "codex"]);
    assert_eq!(
        std::fs::read_to_string(sb.home.join(".codex/config.toml")).unwrap(),
        "model = \"gpt-user\"\n"
    );
    let home = sb.session_dir("cx").join("codex-home");
    assert!(
        std::fs::read_to_string(home.join("config.toml"))
            .unwrap()
            .starts_with("model = \"gpt-user\"")
    );
    assert!(home.join("auth.json").is_symlink());
    sb.spawn("gm", &["--provider", "gemini"]);
    assert!(
        !sb.home.join(".gemini/settings.json").exists(),
        "the user's gemini settings are not created"
    );
    assert!(
        sb.session_dir("gm")
            .join("gemini-home/.gemini/settings.json")
            .exists()
    );
}

fn a_sign_in_screen_is_refused_with_126_and_leaves_nothing(provider: &str) {
    if provider == "opencode" {
        // Not applicable: opencode has no sign-in screen. Without a provider it starts on its
        // prompt all the same and each turn fails (`session.error`, 122: see
        // outcomes::person's lost session); `umbel doctor`'s opencode-sign-in check says so
        // before a spawn.
        return;
    }
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", json!({ "startup": { "sign_in": true } }));
    sb.umbel([
        "spawn",
        "--name",
        "s2",
        "--provider",
        provider,
        "--env",
        &scenario,
    ])
    .stderr_has("not signed in")
    .status(126);
    assert!(sb.worker_dirs().is_empty());
    assert!(sb.ls().is_empty());
}

#[test]
fn claude_without_onboarding_is_refused_as_not_signed_in() {
    let sb = Sandbox::bare();
    sb.umbel(["spawn", "--name", "s1"]).status(126);
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
        sb.umbel(&args).stderr_has(needle).status(2);
    }
    assert!(sb.worker_dirs().is_empty());
}

#[test]
fn a_missing_binary_is_a_clear_error() {
    let sb = Sandbox::new();
    sb.umbel(["spawn", "--name", "nb"])
        .env("UMBEL_CLAUDE_BIN", "/nonexistent/claude")
        .stderr_has("UMBEL_CLAUDE_BIN")
        .status(1);
    assert!(sb.worker_dirs().is_empty());
}

/// Spawns `w` playing `scenario` (with `extra` arguments), which must fail with exit 1 naming
/// `needle`, leaving no worker folder behind.
fn spawn_fails(sb: &Sandbox, scenario: serde_json::Value, extra: &[&str], needle: &str) {
    let scenario = sb.scenario("s", scenario);
    let args = [&["spawn", "--name", "w", "--env", &scenario], extra].concat();
    sb.umbel(&args).stderr_has(needle).status(1);
    assert!(sb.worker_dirs().is_empty());
}

#[test]
fn a_cli_that_dies_at_startup_is_reported_with_its_status() {
    let sb = Sandbox::new();
    // The fake refuses a scenario with an unknown field and exits 1 before drawing anything.
    let scenario = json!({ "startup": { "delay_ms": 0 }, "bogus_field": 1 });
    spawn_fails(&sb, scenario, &[], "did not start");
}

/// A spawn that fails after the CLI started ends its whole process group as `kill` does
/// (SIGTERM, then SIGKILL): a child that ignores the pane's hangup is not left running.
#[test]
fn a_failed_spawn_leaves_no_process_behind() {
    let sb = Sandbox::new();
    let scenario = json!({ "startup": { "stubborn_child": true, "delay_ms": 600000 } });
    spawn_fails(&sb, scenario, &["--startup-timeout", "2s"], "within 2s");
    assert_no_process_left(&sb.root, "a failed spawn");
}

/// codex asks the terminal for its colours at every start and waits 250 ms for an answer that
/// tmux gives only when the pane has colours of its own: umbel's panes have them, so the fake
/// codex (which asks as codex does) gets both answers.
#[test]
fn a_clis_colour_queries_are_answered_by_the_pane() {
    let sb = Sandbox::new();
    sb.spawn("cq", &["--provider", "codex", "--env", &sb.record_env()]);
    let answers = std::fs::read_to_string(sb.record.join("colours.txt")).expect("colours.txt");
    assert!(answers.contains("ESC]10;rgb:d0d0/d0d0/d0d0"), "{answers}");
    assert!(answers.contains("ESC]11;rgb:1c1c/1c1c/1c1c"), "{answers}");
}
