//! Every tool called in-process: the server on one end of an in-memory pipe, rmcp's client on
//! the other, the verbs running against the sandbox's fake workers.

use super::client::*;
use crate::harness::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_works_in_process() {
    let sb = Sandbox::new();
    let mcp = Mcp::in_process(&sb).await;
    let turns = sim::matching(&[("first", "one\ntwo"), ("second", "one\nthree")]);
    mcp.spawn(&sb, "ip", &[sb.scenario("s", turns)]).await;
    for prompt in ["first", "second"] {
        mcp.turn("ip", prompt).await;
    }
    let read = mcp.ok("umbel_read", json!({ "name": "ip" })).await;
    assert_eq!(read["text"], "one\nthree");
    let all = mcp
        .ok("umbel_read", json!({ "name": "ip", "all": true }))
        .await;
    assert_eq!(all["turns"].as_array().map(Vec::len), Some(2), "{all}");
    let actions = mcp.ok("umbel_actions", json!({ "name": "ip" })).await;
    assert_eq!(actions["actions"], json!([]), "{actions}");
    let diff = mcp.ok("umbel_diff", json!({ "name": "ip" })).await;
    assert_eq!(diff["identical"], false);
    assert!(
        diff["unified"]
            .as_str()
            .unwrap_or_default()
            .contains("+three"),
        "{diff}"
    );
    let status = mcp.ok("umbel_status", json!({ "name": "ip" })).await;
    assert_eq!(status["workers"][0]["state"], "ready");
    let ls = mcp.ok("umbel_ls", json!({})).await;
    assert_eq!(ls["workers"].as_array().map(Vec::len), Some(1));
    let screen = mcp.ok("umbel_capture", json!({ "name": "ip" })).await;
    assert!(screen.to_string().contains("one"), "{screen}");
    let logs = mcp.ok("umbel_logs", json!({ "name": "ip" })).await;
    assert!(logs.to_string().contains("UserPromptSubmit"), "{logs}");
    let help = mcp.call("umbel_help", json!({ "topic": "outcomes" })).await;
    assert_eq!(help.is_error, Some(false));
    let killed = mcp.ok("umbel_kill", json!({ "name": "ip" })).await;
    assert_eq!(killed["killed"], json!(["ip"]));
    let pruned = mcp.ok("umbel_prune", json!({})).await;
    assert!(pruned.to_string().contains("ip"), "{pruned}");
    let gone = mcp.err("umbel_read", json!({ "name": "ip" })).await;
    assert_eq!(code(&gone), "not_found");
}
