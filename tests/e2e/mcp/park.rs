//! `umbel_park` and `umbel_resume` (docs/park.md, docs/mcp.md): parking through MCP ends the CLI
//! and keeps the conversation, `umbel_send` resumes it by itself, a busy worker is refused, and
//! `umbel_resume` brings back a worker whose tmux server was killed.

use super::client::*;
use crate::harness::*;
use serde_json::json;

/// Park → `umbel_status` says parked → `umbel_send` resumes (`resumed: true`) and the turn runs
/// on the same conversation; parking twice lists it under `already`.
#[tokio::test(flavor = "multi_thread")]
async fn umbel_park_parks_and_the_next_umbel_send_resumes_the_conversation() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    mcp.spawn(&sb, "pk", &[]).await;
    mcp.turn("pk", "first").await;
    let parked = mcp.ok("umbel_park", json!({ "names": ["pk"] })).await;
    assert_eq!(parked, json!({ "parked": ["pk"], "already": [] }));
    let again = mcp.ok("umbel_park", json!({ "names": ["pk"] })).await;
    assert_eq!(again, json!({ "parked": [], "already": ["pk"] }));
    let status = mcp.ok("umbel_status", json!({ "name": "pk" })).await;
    assert_eq!(status["workers"][0]["state"], "parked", "{status}");
    assert!(status["workers"][0]["parkedAt"].is_u64(), "{status}");
    let sent = mcp
        .ok("umbel_send", json!({ "name": "pk", "prompt": "second" }))
        .await;
    assert_eq!(sent["resumed"], true, "{sent}");
    assert!(sent["resumeMs"].is_u64(), "{sent}");
    let wait = json!({ "name": "pk", "since": sent["position"], "timeout": "60s" });
    assert_eq!(mcp.ok("umbel_wait", wait).await["outcome"], "stop");
    let all = mcp
        .ok("umbel_read", json!({ "name": "pk", "all": true }))
        .await;
    assert_eq!(all["turns"].as_array().map(Vec::len), Some(2), "{all}");
    mcp.client.cancel().await.expect("close");
}

/// A busy worker is refused with `not_resumable` and keeps running; a call with neither names
/// nor idleFor (or both) is a usage error, not a silent no-op.
#[tokio::test(flavor = "multi_thread")]
async fn umbel_park_refuses_a_busy_worker_and_an_empty_call() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    mcp.spawn(&sb, "busy", &wedged(&sb)).await;
    mcp.ok("umbel_send", json!({ "name": "busy", "prompt": "hang" }))
        .await;
    let e = mcp.err("umbel_park", json!({ "names": ["busy"] })).await;
    assert_eq!(code(&e), "not_resumable", "{e}");
    assert!(message(&e).contains("is busy"), "{e}");
    let status = mcp.ok("umbel_status", json!({ "name": "busy" })).await;
    assert_eq!(status["workers"][0]["state"], "busy", "{status}");
    let e = mcp.err("umbel_park", json!({})).await;
    assert_eq!(code(&e), "usage", "{e}");
    let both = json!({ "names": ["busy"], "idleFor": "1m" });
    assert_eq!(code(&mcp.err("umbel_park", both).await), "usage");
    let idle = mcp.ok("umbel_park", json!({ "idleFor": "0s" })).await;
    assert_eq!(
        idle,
        json!({ "parked": [], "already": [] }),
        "busy is passed by"
    );
    mcp.call("umbel_kill", json!({ "name": "busy", "purge": true }))
        .await;
    mcp.client.cancel().await.expect("close");
}

/// The tmux server killed (as a reboot would): the worker is dead, `umbel_resume` brings it back
/// on its conversation, and the next turn is its second.
#[tokio::test(flavor = "multi_thread")]
async fn umbel_resume_brings_back_a_worker_whose_tmux_server_was_killed() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    mcp.spawn(&sb, "rb", &[]).await;
    mcp.turn("rb", "first").await;
    sandbox_tmux(&sb)
        .kill_server()
        .expect("kill umbel's tmux server");
    let status = mcp.ok("umbel_status", json!({ "name": "rb" })).await;
    assert_eq!(status["workers"][0]["state"], "dead", "{status}");
    let resumed = mcp.ok("umbel_resume", json!({ "name": "rb" })).await;
    assert!(resumed["resumeMs"].is_u64(), "{resumed}");
    let e = mcp.err("umbel_resume", json!({ "name": "rb" })).await;
    assert_eq!(code(&e), "not_resumable", "a running worker: {e}");
    mcp.turn("rb", "second").await;
    let all = mcp
        .ok("umbel_read", json!({ "name": "rb", "all": true }))
        .await;
    assert_eq!(all["turns"].as_array().map(Vec::len), Some(2), "{all}");
    mcp.client.cancel().await.expect("close");
}
