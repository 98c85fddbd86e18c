//! Guardrails on the fakes: `--accept` and `--schema` on `send`/`wait`, `-p`, MCP and workflow
//! steps — accepted at once, accepted after feedback (the fake received exactly the feedback),
//! never accepted (halts with `rejected`, exit 121, no further sends), a hanging check, bad
//! guardrails refused before anything is sent.

use crate::each_provider;
use crate::harness::*;
use serde_json::{Value, json};

each_provider!(
    accepted_at_the_first_try,
    accepted_on_the_second_attempt_after_exact_feedback,
    never_accepted_halts_with_rejected_and_sends_nothing_more,
    print_mode_prints_the_schema_checked_value_as_clean_json,
);

/// The check used below: passes when the answer says DONE, else explains on stdout.
const NEEDS_DONE: &str = "grep -q DONE || { echo 'missing the word DONE'; exit 1; }";

/// The `UmbelCheck` events of a worker's log, payloads parsed.
fn checks(sb: &Sandbox, name: &str) -> Vec<Value> {
    let events = sb.session_dir(name).join("events");
    let log = std::fs::read_to_string(events.join("log")).unwrap_or_default();
    log.lines()
        .filter_map(|l| {
            let mut parts = l.split(' ');
            let kind = parts.nth(1)?;
            let file = parts.next()?;
            (kind == "UmbelCheck").then(|| {
                serde_json::from_slice(&std::fs::read(events.join(file)).expect("payload"))
                    .expect("check payload is JSON")
            })
        })
        .collect()
}

fn spawn_with(sb: &Sandbox, name: &str, provider: &str, scenario: Value) {
    let scenario = sb.scenario(name, scenario);
    sb.spawn(
        name,
        &[
            "--provider",
            provider,
            "--env",
            &scenario,
            "--env",
            &sb.record_env(),
        ],
    );
}

fn accepted_at_the_first_try(provider: &str) {
    let sb = Sandbox::new();
    spawn_with(&sb, "g1", provider, sim::reply("All DONE."));
    sb.umbel([
        "send",
        "g1",
        "Do it",
        "--accept-shell",
        "--accept",
        NEEDS_DONE,
    ])
    .success();
    let outcome = sb.cmd("wait g1 --timeout 60s --json").success().json();
    assert_eq!(outcome["outcome"], "stop");
    assert_eq!(outcome["attempts"], 1);
    assert_eq!(outcome["check"]["check"], "accept");
    assert_eq!(outcome["check"]["accepted"], true);
    assert_eq!(sb.received().len(), 1);
    let recorded = checks(&sb, "g1");
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["accepted"], true);
}

fn accepted_on_the_second_attempt_after_exact_feedback(provider: &str) {
    let sb = Sandbox::new();
    let scenario = sim::accepted_on_retry("Write", "Here is a draft.", "Final: DONE");
    spawn_with(&sb, "g2", provider, scenario);
    sb.umbel([
        "send",
        "g2",
        "Write it",
        "--accept-shell",
        "--accept",
        NEEDS_DONE,
    ])
    .success();
    let out = sb.cmd("wait g2 --timeout 90s --json").success();
    assert_eq!(out.json()["attempts"], 2);
    let received = sb.received();
    assert_eq!(received.len(), 2);
    let feedback = format!(
        "[umbel] Your answer was rejected (attempt 1 of 3) by the check `{NEEDS_DONE}` (exit \
         status 1). Its output:\nmissing the word DONE\n\nFix what it reports and answer again."
    );
    assert_eq!(String::from_utf8_lossy(&received[1]), feedback);
    let answer = sb.umbel(["read", "g2", "--json"]).json();
    assert_eq!(answer["text"], "Final: DONE");
    let recorded = checks(&sb, "g2");
    let verdicts: Vec<&Value> = recorded.iter().map(|c| &c["accepted"]).collect();
    assert_eq!(verdicts, [false, true]);
    assert_eq!(recorded[0]["feedback"], feedback.as_str());
}

fn never_accepted_halts_with_rejected_and_sends_nothing_more(provider: &str) {
    let sb = Sandbox::new();
    spawn_with(&sb, "g3", provider, sim::reply("no"));
    let out = sb
        .turn("g3", "Try")
        .args([
            "--timeout",
            "90s",
            "--max-attempts",
            "2",
            "--accept-shell",
            "--accept",
            NEEDS_DONE,
        ])
        .stderr_has("missing the word DONE")
        .status(121);
    assert_eq!(out.stdout().trim(), "rejected");
    // The first prompt and one feedback: the second rejection halts without a third send.
    assert_eq!(sb.received().len(), 2);
    assert_eq!(checks(&sb, "g3").len(), 2);
    let status = sb.umbel(["status", "g3", "--json"]).json();
    assert_eq!(status["state"], "ready", "{status:#}");
}

fn print_mode_prints_the_schema_checked_value_as_clean_json(provider: &str) {
    let sb = Sandbox::new();
    let schema = sb.project.join("verdict.json");
    let verdict = json!({
        "type": "object",
        "required": ["verdict"],
        "properties": {"verdict": {"enum": ["pass", "fail"]}}
    });
    sb.write(&schema, verdict.to_string());
    let scenario = sb.scenario(
        "p",
        sim::matching(&[
            ("Judge", "I think it passes."),
            ("not JSON", "```json\n{\"verdict\": \"maybe\"}\n```"),
            ("/verdict", "Sorry:\n```json\n{\"verdict\": \"pass\"}\n```"),
        ]),
    );
    sb.umbel([
        "-p",
        "Judge it",
        "--provider",
        provider,
        "--schema",
        "verdict.json",
        "--env",
        &scenario,
        "--env",
        &sb.record_env(),
        "--timeout",
        "90s",
    ])
    .stdout("{\n  \"verdict\": \"pass\"\n}\n")
    .success();
    let received = sb.received();
    assert_eq!(received.len(), 3);
    let second = String::from_utf8_lossy(&received[1]);
    assert!(second.contains("the answer is not JSON"), "{second}");
    let third = String::from_utf8_lossy(&received[2]);
    assert!(third.contains("- /verdict: \"maybe\""), "{third}");
}

#[test]
fn print_json_carries_structured_output() {
    let sb = Sandbox::new();
    sb.write("s.json", r#"{"type":"array"}"#);
    let scenario = sb.scenario("p", sim::reply("[1, 2]"));
    let result = sb
        .umbel([
            "-p",
            "List",
            "--schema",
            "s.json",
            "--output-format",
            "json",
            "--env",
            &scenario,
            "--timeout",
            "60s",
        ])
        .success()
        .json();
    assert_eq!(result["structured_output"], json!([1, 2]));
    assert_eq!(result["result"], "[1, 2]");
    assert_eq!(result["attempts"], 1);
    assert_eq!(result["is_error"], false);
}

#[test]
fn a_hanging_check_is_bounded_and_reported() {
    let sb = Sandbox::new();
    spawn_with(&sb, "g4", "claude", sim::reply("ok"));
    let out = sb
        .turn("g4", "Go")
        .args([
            "--timeout",
            "60s",
            "--accept",
            "sleep 30",
            "--check-timeout",
            "1s",
        ])
        .status(1);
    let err = out.stderr();
    assert!(
        err.contains("the check `sleep 30` did not finish within 1s"),
        "{err}"
    );
    assert_eq!(sb.received().len(), 1, "a failed check sends no feedback");
}

#[test]
fn bad_guardrails_are_refused_before_anything_is_sent() {
    let sb = Sandbox::new();
    spawn_with(&sb, "g5", "claude", json!({}));
    let cases: [(&[&str], &str); 5] = [
        (
            &["--schema", "missing.json"],
            "`--schema missing.json`: cannot read",
        ),
        (
            &["--accept", "no-such-check-program"],
            "is not an executable program",
        ),
        (&["--accept", "grep 'unbalanced"], "unbalanced quotes"),
        (
            &["--accept", "true", "--check-timeout", "soon"],
            "--check-timeout",
        ),
        (&["--max-attempts", "2"], "need `--accept` or `--schema`"),
    ];
    sb.write("bad.json", "{not json");
    for (flags, message) in cases {
        let mut args = vec!["send", "g5", "hello"];
        args.extend_from_slice(flags);
        sb.umbel(&args).stderr_has(message).status(2);
    }
    sb.cmd("send g5 hello --schema bad.json")
        .stderr_has("is not JSON")
        .run();
    // wait refuses an incomplete set too, rather than fall back to the turn's own guardrails.
    sb.cmd("wait g5 --timeout 1s --max-attempts 2")
        .stderr_has("need `--accept` or `--schema`")
        .status(2);
    sb.cmd("-p hi --max-attempts 0 --accept true").status(2);
    assert!(sb.received().is_empty(), "nothing may be sent");
    assert!(!sb.session_dir("g5").join("guard.json").exists());
    assert_eq!(
        sb.worker_dirs(),
        ["g5"],
        "-p must not spawn with bad guardrails"
    );
}

#[test]
fn a_later_send_without_guardrails_clears_them() {
    let sb = Sandbox::new();
    spawn_with(&sb, "g6", "claude", sim::reply("no"));
    let args = [
        "send",
        "g6",
        "one",
        "--accept",
        "false",
        "--max-attempts",
        "1",
    ];
    sb.umbel(args).success();
    sb.cmd("wait g6 --timeout 60s").status(121);
    let out = sb
        .turn("g6", "two")
        .args(["--timeout", "60s", "--json"])
        .success();
    assert!(out.json().get("attempts").is_none());
}

#[test]
fn the_check_gets_the_answer_and_the_worker_in_its_environment() {
    let sb = Sandbox::new();
    spawn_with(&sb, "g7", "claude", sim::reply("the answer"));
    let dump = sb.root.join("check-saw.txt");
    let check = format!(
        "{{ cat; echo; echo \"$UMBEL_WORKER|$UMBEL_PROVIDER|$UMBEL_ATTEMPT|$UMBEL_CWD\"; \
         test -f \"$UMBEL_TRANSCRIPT\" && echo transcript-ok; }} > '{}'",
        dump.display()
    );
    sb.umbel(["send", "g7", "Q", "--accept-shell", "--accept", &check])
        .success();
    sb.cmd("wait g7 --timeout 60s").success();
    let saw = std::fs::read_to_string(&dump).expect("the check ran");
    let cwd = std::fs::canonicalize(&sb.project).unwrap();
    assert_eq!(
        saw,
        format!("the answer\ng7|claude|1|{}\ntranscript-ok\n", cwd.display())
    );
}

#[test]
fn a_workflow_step_retries_until_its_check_accepts() {
    let sb = Sandbox::new();
    sb.write_executable(
        "check.sh",
        "#!/bin/sh\ngrep -q DONE || { echo 'not done yet'; exit 1; }\n",
    );
    let scenario = sb.scenario_file(
        "s",
        sim::matching(&[("Build", "working on it"), ("not done yet", "DONE")]),
    );
    let yaml = format!(
        "workers:\n  w:\n    env: {{UMBEL_SIM_SCENARIO: '{scenario}'}}\nsteps:\n  - id: build\n    \
         worker: w\n    prompt: Build it\n    guard: {{accept: ./check.sh, maxAttempts: 2}}\n"
    );
    sb.write("wf.yaml", yaml);
    let record = sb
        .umbel(["run", "wf.yaml", "--json"])
        .env("UMBEL_PROGRESS", "off")
        .success()
        .json();
    let run_id = record["runId"].as_str().expect("runId");
    let steps = sb.state.join("workflows").join(run_id).join("steps");
    let answer = std::fs::read_to_string(steps.join("build").join("answer")).expect("answer");
    assert_eq!(answer, "DONE", "{record:#}");
}

#[test]
fn a_workflow_with_a_broken_guard_is_refused_at_its_line() {
    let sb = Sandbox::new();
    let yaml = "workers:\n  w: {}\nsteps:\n  - id: a\n    worker: w\n    prompt: hi\n    \
                guard:\n      schema: missing.json\n";
    sb.write("wf.yaml", yaml);
    let out = sb.umbel(["run", "--check", "wf.yaml"]).status(2);
    let err = out.stderr();
    assert!(
        err.contains("wf.yaml:8:7: step `a`: guard: `--schema missing.json`"),
        "{err}"
    );
    assert!(sb.worker_dirs().is_empty());
}

#[test]
fn a_schema_guarded_step_hands_on_clean_json_and_a_rejected_step_fails_with_121() {
    let sb = Sandbox::new();
    sb.write("s.json", r#"{"type":"object","required":["n"]}"#);
    let scenario = sb.scenario_file(
        "s",
        sim::matching(&[
            ("Count", "Sure:\n```json\n{\"n\": 3}\n```"),
            ("Never", "prose"),
        ]),
    );
    let record = sb.record.display().to_string();
    let yaml = format!(
        "workers:\n  w:\n    env: {{UMBEL_SIM_SCENARIO: '{scenario}', UMBEL_SIM_RECORD_DIR: '{record}'}}\n\
         steps:\n  - id: count\n    worker: w\n    prompt: Count\n    guard: {{schema: s.json}}\n    \
         outputs: {{value: answer}}\n  - id: use\n    worker: w\n    needs: [count]\n    \
         prompt: 'Got {{{{ steps.count.outputs.value }}}}'\n  - id: never\n    worker: w\n    \
         needs: [use]\n    prompt: Never\n    guard: {{schema: s.json, maxAttempts: 1}}\n"
    );
    sb.write("wf.yaml", yaml);
    sb.umbel(["run", "wf.yaml"])
        .env("UMBEL_PROGRESS", "off")
        .stderr_has("the last check said: - the answer is not JSON")
        .status(121);
    let received = sb.received();
    assert_eq!(
        String::from_utf8_lossy(&received[1]),
        "Got {\n  \"n\": 3\n}"
    );
}

#[test]
fn read_after_a_schema_guarded_turn_carries_the_accepted_value() {
    let sb = Sandbox::new();
    sb.write("s.json", r#"{"type":"object","required":["ok"]}"#);
    let scenario = sim::matching(&[
        ("Report", "Done:\n```json\n{\"ok\": true}\n```"),
        ("Again", "plain"),
    ]);
    spawn_with(&sb, "g8", "claude", scenario);
    sb.cmd("send g8 Report --schema s.json").success();
    sb.cmd("wait g8 --timeout 60s").success();
    let answer = sb.umbel(["read", "g8", "--json"]).json();
    assert_eq!(
        answer["structuredOutput"],
        json!({"ok": true}),
        "{answer:#}"
    );
    assert!(answer["text"].as_str().unwrap().starts_with("Done:"));
    // The next, unguarded turn has no accepted value.
    sb.turn("g8", "Again").args(["--timeout", "60s"]).success();
    let answer = sb.umbel(["read", "g8", "--json"]).json();
    assert!(answer.get("structuredOutput").is_none(), "{answer:#}");
}
