//! `umbel explain`: the evidence behind a ready, a busy, a needs-input (permission, dialog) and
//! a dead worker — what each recent hook meant, the transcript record, the screen rule and its
//! line, the state and umbel's next move — and `--screen`, which reads a saved screen the
//! same way. Every `--json` here is checked against docs/json.md's schema.

use crate::harness::*;
use serde_json::{Value, json};

/// `explain NAME --json`, checked against its documented schema.
#[track_caller]
fn explain(sb: &Sandbox, args: &[&str]) -> Value {
    let out = sb.umbel(["explain"]).args(args).args(["--json"]).success();
    let schema = umbel::faces::json_schema::cli_schema("explain").expect("documented");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let value = out.json();
    let problems: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(problems.is_empty(), "{value}\n{problems:#?}");
    value
}

/// The meanings of the events listed, oldest first.
fn meanings(found: &Value) -> Vec<String> {
    found["events"]
        .as_array()
        .map(|events| {
            events
                .iter()
                .map(|e| e["meaning"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_ready_worker_shows_its_turn_end_the_idle_input_line_and_accepts_a_send() {
    let sb = Sandbox::new();
    sb.spawn_playing("r1", sim::reply("All done here."), &[]);
    sb.turn_outcome("r1", "go", 0);
    let found = explain(&sb, &["r1"]);
    assert_eq!(found["state"], "ready", "{found}");
    // People read the word `ls` shows: its last turn ended, so `done`.
    assert_eq!(found["shown"], "done", "{found}");
    sb.umbel(["ls"]).stdout_has(" done ").success();
    assert_eq!(found["cli"]["provider"], "claude");
    assert!(found["cli"]["bin"].as_str().is_some(), "{found}");
    // The release spawn detected, judged against the supported window.
    assert_eq!(found["cli"]["version"], "2.1.332", "{found}");
    assert_eq!(found["cli"]["support"], "supported", "{found}");
    assert_eq!(found["next"]["action"], "accept-send");
    let meanings = meanings(&found);
    assert_eq!(
        meanings.last().map(String::as_str),
        Some("turn-ended"),
        "{found}"
    );
    assert!(meanings.contains(&"submitted".to_string()), "{found}");
    let positions: Vec<u64> = found["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["position"].as_u64().unwrap())
        .collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "oldest first: {positions:?}"
    );
    let record = &found["transcript"]["record"];
    assert_eq!(record["bounds"], "ended", "{found}");
    assert!(
        record["excerpt"]
            .as_str()
            .unwrap()
            .contains("All done here."),
        "{found}"
    );
    assert_eq!(found["screen"]["reading"], "idle", "{found}");
    assert_eq!(found["screen"]["source"], "pane");
    assert!(
        found["screen"]["line"]["text"]
            .as_str()
            .unwrap()
            .starts_with('❯'),
        "{found}"
    );
    // The text says the same, in labelled blocks.
    sb.umbel(["explain", "r1"])
        .stdout_has("state      done (`ready` in --json)")
        .stdout_has("next       accept a send")
        .stdout_has("Stop")
        .stdout_has("turn ended")
        .stdout_has("ended the last turn")
        .stdout_has("idle: the input line is up")
        .success();
}

#[test]
fn a_busy_worker_shows_its_submit_and_the_busy_marker_and_would_wait() {
    let sb = Sandbox::new();
    sb.spawn_playing("b1", sim::wedge(), &[]);
    sb.umbel(["send", "b1", "hang"]).success();
    let found = explain(&sb, &["b1"]);
    assert_eq!(found["state"], "busy", "{found}");
    assert_eq!(found["shown"], "working", "{found}");
    assert_eq!(found["next"]["action"], "wait");
    assert!(
        found["next"]["why"]
            .as_str()
            .unwrap()
            .contains("umbel wait b1"),
        "{found}"
    );
    assert_eq!(
        meanings(&found).last().map(String::as_str),
        Some("submitted"),
        "{found}"
    );
    let derivation = found["derivation"].to_string();
    assert!(
        derivation.contains("UserPromptSubmit (submitted) → busy"),
        "{found}"
    );
    assert_eq!(found["transcript"]["record"]["bounds"], "opened", "{found}");
    assert_eq!(found["transcript"]["record"]["excerpt"], "hang", "{found}");
    let screen = &found["screen"];
    assert!(
        screen["rule"].as_str().unwrap().starts_with("busy"),
        "{found}"
    );
    assert!(
        screen["busyLine"]["text"]
            .as_str()
            .unwrap()
            .contains("esc to interrupt"),
        "{found}"
    );
}

#[test]
fn a_permission_prompt_shows_the_hook_the_tool_and_the_question_on_screen() {
    for provider in PROVIDERS {
        let sb = Sandbox::new();
        let tool = json!({ "tool": "Bash", "input": { "command": "echo hi", "description": "Print a greeting" } });
        let scenario = json!({ "default": { "end": { "permission": tool } } });
        sb.spawn_playing("p1", scenario, &["--provider", provider]);
        sb.turn_outcome("p1", "run it", 126);
        let found = explain(&sb, &["p1"]);
        assert_eq!(found["state"], "needs-input", "{provider}: {found}");
        assert_eq!(found["needsInput"], "permission", "{provider}: {found}");
        assert_eq!(found["next"]["action"], "report-needs-input", "{provider}");
        let asked = found["events"]
            .as_array()
            .unwrap()
            .iter()
            .rfind(|e| e["meaning"] == "needs-input")
            .unwrap_or_else(|| panic!("{provider}: no needs-input event: {found}"));
        assert_eq!(asked["reason"], "permission", "{provider}: {found}");
        let screen = &found["screen"];
        assert_eq!(screen["reading"], "person", "{provider}: {found}");
        assert!(screen["line"]["text"].is_string(), "{provider}: {found}");
    }
}

#[test]
fn a_dialog_over_the_idle_prompt_is_needs_input_decided_by_the_screen() {
    let sb = Sandbox::new();
    let question = "How is Claude doing this session?";
    let scenario = json!({ "default": { "dialog_after": question } });
    sb.spawn_playing("d1", scenario, &[]);
    sb.turn_outcome("d1", "Say hello", 0);
    let found = explain(&sb, &["d1"]);
    assert_eq!(found["state"], "needs-input", "{found}");
    assert_eq!(found["needsInput"], "dialog", "{found}");
    // The hooks said ready; the screen made it needs-input, and says by which line.
    let derivation: Vec<&str> = found["derivation"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(derivation[0].ends_with("→ ready"), "{found}");
    assert!(
        derivation.iter().any(|s| s.starts_with("screen: a dialog for a person") && s.ends_with("→ needs-input")),
        "{found}"
    );
    let screen = &found["screen"];
    assert_eq!(screen["reading"], "person");
    assert_eq!(screen["what"], question);
    assert_eq!(screen["line"]["text"], question, "{found}");
    assert_eq!(found["next"]["action"], "report-needs-input");
}

#[test]
fn a_dead_worker_shows_its_exit_and_refuses_a_send_also_from_its_tombstone() {
    let sb = Sandbox::new();
    sb.spawn_playing("x1", sim::crash("partial", 3), &["--provider", "codex"]);
    sb.turn_outcome("x1", "go", 125);
    let found = explain(&sb, &["x1"]);
    assert_eq!(found["state"], "dead", "{found}");
    assert_eq!(found["exit"]["exitCode"], 3, "{found}");
    assert_eq!(found["next"]["action"], "refuse-send");
    assert!(
        found["next"]["why"]
            .as_str()
            .unwrap()
            .contains("exited with status 3"),
        "{found}"
    );
    assert_eq!(
        meanings(&found).last().map(String::as_str),
        Some("exit"),
        "{found}"
    );
    assert!(
        found["derivation"][0].as_str().unwrap().contains("exit"),
        "{found}"
    );
    // Killed, its pane is gone: the screen kept in its tombstone is the evidence.
    sb.umbel(["kill", "x1"]).success();
    let found = explain(&sb, &["x1"]);
    assert_eq!(found["state"], "dead", "{found}");
    assert_eq!(found["screen"]["source"], "kept", "{found}");
    sb.umbel(["explain", "x1"])
        .stdout_has("state      dead")
        .stdout_has("next       refuse a send")
        .stdout_has("kept when it died")
        .success();
}

/// A recorded screen copied into the sandbox's project.
fn saved(sb: &Sandbox, recorded: &str) -> String {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text = std::fs::read_to_string(data.join(recorded)).expect("recorded screen");
    let path = sb.project.join("screen.txt");
    std::fs::write(&path, text).expect("write the screen");
    path.to_string_lossy().into_owned()
}

#[test]
fn a_saved_screen_is_read_as_a_workers_would_be_with_its_rule_line_and_verdict() {
    let sb = Sandbox::new();
    for (provider, recorded, reading, line, action) in [
        (
            "claude",
            "claude/claude-2.1.332-idle-manual-mode.txt",
            "idle",
            "❯",
            "accept-send",
        ),
        (
            "codex",
            "codex/codex-0.171.0-busy-working.txt",
            "other",
            "esc to interrupt",
            "wait",
        ),
        (
            "gemini",
            "gemini/gemini-0.61.0-permission-prompt-shell.txt",
            "person",
            "Allow execution of [Shell]?",
            "report-needs-input",
        ),
        (
            "codex",
            "codex/codex-0.171.0-trust-dialog.txt",
            "dialog",
            "1. Trust and continue",
            "answer-dialog",
        ),
        // codex has no rule of its own for an approval: the numbered-choice rule for a dialog
        // umbel does not know reads it.
        (
            "codex",
            "codex/codex-0.171.0-approval-prompt-escalate.txt",
            "person",
            "Would you like to run the following command?",
            "report-needs-input",
        ),
        (
            "claude",
            "claude/claude-2.1.332-auto-mode-optin.txt",
            "person",
            "Make auto mode your default permission mode?",
            "report-needs-input",
        ),
        (
            "gemini",
            "gemini/gemini-0.61.0-include-directories-trust.txt",
            "person",
            "Do you trust the following folders",
            "report-needs-input",
        ),
    ] {
        let file = saved(&sb, recorded);
        let found = explain(
            &sb,
            &[
                "--screen",
                &file,
                "--provider",
                provider,
                "--version",
                "9.9.9",
            ],
        );
        assert_eq!(found["cli"]["provider"], provider);
        assert_eq!(found["cli"]["version"], "9.9.9", "echoed");
        assert!(
            found.get("state").is_none() && found.get("name").is_none(),
            "{found}"
        );
        let screen = &found["screen"];
        assert_eq!(screen["reading"], reading, "{recorded}: {found}");
        assert_eq!(screen["source"], "file");
        let text = screen["line"]["text"].as_str().unwrap_or_default();
        assert!(text.contains(line), "{recorded}: {found}");
        assert_eq!(found["next"]["action"], action, "{recorded}: {found}");
    }
    let file = saved(&sb, "codex/codex-0.171.0-startup-warning-bubblewrap.txt");
    let old = explain(
        &sb,
        &[
            "--screen",
            &file,
            "--provider",
            "codex",
            "--version",
            "0.140.0",
        ],
    );
    assert_eq!(old["cli"]["support"], "too-old", "{old}");
    assert!(
        old["cli"]["supportNote"]
            .as_str()
            .unwrap()
            .contains("npm i -g @openai/codex"),
        "{old}"
    );
    sb.umbel([
        "explain",
        "--screen",
        &file,
        "--provider",
        "codex",
        "--version",
        "0.171.0",
    ])
    .stdout_has("codex 0.171.0: supported")
    .stdout_has("no rule matched")
    .stdout_has("wait for startup")
    .success();
}

#[test]
fn explain_refuses_what_it_cannot_read() {
    let sb = Sandbox::new();
    sb.umbel(["explain", "ghost"]).stderr_has("ghost").status(1);
    sb.umbel(["explain", "--screen", "s.txt"])
        .stderr_has("--provider")
        .status(2);
    sb.umbel([
        "explain",
        "--screen",
        "/nonexistent/s.txt",
        "--provider",
        "claude",
    ])
    .stderr_has("/nonexistent/s.txt")
    .status(1);
    sb.umbel(["explain", "w1", "--screen", "s.txt", "--provider", "claude"])
        .status(2);
}

/// A FIFO or a device as the saved screen is refused at once (it hung in open(2)); a huge file
/// is read from its end only, and what is echoed stays small.
#[test]
fn explain_reads_a_saved_screen_bounded_and_never_a_fifo() {
    let sb = Sandbox::new();
    let fifo = sb.root.join("screen.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    for path in [fifo.to_string_lossy().into_owned(), "/dev/zero".into()] {
        sb.umbel(["explain", "--screen", &path, "--provider", "claude"])
            .stderr_has("not a regular file")
            .status(1);
    }
    let huge = sb.root.join("huge.txt");
    let line = "x".repeat(1023) + "\n";
    sb.write(&huge, line.repeat(2 * 1024) + "❯ \n");
    let ran = sb
        .umbel([
            "explain",
            "--screen",
            huge.to_str().expect("utf-8"),
            "--provider",
            "claude",
            "--json",
        ])
        .success();
    assert!(
        ran.stdout().len() < 600 * 1024,
        "{} bytes",
        ran.stdout().len()
    );
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/gemini/gemini-0.61.0-startup-trust-dialog.txt"),
    )
    .expect("read");
    let found = sb
        .umbel([
            "explain",
            "--screen-text",
            &text,
            "--provider",
            "gemini",
            "--json",
        ])
        .success()
        .json();
    assert_eq!(found["screen"]["reading"], "dialog", "{found}");
}
