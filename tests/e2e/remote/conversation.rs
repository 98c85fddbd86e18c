//! The MCP conversation tools (`umbel_actions`, `umbel_diff`, `umbel_read` with turn fields) on
//! a remote worker: its host reads its transcript, and the structured results are the same as
//! a local worker's that took the same turns (so they meet the same output schemas). Also
//! `umbel_capture` and `umbel_logs`, whose screen and log are the host's, and `explain`, which
//! the host's umbel gathers.

use super::hosts::Net;
use crate::harness::*;
use crate::mcp::client::Mcp;
use serde_json::{Value, json};

/// Two workers with the same two turns (the second ran a tool): `far` on h1, `near` here.
async fn twins(net: &Net, mcp: &Mcp) {
    let h1 = &net.host("h1").sandbox;
    let tool = json!({ "tool": "Bash", "input": { "command": "echo hi" } });
    let scenario =
        json!({ "turns": [{ "reply": "one" }, { "reply": "two", "end": { "permission": tool } }] });
    let there = h1.scenario("far", scenario.clone());
    let here = net.local.scenario("near", scenario);
    let far = json!({ "name": "far", "host": "h1", "cwd": h1.project, "env": [there], "unattended": true });
    let near =
        json!({ "name": "near", "cwd": net.local.project, "env": [here], "unattended": true });
    mcp.ok("umbel_spawn", far).await;
    mcp.ok("umbel_spawn", near).await;
    for prompt in ["first", "second"] {
        mcp.turn("far", prompt).await;
        mcp.turn("near", prompt).await;
    }
}

/// `tool` with `args` on both workers: the remote one's structured result, and the local one's
/// with its name made the remote one's.
async fn both(mcp: &Mcp, tool: &str, args: Value) -> (Value, Value) {
    let with = |name: &str| {
        let mut args = args.clone();
        args["name"] = json!(name);
        args
    };
    let far = mcp.ok(tool, with("far")).await;
    let mut near = mcp.ok(tool, with("near")).await;
    if near.get("name").is_some() {
        near["name"] = json!("far");
    }
    (far, near)
}

fn with_net(test: impl AsyncFnOnce(&Net, &Mcp)) {
    let Some(net) = Net::up(1) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let mcp = Mcp::start(&net.local).await;
        twins(&net, &mcp).await;
        test(&net, &mcp).await;
    });
}

#[test]
fn actions_and_diff_of_a_remote_worker_are_a_local_ones() {
    with_net(async |_, mcp| {
        let (far, near) = both(mcp, "umbel_actions", json!({})).await;
        assert_eq!(far, near);
        assert_eq!(
            far["actions"],
            json!([{ "tool": "Bash", "input": "echo hi", "status": "ok" }]),
            "{far}"
        );
        let (far, near) = both(mcp, "umbel_actions", json!({ "turn": 1 })).await;
        assert_eq!((far["turn"].clone(), far.clone()), (json!(1), near));
        let (far, near) = both(mcp, "umbel_diff", json!({})).await;
        assert_eq!(far, near);
        assert_eq!(far["hunks"][0]["lines"], json!(["-one", "+two"]), "{far}");
        let same = json!({ "from": 1, "to": 1 });
        let (far, near) = both(mcp, "umbel_diff", same).await;
        assert_eq!((far["identical"].clone(), far.clone()), (json!(true), near));
        // The host's own error comes back as one, naming what it said.
        let beyond = mcp
            .err("umbel_actions", json!({ "name": "far", "turn": 3 }))
            .await;
        let said = beyond["error"]["message"].as_str().unwrap_or_default();
        assert!(said.contains("has 2 turns"), "{beyond}");
    });
}

#[test]
fn earlier_turns_of_a_remote_worker_read_as_a_local_ones() {
    with_net(async |_, mcp| {
        let (far, near) = both(mcp, "umbel_read", json!({ "turn": 1 })).await;
        assert_eq!(far, near);
        assert_eq!(
            (&far["prompt"], &far["answer"]),
            (&json!("first"), &json!("one"))
        );
        let (far, near) = both(mcp, "umbel_read", json!({ "all": true })).await;
        assert_eq!(far, near);
        assert_eq!(far["turns"].as_array().map(Vec::len), Some(2), "{far}");
        let (far, near) = both(mcp, "umbel_read", json!({ "sinceTurn": 1 })).await;
        assert_eq!(far, near);
        assert_eq!(far["turns"][0]["answer"], "two", "{far}");
        let (far, near) = both(mcp, "umbel_read", json!({})).await;
        assert_eq!(far["text"], near["text"]);
        let both_fields = json!({ "name": "far", "turn": 1, "all": true });
        let refused = mcp.err("umbel_read", both_fields).await;
        assert_eq!(refused["error"]["code"], "usage", "checked here: {refused}");
    });
}

#[test]
fn the_screen_and_log_of_a_remote_worker_are_its_hosts() {
    with_net(async |net, mcp| {
        let h1 = &net.host("h1").sandbox;
        let log = mcp.ok("umbel_logs", json!({ "name": "far" })).await;
        let there = h1.run(&["logs", "far"]);
        assert_success(&there, "logs on h1");
        assert_eq!(
            format!("{}\n", log["log"].as_str().unwrap_or_default()),
            stdout(&there)
        );
        assert!(stdout(&there).contains(" Stop "), "{}", stdout(&there));
        let screen = mcp.ok("umbel_capture", json!({ "name": "far" })).await;
        let screen = screen["screen"].as_str().unwrap_or_default();
        assert!(
            screen.contains("two"),
            "the last answer is on the screen: {screen}"
        );
        let history = json!({ "name": "far", "history": true });
        let all = mcp.ok("umbel_capture", history).await;
        assert!(all["screen"].as_str().is_some(), "{all}");
    });
}

#[test]
fn a_remote_worker_is_explained_by_its_host_as_a_local_one_is_here() {
    with_net(async |net, mcp| {
        let (far, near) = both(mcp, "umbel_explain", json!({})).await;
        assert_eq!(far["host"], "h1", "{far}");
        assert!(near.get("host").is_none(), "{near}");
        let meanings = |v: &Value| -> Vec<Value> {
            let events = v["events"].as_array().cloned().unwrap_or_default();
            events.iter().map(|e| e["meaning"].clone()).collect()
        };
        assert_eq!(meanings(&far), meanings(&near));
        for key in ["state", "derivation"] {
            assert_eq!(far[key], near[key], "{key}: {far}");
        }
        assert_eq!(far["next"]["action"], near["next"]["action"]);
        assert_eq!(far["screen"]["reading"], near["screen"]["reading"]);
        // The command line names the host too, in JSON and in text.
        let cli = net
            .local
            .umbel(["explain", "far", "--json"])
            .success()
            .json();
        assert_eq!(
            (&cli["host"], &cli["state"]),
            (&json!("h1"), &json!("ready"))
        );
        net.local
            .umbel(["explain", "far"])
            .stdout_has("far on h1")
            .stdout_has("accept a send")
            .success();
    });
}

/// A remote worker stopped at a tool: the fleet's approvals list it with its host, and approving
/// it here presses the keys on its host and returns the finished turn.
#[test]
fn a_remote_worker_s_approval_is_listed_and_answered_from_here() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let mcp = Mcp::start(&net.local).await;
        let h1 = &net.host("h1").sandbox;
        let tool = json!({ "tool": "Bash", "input": { "command": "rm -rf build" } });
        let scenario =
            json!({ "turns": [{ "match": "clean", "reply": "Cleaned.", "end": { "permission": tool } }] });
        let env = h1.scenario("far", scenario);
        let far = json!({ "name": "far", "host": "h1", "cwd": h1.project, "env": [env] });
        mcp.ok("umbel_spawn", far).await;
        let sent = mcp
            .ok("umbel_send", json!({ "name": "far", "prompt": "clean up" }))
            .await;
        let since = sent["position"].as_u64().expect("position");
        let args = json!({ "name": "far", "since": since, "timeout": "60s" });
        let waited = mcp.err("umbel_wait", args).await;
        assert_eq!(waited["outcome"], "input", "{waited}");
        let listed = mcp.ok("umbel_approvals", json!({})).await;
        let rows = listed["approvals"].as_array().cloned().unwrap_or_default();
        assert_eq!(rows.len(), 1, "{listed}");
        assert_eq!((&rows[0]["name"], &rows[0]["host"]), (&json!("far"), &json!("h1")));
        assert_eq!(rows[0]["id"], waited["approvalId"], "{listed}");
        let answer = json!({ "name": "far", "expect": rows[0]["id"], "wait": true });
        let done = mcp.ok("umbel_approve", answer).await;
        assert_eq!(done["outcome"]["outcome"], "stop", "{done}");
        let read = mcp.ok("umbel_read", json!({ "name": "far" })).await;
        assert_eq!(read["text"], "Cleaned.", "{read}");
    });
}
