//! A workflow with workers here and on a host (`host:`), and the verbs' typed forms (MCP) on a
//! remote worker.

use super::hosts::Net;
use super::{json_of, run_workflow, step_file};
use crate::harness::*;
use serde_json::json;

#[test]
fn a_workflow_mixes_a_local_and_a_remote_worker_and_tears_both_down() {
    let Some(mut net) = Net::up(1) else {
        return;
    };
    net.local.var("MY_TOKEN", "wf-secret-42");
    let h1 = &net.host("h1").sandbox;
    let remote_scenario = h1.scenario("critic", json!({ "default": { "reply": "REMOTE-NOTES" } }));
    let local_scenario = net
        .local
        .scenario("writer", json!({ "default": { "reply": "LOCAL-DRAFT" } }));
    let value = |arg: &str| arg.trim_start_matches("UMBEL_SIM_SCENARIO=").to_string();
    let yaml = format!(
        r#"
name: mixed-hosts
workers:
  writer: {{provider: claude, env: {{UMBEL_SIM_SCENARIO: "{local}"}}}}
  critic:
    provider: codex
    host: h1
    cwd: {project}
    env: {{UMBEL_SIM_SCENARIO: "{remote}", TOKEN: {{fromEnv: MY_TOKEN}}}}
steps:
  - id: draft
    worker: writer
    prompt: "Draft"
  - id: review
    worker: critic
    needs: [draft]
    prompt: "Review [{{{{ steps.draft.answer }}}}]"
  - id: merge
    worker: writer
    needs: [review]
    prompt: "Merge [{{{{ steps.review.answer }}}}]"
"#,
        local = value(&local_scenario),
        remote = value(&remote_scenario),
        project = h1.project.display(),
    );
    let (out, record) = run_workflow(&net.local, &yaml);
    assert_success(&out, "run");
    assert_eq!(record["status"], "completed", "{record:#}");
    let run_id = record["runId"].as_str().unwrap();
    let step_file = |id: &str, file: &str| step_file(&net.local, &record, id, file);
    assert_eq!(step_file("review", "prompt"), "Review [LOCAL-DRAFT]");
    assert_eq!(step_file("review", "answer"), "REMOTE-NOTES");
    assert_eq!(step_file("merge", "prompt"), "Merge [REMOTE-NOTES]");
    let critic = format!("{run_id}-critic");
    let there = json_of(&h1.run(&["status", &critic, "--json"]));
    assert_eq!(there["state"], "dead", "torn down on h1 too: {there}");
    assert!(
        std::fs::read(h1.session_dir(&critic).join("meta.json")).is_ok(),
        "a tombstone stays, as for a local worker"
    );
}

#[test]
fn the_mcp_tools_drive_a_remote_worker() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    let scenario = h1.scenario("m", json!({ "default": { "reply": "via mcp" } }));
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let mcp = crate::mcp::client::Mcp::start(&net.local).await;
        let spawn = json!({ "name": "mc", "host": "h1", "cwd": h1.project, "env": [scenario] });
        let meta = mcp.ok("umbel_spawn", spawn).await;
        assert_eq!(meta["name"], "mc");
        assert!(h1.session_dir("mc").join("meta.json").exists());
        mcp.ok("umbel_send", json!({ "name": "mc", "prompt": "hello" }))
            .await;
        let outcome = mcp
            .ok("umbel_wait", json!({ "name": "mc", "timeout": "30s" }))
            .await;
        assert_eq!(outcome["outcome"], "stop", "{outcome}");
        let answer = mcp.ok("umbel_read", json!({ "name": "mc" })).await;
        assert_eq!(answer["text"], "via mcp", "{answer}");
        // The fleet tools list it with its host, as `ls` does; by name, its host's status.
        let listed = mcp.ok("umbel_ls", json!({})).await;
        let row = listed["workers"]
            .as_array()
            .and_then(|w| w.iter().find(|r| r["name"] == "mc"))
            .unwrap_or_else(|| panic!("mc missing from {listed}"))
            .clone();
        assert_eq!(
            (&row["host"], &row["state"]),
            (&json!("h1"), &json!("ready")),
            "{row}"
        );
        let one = mcp.ok("umbel_status", json!({ "name": "mc" })).await;
        assert_eq!(one["workers"][0]["host"], "h1", "{one}");
        let missing = mcp
            .err("umbel_spawn", json!({ "name": "mc2", "host": "nowhere" }))
            .await;
        assert_eq!(missing["error"]["code"], "host_unreachable", "{missing}");
        mcp.ok("umbel_kill", json!({ "name": "mc", "purge": true }))
            .await;
    });
    assert!(!h1.session_dir("mc").exists(), "purged on h1");
    assert!(!net.local.state.join("remote/mc.json").exists());
}
