//! Guardrails on remote workers, enforced by the host's umbel: a workflow step's `schema:`
//! (a file here, which the host gets as its content) with feedback and retry there, the step's
//! answer the accepted value, a never accepted one failing `rejected`; an MCP `umbel_send`
//! guard on a remote worker; a command line `--schema` file.

use super::hosts::Net;
use super::{run_workflow, step_file};
use crate::harness::*;
use serde_json::json;

#[test]
fn a_remote_steps_schema_is_enforced_on_its_host_and_its_answer_is_the_accepted_value() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    let scenario = h1.scenario_file(
        "counter",
        sim::matching(&[
            ("Count", "about three"),
            ("[umbel] Your answer was rejected", r#"{"count": 3}"#),
            ("Never", "prose"),
        ]),
    );
    // The schema is a file here only: the host cannot read it by its path.
    let schema = r#"{"type": "object", "required": ["count"]}"#;
    std::fs::write(net.local.project.join("count.schema.json"), schema).unwrap();
    let yaml = format!(
        "workers:\n  counter: {{provider: claude, host: h1, cwd: {project}, \
         env: {{UMBEL_SIM_SCENARIO: \"{scenario}\"}}}}\nsteps:\n  - id: count\n    \
         worker: counter\n    prompt: Count\n    guard: {{schema: count.schema.json, maxAttempts: 2}}\n    \
         outputs: {{value: answer}}\n  - id: never\n    worker: counter\n    needs: [count]\n    \
         prompt: Never\n    guard: {{schema: count.schema.json, maxAttempts: 1}}\n",
        project = h1.project.display(),
    );
    // The second step's answer is never accepted: it fails `rejected` (121) with the verdict.
    let (out, record) = run_workflow(&net.local, &yaml);
    assert_eq!(out.status.code(), Some(121), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the last check said: - the answer is not JSON"),
        "{}",
        stderr(&out)
    );
    assert_eq!(record["status"], "failed", "{record:#}");
    let answer = step_file(&net.local, &record, "count", "answer");
    assert_eq!(
        answer, "{\n  \"count\": 3\n}",
        "the accepted value, as clean JSON"
    );
    assert_eq!(
        step_file(&net.local, &record, "count", "outputs/value"),
        answer
    );
    let run_id = record["runId"].as_str().unwrap();
    // The check ran on h1: its log of the worker records both verdicts.
    let worker = format!("{run_id}-counter");
    let log = std::fs::read_to_string(h1.session_dir(&worker).join("events/log")).unwrap();
    assert_eq!(log.matches(" UmbelCheck ").count(), 3, "{log}");
}

/// `run --check` checks what it can of a remote step's guardrails here (the schema it sends);
/// the check command's program is the host's, looked up there when the step runs.
#[test]
fn a_remote_steps_schema_is_checked_here_and_its_check_program_on_the_host() {
    let sb = Sandbox::new();
    let yaml = |guard: &str| {
        format!(
            "workers:\n  w: {{provider: claude, host: h1, cwd: /tmp}}\nsteps:\n  - id: a\n    \
             worker: w\n    prompt: hi\n    guard:\n      {guard}\n"
        )
    };
    sb.write("wf.yaml", yaml("schema: missing.json"));
    let err = sb.umbel(["run", "--check", "wf.yaml"]).status(2).stderr();
    assert!(
        err.contains("wf.yaml:8:7: step `a`: guard: `--schema missing.json`"),
        "{err}"
    );
    sb.write("wf.yaml", yaml("accept: /opt/only-on-h1/check"));
    sb.umbel(["run", "--check", "wf.yaml"]).success();
}

#[test]
fn an_mcp_guard_on_a_remote_worker_is_enforced_by_its_host() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    let scenario = h1.scenario("mg", sim::accepted_on_retry("Write", "a draft", "DONE"));
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let mcp = crate::mcp::client::Mcp::start(&net.local).await;
        let spawn = json!({ "name": "mg", "host": "h1", "cwd": h1.project, "env": [scenario] });
        mcp.ok("umbel_spawn", spawn).await;
        let check = ["sh", "-c", "grep -q DONE || { echo 'say DONE'; exit 1; }"];
        let sent = json!({ "name": "mg", "prompt": "Write", "guard": { "accept": check } });
        mcp.ok("umbel_send", sent).await;
        let outcome = mcp
            .ok("umbel_wait", json!({ "name": "mg", "timeout": "60s" }))
            .await;
        assert_eq!(outcome["outcome"], "stop", "{outcome}");
        assert_eq!(outcome["attempts"], 2, "{outcome}");
        assert_eq!(outcome["check"]["accepted"], true, "{outcome}");
        let answer = mcp.ok("umbel_read", json!({ "name": "mg" })).await;
        assert_eq!(answer["text"], "DONE", "{answer}");
        mcp.ok("umbel_kill", json!({ "name": "mg", "purge": true }))
            .await;
    });
}

/// On the command line too, `--schema FILE` is a file here: its content reaches the host.
#[test]
fn a_schema_file_given_on_the_command_line_is_read_here_for_a_remote_worker() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    let project = h1.project.to_string_lossy().into_owned();
    let scenario = h1.scenario(
        "cw",
        sim::accepted_on_retry("Count", "about three", r#"{"count": 3}"#),
    );
    let spawned = net.local.run(&[
        "spawn", "--host", "h1", "--name", "cw", "--cwd", &project, "--env", &scenario,
    ]);
    assert_success(&spawned, "spawn");
    // In the local folder only.
    let schema = r#"{"type": "object", "required": ["count"]}"#;
    std::fs::write(net.local.project.join("local.schema.json"), schema).unwrap();
    let sent = net
        .local
        .run(&["send", "cw", "Count", "--schema", "local.schema.json"]);
    assert_success(&sent, "send");
    let waited = net.local.run(&["wait", "cw", "--timeout", "30s", "--json"]);
    assert_success(&waited, "wait");
    let outcome = super::json_of(&waited);
    assert_eq!(
        outcome["structuredOutput"],
        json!({ "count": 3 }),
        "{outcome}"
    );
    assert_eq!(outcome["attempts"], 2, "{outcome}");
}

/// A remote step's `accept` check runs on the host in the worker's folder, as a check of a
/// local step runs in the workflow's: `./check.sh` there is the project's.
#[test]
fn a_remote_steps_check_runs_in_the_workers_folder_on_its_host() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    let check = "#!/bin/sh\ngrep -q DONE || { echo 'say DONE'; exit 1; }\n";
    h1.write_executable("check.sh", check);
    let scenario = h1.scenario_file(
        "builder",
        sim::accepted_on_retry("Build", "a draft", "DONE"),
    );
    let yaml = format!(
        "workers:\n  builder: {{provider: claude, host: h1, cwd: {project}, \
         env: {{UMBEL_SIM_SCENARIO: \"{scenario}\"}}}}\nsteps:\n  - id: build\n    \
         worker: builder\n    prompt: Build\n    guard: {{accept: ./check.sh, maxAttempts: 2}}\n",
        project = h1.project.display(),
    );
    let (out, record) = run_workflow(&net.local, &yaml);
    assert_success(&out, "run");
    assert_eq!(step_file(&net.local, &record, "build", "answer"), "DONE");
}
