//! The conversation tools over MCP: `umbel_read` with turn fields, `umbel_actions`,
//! `umbel_diff`, on a fake claude worker that answered two prompts (the second ran a tool).

use super::client::*;
use crate::harness::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn earlier_turns_actions_and_diffs_over_mcp() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let tool = json!({ "tool": "Bash", "input": { "command": "echo hi" } });
    let scenario = sb.scenario(
        "s",
        json!({ "turns": [{ "reply": "one" }, { "reply": "two", "end": { "permission": tool } }] }),
    );
    let args = json!({ "name": "t1", "cwd": sb.project, "env": [scenario], "unattended": true });
    mcp.ok("umbel_spawn", args).await;
    for prompt in ["first", "second"] {
        mcp.turn("t1", prompt).await;
    }
    let first = mcp
        .ok("umbel_read", json!({ "name": "t1", "turn": 1 }))
        .await;
    assert_eq!(first["prompt"], "first");
    assert_eq!(first["answer"], "one");
    let all = mcp
        .ok("umbel_read", json!({ "name": "t1", "all": true }))
        .await;
    assert_eq!(all["turns"].as_array().map(Vec::len), Some(2));
    let since = mcp
        .ok("umbel_read", json!({ "name": "t1", "sinceTurn": 1 }))
        .await;
    assert_eq!(since["turns"], json!([all["turns"][1]]));
    let both = mcp
        .err(
            "umbel_read",
            json!({ "name": "t1", "turn": 1, "all": true }),
        )
        .await;
    assert_eq!(code(&both), "usage", "the turn fields exclude each other");
    let beyond = mcp
        .err("umbel_read", json!({ "name": "t1", "turn": 3 }))
        .await;
    assert_eq!(code(&beyond), "turn_out_of_range");
    assert!(message(&beyond).contains("has 2 turns"), "{beyond}");

    let actions = mcp.ok("umbel_actions", json!({ "name": "t1" })).await;
    assert_eq!(actions["turn"], 2);
    assert_eq!(
        actions["actions"],
        json!([{ "tool": "Bash", "input": "echo hi", "status": "ok" }])
    );
    let diff = mcp.ok("umbel_diff", json!({ "name": "t1" })).await;
    assert_eq!(diff["identical"], false);
    assert_eq!(diff["hunks"][0]["lines"], json!(["-one", "+two"]));
    let same = mcp
        .ok("umbel_diff", json!({ "name": "t1", "from": 1, "to": 1 }))
        .await;
    assert_eq!(same["identical"], true);
    mcp.client.cancel().await.expect("close");
}
