//! What a host sees of each tool besides its input: annotations, an `outputSchema` that every
//! success's structured content validates against, and error results whose one text line holds
//! the whole error (kind, exit code, hint, JSON), as hosts show the model only that text.

use super::client::*;
use crate::harness::*;
use rmcp::model::{CallToolResult, Tool};
use serde_json::{Value, json};

/// The tool's output schema, compiled.
fn validator(tool: &Tool) -> jsonschema::Validator {
    let schema = Value::Object(
        tool.output_schema
            .as_deref()
            .unwrap_or_else(|| panic!("{}: no outputSchema", tool.name))
            .clone(),
    );
    assert_eq!(
        schema["type"], "object",
        "{}: root must be an object",
        tool.name
    );
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{}: {e}", tool.name))
}

/// Calls `tool` expecting success and checks its structured content against its schema.
async fn checked(mcp: &Mcp, tools: &[Tool], tool: &str, args: Value, seen: &mut Vec<String>) {
    let r = mcp.call(tool, args).await;
    assert_eq!(r.is_error, Some(false), "{tool} failed: {r:?}");
    let content = r.structured_content.unwrap_or(Value::Null);
    let declared = tools.iter().find(|t| t.name == tool).expect("listed");
    let problems: Vec<String> = validator(declared)
        .iter_errors(&content)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(problems.is_empty(), "{tool}: {content}\n{problems:#?}");
    seen.push(tool.to_string());
}

fn text(r: &CallToolResult) -> String {
    r.content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tools_structured_output_validates_against_its_output_schema() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let tools = mcp.client.list_all_tools().await.expect("tools/list");
    let mut seen = Vec::new();
    let name = json!({ "name": "o1" });
    checked(&mcp, &tools, "umbel_help", json!({}), &mut seen).await;
    let spawn = json!({ "name": "o1", "cwd": sb.project });
    checked(&mcp, &tools, "umbel_spawn", spawn, &mut seen).await;
    for prompt in ["first", "second"] {
        let sent = mcp
            .ok("umbel_send", json!({ "name": "o1", "prompt": prompt }))
            .await;
        let wait = json!({ "name": "o1", "since": sent["position"], "timeout": "60s" });
        checked(&mcp, &tools, "umbel_wait", wait, &mut seen).await;
    }
    let send = json!({ "name": "o1", "prompt": "third" });
    checked(&mcp, &tools, "umbel_send", send, &mut seen).await;
    mcp.ok("umbel_wait", json!({ "name": "o1", "timeout": "60s" }))
        .await;
    checked(&mcp, &tools, "umbel_read", name.clone(), &mut seen).await;
    let one = json!({ "name": "o1", "turn": 1 });
    checked(&mcp, &tools, "umbel_read", one, &mut seen).await;
    let all = json!({ "name": "o1", "all": true });
    checked(&mcp, &tools, "umbel_read", all, &mut seen).await;
    checked(&mcp, &tools, "umbel_actions", name.clone(), &mut seen).await;
    checked(&mcp, &tools, "umbel_diff", name.clone(), &mut seen).await;
    checked(&mcp, &tools, "umbel_status", name.clone(), &mut seen).await;
    checked(&mcp, &tools, "umbel_ls", json!({}), &mut seen).await;
    checked(&mcp, &tools, "umbel_capture", name.clone(), &mut seen).await;
    checked(&mcp, &tools, "umbel_logs", name.clone(), &mut seen).await;
    checked(&mcp, &tools, "umbel_explain", name.clone(), &mut seen).await;
    checked(&mcp, &tools, "umbel_interrupt", name.clone(), &mut seen).await;
    let plan = json!({ "name": "o1", "mode": "plan" });
    checked(&mcp, &tools, "umbel_mode", plan, &mut seen).await;
    let limits = json!({ "name": "o1", "limits": { "maxTokens": 9000000 } });
    checked(&mcp, &tools, "umbel_budget", limits, &mut seen).await;
    let sonnet = json!({ "name": "o1", "model": "sonnet" });
    checked(&mcp, &tools, "umbel_model", sonnet, &mut seen).await;
    let tool = json!({ "tool": "Bash", "input": { "command": "echo hi > t.txt" } });
    for asking in ["ap", "dn"] {
        let scenario = json!({ "default": { "reply": "Ran.", "end": { "permission": tool } } });
        sb.spawn_playing(asking, scenario, &[]);
        sb.turn_outcome(asking, "run it", 126);
    }
    let question = json!({ "tool": "AskUserQuestion", "input": { "questions": [{
        "question": "Which?", "header": "h", "multiSelect": false,
        "options": [{ "label": "Red", "description": "" }, { "label": "Blue", "description": "" }] }] } });
    let scenario = json!({ "default": { "reply": "Chosen.", "end": { "permission": question } } });
    sb.spawn_playing("qa", scenario, &[]);
    sb.turn_outcome("qa", "ask me", 126);
    checked(&mcp, &tools, "umbel_approvals", json!({}), &mut seen).await;
    let answer = json!({ "name": "qa", "choice": "2", "wait": true, "timeout": "60s" });
    checked(&mcp, &tools, "umbel_answer", answer, &mut seen).await;
    let approve = json!({ "name": "ap", "wait": true, "timeout": "60s" });
    checked(&mcp, &tools, "umbel_approve", approve, &mut seen).await;
    checked(
        &mcp,
        &tools,
        "umbel_deny",
        json!({ "name": "dn" }),
        &mut seen,
    )
    .await;
    let park = json!({ "names": ["o1"] });
    checked(&mcp, &tools, "umbel_park", park, &mut seen).await;
    checked(&mcp, &tools, "umbel_resume", name.clone(), &mut seen).await;
    checked(&mcp, &tools, "umbel_kill", name.clone(), &mut seen).await;
    checked(&mcp, &tools, "umbel_ls", json!({}), &mut seen).await;
    checked(&mcp, &tools, "umbel_prune", json!({}), &mut seen).await;
    let mut listed: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    listed.sort();
    seen.sort();
    seen.dedup();
    assert_eq!(seen, listed, "every tool was checked");
    mcp.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_has_a_title_and_hints_and_kill_and_prune_are_destructive() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    for t in mcp.client.list_all_tools().await.expect("tools/list") {
        let a = t.annotations.clone().unwrap_or_default();
        assert!(
            a.title.as_deref().is_some_and(|s| !s.is_empty()),
            "{}",
            t.name
        );
        assert_eq!(t.title, a.title, "{}", t.name);
        let destructive = ["umbel_kill", "umbel_prune"].contains(&&*t.name);
        assert_eq!(a.destructive_hint, Some(destructive), "{}", t.name);
        assert!(
            a.idempotent_hint.is_some() && a.open_world_hint.is_some(),
            "{}",
            t.name
        );
        let talks_to_a_model = [
            "umbel_spawn",
            "umbel_send",
            "umbel_wait",
            "umbel_approve",
            "umbel_deny",
            "umbel_answer",
        ]
        .contains(&&*t.name);
        assert_eq!(a.open_world_hint, Some(talks_to_a_model), "{}", t.name);
    }
    mcp.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_tools_text_holds_its_kind_exit_code_hint_and_json() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let r = mcp.call("umbel_read", json!({ "name": "ghost" })).await;
    assert_eq!(r.is_error, Some(true));
    let line = text(&r);
    assert!(!line.contains('\n'), "{line}");
    assert!(line.starts_with("error not_found (exit 1): "), "{line}");
    assert!(
        line.contains("Hint: list the workers with `umbel ls`"),
        "{line}"
    );
    let (_, tail) = line.split_once(" JSON: ").expect("JSON at the end");
    let json: Value = serde_json::from_str(tail).expect("the JSON parses");
    assert_eq!(Some(&json), r.structured_content.as_ref());
    assert_eq!(json["error"]["exitCode"], 1);

    // A wait that times out: the outcome, its exit code and what to do next.
    mcp.spawn(&sb, "o2", &wedged(&sb)).await;
    let sent = mcp
        .ok("umbel_send", json!({ "name": "o2", "prompt": "hang" }))
        .await;
    let wait = json!({ "name": "o2", "since": sent["position"], "timeout": "1s" });
    let r = mcp.call("umbel_wait", wait).await;
    assert_eq!(r.is_error, Some(true));
    let line = text(&r);
    assert!(line.starts_with("timeout (exit 124): `o2`"), "{line}");
    assert!(line.contains("Hint: the turn is still running"), "{line}");
    assert!(line.contains("JSON: {\"outcome\":\"timeout\""), "{line}");
    mcp.call("umbel_kill", json!({ "name": "o2", "purge": true }))
        .await;
    mcp.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_spawn_reports_progress() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let slow = sb.scenario("slow-start", json!({ "startup": { "delay_ms": 2500 } }));
    mcp.spawn(&sb, "p1", &[slow]).await;
    let progress = mcp.progress.lock().expect("progress").clone();
    assert!(!progress.is_empty(), "no progress during a 2.5 s startup");
    assert!(
        progress[0]
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("starting `p1`")),
        "{progress:?}"
    );
    mcp.call("umbel_kill", json!({ "name": "p1", "purge": true }))
        .await;
    mcp.client.cancel().await.expect("close");
}
