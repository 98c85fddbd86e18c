//! fake-codex without a terminal: `--version`, `--help`, clap-style usage
//! errors, and `exec` (plain and `--json`) with hooks and rollouts.

mod common;

use std::io::Write;
use std::process::{Output, Stdio};

use common::Sim;
use common::codex::{ALL_EVENTS, Sandbox};
use serde_json::Value;

fn run(s: &Sandbox, scenario: &str, args: &[&str], stdin: &str) -> Output {
    let mut c = s.scripted(scenario, args);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(stdin.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// `exec --skip-git-repo-check x` playing `scenario`.
fn exec_x(s: &Sandbox, scenario: &str) -> Output {
    run(s, scenario, &["exec", "--skip-git-repo-check", "x"], "")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn version_help_and_usage_errors() {
    let s = Sandbox::new("cli");
    let out = run(&s, "", &["--version"], "");
    assert_eq!(text(&out.stdout), "codex-cli 0.171.0\n");
    assert_eq!(out.status.code(), Some(0));
    let out = run(&s, "", &["--help"], "");
    assert!(text(&out.stdout).starts_with("Codex CLI\n\nIf no subcommand"));
    let out = run(&s, "", &["exec", "--help"], "");
    assert!(text(&out.stdout).starts_with("Run Codex non-interactively\n"));
    let out = run(&s, "", &["--frobnicate"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error: unexpected argument '--frobnicate' found\n"));
    let out = run(&s, "", &["exec", "-m"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("a value is required for '--model <MODEL>'"));
}

#[test]
fn exec_prints_the_answer_and_fires_hooks_like_the_tui() {
    let s = Sandbox::new("exec").hooks(ALL_EVENTS);
    let out = run(
        &s,
        r#"{"turns":[{"reply":"Hello!"}]}"#,
        &[
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust",
            "-m",
            "gpt-fake-1",
            "Say hello",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Hello!\n");
    let err = text(&out.stderr);
    assert!(
        err.contains("model: gpt-fake-1\n") && err.contains("session id: "),
        "{err}"
    );
    assert!(err.contains("hook: Stop\nhook: Stop Completed\n"), "{err}");
    let p = s.one_turn_payloads();
    assert_eq!(p[1]["prompt"], "Say hello");
    assert_eq!(p[2]["last_assistant_message"], "Hello!");
    assert_eq!(p[2]["turn_id"], p[1]["turn_id"]);
    assert_eq!(p[3]["reason"], "other");
    let rollout = s.rollout();
    assert_eq!(rollout[0]["type"], "session_meta");
    assert_eq!(rollout[0]["payload"]["originator"], "codex_exec");
    assert_eq!(rollout[0]["payload"]["id"], p[0]["session_id"]);
    let last = rollout.last().unwrap();
    assert_eq!(last["payload"]["type"], "task_complete");
    assert_eq!(last["payload"]["last_agent_message"], "Hello!");
    assert_eq!(p[0]["transcript_path"], s.rollouts()[0].to_str().unwrap());
    assert_eq!(s.recorded(1), b"Say hello");
}

#[test]
fn exec_json_events_and_the_prompt_from_stdin() {
    let s = Sandbox::new("json");
    let scenario = r#"{"turns":[{"reply":"The command printed hi.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi"}}}}]}"#;
    let out = run(
        &s,
        scenario,
        &["exec", "--json", "--skip-git-repo-check", "-"],
        "Run it\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let events: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<String> = events
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["type"].as_str().unwrap(),
                e["item"]["type"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "thread.started ",
            "turn.started ",
            "item.started command_execution",
            "item.completed command_execution",
            "item.completed agent_message",
            "turn.completed "
        ]
    );
    assert_eq!(events[3]["item"]["command"], "/bin/bash -lc 'echo hi'");
    assert_eq!(events[3]["item"]["aggregated_output"], "hi\n");
    assert_eq!(events[4]["item"]["text"], "The command printed hi.");
    assert_eq!(events[0]["thread_id"], s.rollout()[0]["payload"]["id"]);
    assert_eq!(s.recorded(1), b"Run it\n");
}

#[test]
fn exec_failures_exit_1_without_stop() {
    let s = Sandbox::new("fail").hooks(ALL_EVENTS);
    let scenario = r#"{"turns":[{"end":{"api_error":{"status":400,"message":"fake bad request for probing"}}},{"end":{"usage_limit":{"retry_at":"8:57 PM"}}}]}"#;
    let args = [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-hook-trust",
        "x",
    ];
    let out = run(&s, scenario, &args, "");
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[2]["type"], "error");
    assert_eq!(lines[3]["type"], "turn.failed");
    assert_eq!(lines[3]["error"]["message"], lines[2]["message"]);
    assert!(
        lines[2]["message"]
            .as_str()
            .unwrap()
            .contains("fake bad request for probing")
    );
    assert_eq!(
        s.events(),
        ["SessionStart", "UserPromptSubmit", "SessionEnd"]
    );
    let last = s.rollout().pop().unwrap();
    assert!(last["payload"]["last_agent_message"].is_null());
    assert_eq!(last["payload"]["error"]["codex_error_info"], "other");

    let s = Sandbox::new("limit");
    let out = exec_x(&s, r#"{"turns":[{"end":{"usage_limit":{}}}]}"#);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    assert!(text(&out.stderr).contains("ERROR: You’ve hit your usage limit."));
    let last = s.rollout().pop().unwrap();
    assert_eq!(
        last["payload"]["error"]["codex_error_info"],
        "usage_limit_exceeded"
    );
}

#[test]
fn exec_checks_the_folder_config_and_hook_trust() {
    let s = Sandbox::new("checks").hooks(&["Stop"]);
    let out = run(&s, "", &["exec", "hi"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains(
            "Not inside a trusted directory and --skip-git-repo-check was not specified."
        )
    );
    let s = s.git();
    let out = run(&s, "", &["exec", "hi"], "");
    assert_eq!(out.status.code(), Some(0), "inside a git repository");
    assert!(s.events().is_empty(), "untrusted hooks do not run in exec");
    let s = s.config("model = \"m\"\n[projects\n");
    let out = run(&s, "", &["exec", "hi"], "");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    let config = s.home.canonicalize().unwrap().join("config.toml");
    assert_eq!(
        err,
        format!(
            "Error loading config.toml:\n{}:2:10: unclosed table, expected `]`\n  |\n2 | [projects\n  |          ^\n",
            config.display()
        ),
        "as codex 0.171.0 words it"
    );
    let other = s.root.join("other");
    std::fs::create_dir_all(other.join(".git")).unwrap();
    let s = s.config("");
    let out = run(&s, "", &["exec", "-C", other.to_str().unwrap(), "hi"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let metas: Vec<String> = s
        .rollouts()
        .iter()
        .map(|f| {
            common::read_jsonl(f)[0]["payload"]["cwd"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(metas.contains(&other.display().to_string()), "{metas:?}");
    let s = Sandbox::new("nohome");
    let mut c = s.cmd();
    let out = c
        .env("CODEX_HOME", s.root.join("missing"))
        .args(["exec", "--skip-git-repo-check", "hi"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("CODEX_HOME points to"));
}

#[test]
fn exec_crash_and_scenario_errors() {
    let s = Sandbox::new("crash");
    let out = exec_x(&s, r#"{"turns":[{"end":{"crash":3}}]}"#);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("fake-codex: simulated crash (exit status 3)"));
    let out = exec_x(&s, r#"{"startup":{"swallow_enter":1}}"#);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("fake-codex: UMBEL_SIM_SCENARIO") && err.contains("`swallow_enter`"),
        "{err}"
    );
}
