//! Hook settings parsing, matchers and the runner.

use super::*;
use serde_json::json;

const SECS: Duration = Duration::from_secs(60);

#[test]
fn parses_the_settings_shape_in_order_and_skips_non_command_hooks() {
    let v = json!({"hooks":{
        "Stop":[{"hooks":[{"type":"command","command":"a","timeout":5},{"type":"prompt","prompt":"x"}]}],
        "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"b"}]}]}});
    let h = Hooks::from_settings(&v, TimeoutUnit::Seconds, SECS).unwrap();
    assert_eq!(
        h.matching("Stop", None),
        vec![HookCommand {
            command: "a".into(),
            timeout: Duration::from_secs(5)
        }]
    );
    assert_eq!(h.matching("PreToolUse", Some("Bash"))[0].timeout, SECS);
    assert!(h.matching("PreToolUse", Some("Edit")).is_empty());
    assert!(h.has("Stop") && !h.has("SessionEnd"));
}

#[test]
fn timeouts_can_be_milliseconds() {
    let v = json!({"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"a","timeout":1500}]}]}});
    let h = Hooks::from_settings(&v, TimeoutUnit::Millis, SECS).unwrap();
    assert_eq!(
        h.matching("AfterAgent", None)[0].timeout,
        Duration::from_millis(1500)
    );
}

#[test]
fn no_hooks_key_means_no_hooks_and_bad_shapes_are_errors() {
    assert_eq!(
        Hooks::from_settings(&json!({"theme":"dark"}), TimeoutUnit::Seconds, SECS).unwrap(),
        Hooks::default()
    );
    let e = Hooks::from_settings(
        &json!({"hooks":{"Stop":[{"hooks":[{"type":"command"}]}]}}),
        TimeoutUnit::Seconds,
        SECS,
    )
    .unwrap_err();
    assert!(e.contains("hooks.Stop[0].hooks[0].command"), "{e}");
    assert!(Hooks::from_settings(&json!({"hooks":[]}), TimeoutUnit::Seconds, SECS).is_err());
}

#[test]
fn sources_are_concatenated() {
    let a = Hooks::from_settings(
        &json!({"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a"}]}]}}),
        TimeoutUnit::Seconds,
        SECS,
    )
    .unwrap();
    let mut b = Hooks::from_settings(
        &json!({"hooks":{"Stop":[{"hooks":[{"type":"command","command":"b"}]}]}}),
        TimeoutUnit::Seconds,
        SECS,
    )
    .unwrap();
    b.extend(a);
    assert_eq!(b.commands("Stop"), vec!["b", "a"]);
}

#[test]
fn matcher_rules() {
    for m in [None, Some(""), Some("*"), Some(".*")] {
        assert!(matcher_matches(m, "Bash"));
    }
    assert!(matcher_matches(Some("Bash"), "Bash"));
    assert!(!matcher_matches(Some("Bash"), "BashOutput"));
    assert!(matcher_matches(Some("Edit|Write"), "Write"));
    assert!(matcher_matches(Some("mcp__.*"), "mcp__github__x"));
    assert!(matcher_matches(Some(".*_prompt"), "permission_prompt"));
    assert!(!matcher_matches(Some("idle_prompt"), "permission_prompt"));
}

#[test]
fn events_without_matchers_ignore_the_matcher() {
    let v = json!({"hooks":{"Stop":[{"matcher":"whatever","hooks":[{"type":"command","command":"a"}]}]}});
    let h = Hooks::from_settings(&v, TimeoutUnit::Seconds, SECS).unwrap();
    assert_eq!(h.matching("Stop", None).len(), 1);
}

#[test]
fn the_runner_passes_stdin_env_and_cwd_and_enforces_timeouts() {
    let dir = std::env::temp_dir().join(format!("sim-hooks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let runner = Runner {
        cwd: dir.clone(),
        env: vec![("SIM_TEST_VAR".into(), "v1".into())],
    };
    let out = dir.join("out.txt");
    let cmd = HookCommand {
        command: format!(
            "cat > {0}; echo \"$SIM_TEST_VAR $(pwd)\" >> {0}",
            out.display()
        ),
        timeout: SECS,
    };
    let slow = HookCommand {
        command: "sleep 5".into(),
        timeout: Duration::from_millis(100),
    };
    let runs = runner.run(&[cmd, slow], "{\"x\":1}");
    assert_eq!(runs[0].status, Some(0));
    assert!(runs[1].timed_out);
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text,
        format!("{{\"x\":1}}v1 {}\n", dir.canonicalize().unwrap().display())
    );
    let _ = std::fs::remove_dir_all(&dir);
}
