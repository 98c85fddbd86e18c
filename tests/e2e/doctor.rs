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

/// Doctor only looks: a state root that does not exist yet stays so, and is judged by whether
/// the first spawn could make it.
#[test]
fn doctor_creates_no_state_root() {
    let mut sb = configured();
    let fresh = sb.root.join("never-used");
    sb.var("UMBEL_STATE", fresh.to_str().expect("UTF-8"));
    let out = sb.umbel(["doctor"]).success();
    let text = out.stdout();
    assert!(
        line(&text, "state-root").contains("not created yet; the first spawn creates it"),
        "{text}"
    );
    assert!(!fresh.exists(), "doctor made {}", fresh.display());
    sb.spawn("d2", &[]);
    assert!(fresh.join("sessions/d2").is_dir());
}

#[test]
fn a_missing_provider_binary_is_reported_with_what_to_do() {
    let mut sb = configured();
    sb.var("UMBEL_CODEX_BIN", "/nonexistent/codex");
    // One provider missing is a warning: the others still work.
    let out = sb.umbel(["doctor"]).success();
    let codex = line(&out.stdout(), "codex").to_string();
    assert!(codex.starts_with("warn"), "{codex}");
    // The variable is set: the line names its value and the real cause, not "set it".
    assert!(
        codex.contains("UMBEL_CODEX_BIN=/nonexistent/codex: no such file"),
        "{codex}"
    );
    assert!(codex.contains("point UMBEL_CODEX_BIN at"), "{codex}");
    assert!(!codex.contains("not found on PATH"), "{codex}");
    // Not on PATH (an empty variable means the default name): the remedy names its npm package.
    sb.var("UMBEL_QWEN_BIN", "");
    let out = sb.umbel(["doctor"]).success();
    let qwen = line(&out.stdout(), "qwen").to_string();
    assert!(qwen.contains("`qwen` not found on PATH"), "{qwen}");
    assert!(
        qwen.contains("install qwen (`npm i -g @qwen-code/qwen-code`)"),
        "{qwen}"
    );

    // No CLI at all breaks nothing in umbel itself: warnings, one line naming what needs none
    // of them, exit 0.
    sb.var("UMBEL_CLAUDE_BIN", "/nonexistent/claude")
        .var("UMBEL_GEMINI_BIN", "/nonexistent/gemini")
        .var("UMBEL_QWEN_BIN", "/nonexistent/qwen")
        .var("UMBEL_OPENCODE_BIN", "/nonexistent/opencode")
        .var("UMBEL_COPILOT_BIN", "/nonexistent/copilot");
    let none = sb.umbel(["doctor"]).success();
    let text = none.stdout();
    assert!(line(&text, "claude").starts_with("warn"), "{text}");
    let providers = line(&text, "providers");
    assert!(providers.starts_with("warn"), "{text}");
    assert!(providers.contains("`just demo` and `just try`"), "{text}");
    assert_eq!(sb.umbel(["doctor", "--json"]).json()["ok"], true);
}

#[test]
fn a_bin_variable_naming_a_missing_file_says_so_instead_of_not_on_path() {
    let mut sb = Sandbox::new();
    sb.var("UMBEL_CLAUDE_BIN", "/nonexistent/claude");
    let err = sb.umbel(["-p", "hi"]).status(1).stderr();
    assert!(
        err.contains("UMBEL_CLAUDE_BIN=/nonexistent/claude: no such file"),
        "{err}"
    );
    assert!(!err.contains("not found on PATH"), "{err}");
    let folder = sb.project.to_string_lossy().into_owned();
    sb.var("UMBEL_CLAUDE_BIN", &folder);
    let err = sb.cmd("spawn --name b1").status(1).stderr();
    assert!(err.contains("not an executable file"), "{err}");
    assert!(sb.worker_dirs().is_empty(), "nothing is left");
}

/// The `NAME-sign-in` line of `umbel doctor` (which exits 0 whatever they say).
fn sign_in(sb: &Sandbox, provider: &str) -> String {
    let out = sb.umbel(["doctor"]).success();
    line(&out.stdout(), &format!("{provider}-sign-in")).to_string()
}

#[test]
fn a_cli_that_is_not_signed_in_or_onboarded_is_a_warning_with_its_remedy() {
    let mut sb = configured();
    // claude: the onboarding flag in ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json).
    assert!(sign_in(&sb, "claude").starts_with("ok"));
    let state = sb.home.join(".claude.json");
    std::fs::remove_file(&state).expect("rm");
    let claude = sign_in(&sb, "claude");
    assert!(claude.starts_with("warn"), "{claude}");
    assert!(claude.contains("exit 126"), "{claude}");
    assert!(
        claude.contains(&format!(
            r#"echo '{{"hasCompletedOnboarding":true}}' > {}"#,
            state.display()
        )),
        "{claude}"
    );
    std::fs::write(&state, r#"{"theme":"dark"}"#).expect("write");
    let claude = sign_in(&sb, "claude");
    assert!(
        claude.contains("lacks \"hasCompletedOnboarding\": true"),
        "{claude}"
    );
    let elsewhere = sb.root.join("claude-config");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::write(
        elsewhere.join(".claude.json"),
        r#"{"hasCompletedOnboarding":true}"#,
    )
    .expect("write");
    sb.var("CLAUDE_CONFIG_DIR", elsewhere.to_str().expect("utf-8"));
    assert!(sign_in(&sb, "claude").starts_with("ok"));

    // codex: auth.json in its home, or a key in the environment.
    let codex = sign_in(&sb, "codex");
    assert!(codex.starts_with("warn"), "{codex}");
    assert!(codex.contains("`codex login`"), "{codex}");
    sb.var("OPENAI_API_KEY", "sk-test");
    assert!(sign_in(&sb, "codex").starts_with("ok"));
    sb.unset("OPENAI_API_KEY");
    std::fs::write(sb.home.join(".codex/auth.json"), "{}").expect("write");
    assert!(sign_in(&sb, "codex").contains("auth.json"));

    // gemini: a key in the environment, or an auth type chosen in its settings.
    assert!(sign_in(&sb, "gemini").starts_with("ok"));
    sb.unset("GEMINI_API_KEY");
    let gemini = sign_in(&sb, "gemini");
    assert!(gemini.starts_with("warn"), "{gemini}");
    assert!(gemini.contains("export GEMINI_API_KEY="), "{gemini}");
    let settings = r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}}"#;
    std::fs::write(sb.home.join(".gemini/settings.json"), settings).expect("write");
    assert!(sign_in(&sb, "gemini").starts_with("ok"));
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
