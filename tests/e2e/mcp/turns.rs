//! Tool calls on fake claude workers: a full turn, failed verbs, non-stop outcomes, malformed
//! calls, two calls in flight, a cancelled wait.

use super::client::*;
use crate::harness::*;
use rmcp::model::{CallToolRequest, ClientRequest, ServerResult};
use rmcp::service::PeerRequestOptions;
use rmcp::{RoleClient, ServiceError};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread")]
async fn spawn_send_wait_read_kill_over_mcp() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let info = mcp.client.peer_info().expect("server info");
    let server = info.server_info.as_ref().expect("implementation");
    assert_eq!(server.name, "umbel");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    assert!(
        info.instructions
            .as_deref()
            .is_some_and(|i| i.contains("umbel_help"))
    );
    let mut names: Vec<String> = (mcp.client.list_all_tools().await.expect("tools/list"))
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    let expected = [
        "actions",
        "answer",
        "approvals",
        "approve",
        "budget",
        "capture",
        "deny",
        "diff",
        "explain",
        "help",
        "interrupt",
        "kill",
        "logs",
        "ls",
        "mode",
        "model",
        "park",
        "prune",
        "read",
        "resume",
        "send",
        "spawn",
        "status",
        "wait",
    ];
    assert_eq!(names, expected.map(|v| format!("umbel_{v}")));

    mcp.spawn(&sb, "m1", &[]).await;
    let sent = mcp
        .ok(
            "umbel_send",
            json!({ "name": "m1", "prompt": "hello over mcp" }),
        )
        .await;
    let position = sent["position"].as_u64().expect("position");
    let args = json!({ "name": "m1", "since": position, "timeout": "60s" });
    let outcome = mcp.ok("umbel_wait", args).await;
    assert_eq!(outcome["outcome"], "stop");
    let r = mcp.call("umbel_read", json!({ "name": "m1" })).await;
    let answer = r.structured_content.clone().expect("answer");
    assert_eq!(answer["text"], "Response to: hello over mcp");
    assert_eq!(answer["isError"], false);
    let text = r
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone());
    assert_eq!(text.as_deref(), Some("Response to: hello over mcp"));
    let status = mcp.ok("umbel_status", json!({ "name": "m1" })).await;
    assert_eq!(status["workers"][0]["state"], "ready");
    let log = mcp.ok("umbel_logs", json!({ "name": "m1" })).await;
    assert!(log["log"].as_str().unwrap().contains(" Stop "), "{log}");
    let screen = mcp.ok("umbel_capture", json!({ "name": "m1" })).await;
    assert!(
        screen["screen"]
            .as_str()
            .unwrap()
            .contains("hello over mcp"),
        "{screen}"
    );
    let follow = mcp
        .err("umbel_logs", json!({ "name": "m1", "follow": true }))
        .await;
    assert_eq!(code(&follow), "usage");
    let killed = mcp.ok("umbel_kill", json!({ "name": "m1" })).await;
    assert_eq!(killed["killed"], json!(["m1"]));
    let ls = mcp.ok("umbel_ls", json!({})).await;
    assert_eq!(ls["workers"][0]["state"], "dead", "a tombstone stays");
    let pruned = mcp.ok("umbel_prune", json!({})).await;
    assert_eq!(pruned["removed"], json!(["m1"]));
    mcp.client.cancel().await.expect("close");
}

// ---- failures, outcomes, malformed calls, concurrency, cancellation ----

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_verb_is_an_error_result_with_its_code() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let e = mcp.err("umbel_read", json!({ "name": "ghost" })).await;
    assert_eq!(code(&e), "not_found");
    assert!(message(&e).contains("`ghost`"), "{e}");
    let e = mcp
        .err("umbel_wait", json!({ "name": "ghost", "timeout": "1s" }))
        .await;
    assert_eq!(code(&e), "not_found");
    let e = mcp.err("umbel_spawn", json!({ "name": "Bad Name" })).await;
    assert_eq!(code(&e), "invalid_name");
    let e = mcp.err("umbel_kill", json!({ "name": "ghost" })).await;
    assert_eq!(code(&e), "not_found");
    // One variable past the kernel's 128 KiB, refused before anything starts (the CLI would
    // exit 126 at its start).
    let big = format!("BIG={}", "x".repeat(140_000));
    let e = mcp
        .err("umbel_spawn", json!({ "name": "big", "env": [big] }))
        .await;
    assert_eq!(code(&e), "usage");
    assert!(
        message(&e).contains("`--env BIG`") && message(&e).contains("131072 bytes"),
        "{e}"
    );
    assert!(sb.worker_dirs().is_empty(), "nothing left of it");
    assert_eq!(
        mcp.ok("umbel_ls", json!({})).await,
        json!({ "workers": [] })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wedged_worker_times_out_as_an_error_result() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    mcp.spawn(&sb, "t1", &wedged(&sb)).await;
    mcp.ok("umbel_send", json!({ "name": "t1", "prompt": "hang" }))
        .await;
    let started = Instant::now();
    let outcome = mcp
        .err("umbel_wait", json!({ "name": "t1", "timeout": "1s" }))
        .await;
    assert_eq!(outcome["outcome"], "timeout");
    assert!(outcome["position"].is_u64(), "{outcome}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let status = mcp.ok("umbel_status", json!({ "name": "t1" })).await;
    assert_eq!(status["workers"][0]["state"], "busy");
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_calls_are_answered_and_the_server_keeps_serving() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    mcp.spawn(&sb, "b1", &[]).await;

    match mcp.try_call("umbel_nope", json!({})).await {
        Err(ServiceError::McpError(e)) => {
            assert!(e.message.contains("unknown tool `umbel_nope`"), "{e:?}");
            assert!(e.message.contains("umbel_spawn"), "{e:?}");
        }
        other => panic!("unknown tool: {other:?}"),
    }
    #[rustfmt::skip]
    let cases = [
        ("umbel_read", json!({}), "missing field `name`"),
        ("umbel_wait", json!({ "name": "b1", "since": "soon" }), "invalid type"),
        ("umbel_status", json!({ "nam": "b1" }), "unknown field `nam`"),
        ("umbel_wait", json!({ "name": "b1", "timout": "1s" }), "unknown field `timout`"),
        ("umbel_spawn", json!({ "provider": "nope" }), "unknown variant `nope`"),
        ("umbel_send", json!({ "name": "b1" }), "needs `prompt`"),
        ("umbel_send", json!({ "name": "b1", "prompt": "-" }), "needs `prompt`"),
        ("umbel_help", json!({ "topic": "nope" }), "lifecycle, providers, outcomes"),
    ];
    for (tool, args, needle) in cases {
        let e = mcp.err(tool, args.clone()).await;
        assert_eq!(code(&e), "usage", "{tool} {args}: {e}");
        assert!(message(&e).contains(needle), "{tool} {args}: {e}");
    }
    let huge = "x".repeat(2 * 1024 * 1024);
    let e = mcp
        .err("umbel_send", json!({ "name": "b1", "prompt": huge }))
        .await;
    assert_eq!(code(&e), "usage");
    assert!(message(&e).contains("1 MiB"), "{e}");

    // Still serving, and the worker took none of it.
    let help = mcp.call("umbel_help", json!({ "topic": "outcomes" })).await;
    assert_eq!(help.is_error, Some(false));
    mcp.turn("b1", "after all that").await;
    let answer = mcp.ok("umbel_read", json!({ "name": "b1" })).await;
    assert_eq!(answer["text"], "Response to: after all that");
}

/// What the server logs once a cancelled wait has actually stopped.
const CANCELLED: &str = "umbel_wait cancelled by the client; the worker is left as it was";

/// Starts a `umbel_wait` that can be cancelled later.
async fn start_wait(mcp: &Mcp, args: Value) -> rmcp::service::RequestHandle<RoleClient> {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params("umbel_wait", args)));
    mcp.client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("send wait")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_wait_does_not_hold_up_another_workers_turn() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    mcp.spawn(&sb, "slow", &wedged(&sb)).await;
    mcp.spawn(&sb, "fast", &[]).await;
    mcp.ok("umbel_send", json!({ "name": "slow", "prompt": "hang" }))
        .await;
    let long = start_wait(&mcp, json!({ "name": "slow", "timeout": "60s" })).await;
    let mut pending = tokio::spawn(long.await_response());

    let started = Instant::now();
    mcp.turn("fast", "meanwhile").await;
    let answer = mcp.ok("umbel_read", json!({ "name": "fast" })).await;
    assert_eq!(answer["text"], "Response to: meanwhile");
    eprintln!("fast turn beside a pending wait: {:?}", started.elapsed());
    assert!(!pending.is_finished(), "the slow wait is still in flight");

    // The pending wait reports progress about once a second.
    let deadline = Instant::now() + Duration::from_secs(10);
    while mcp.progress.lock().expect("progress").len() < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let progress = mcp.progress.lock().expect("progress").clone();
    assert!(progress.len() >= 2, "{progress:?}");
    assert!(progress.windows(2).all(|w| w[0].progress <= w[1].progress));
    assert!(
        progress[0]
            .message
            .as_deref()
            .is_some_and(|m| m.contains("`slow`"))
    );

    let stop = mcp.call("umbel_kill", json!({ "name": "slow" })).await;
    assert_eq!(stop.is_error, Some(false));
    let ended = tokio::time::timeout(Duration::from_secs(20), &mut pending).await;
    match ended.expect("the wait ends once its worker is killed") {
        Ok(Ok(ServerResult::CallToolResult(r))) => {
            let outcome = r.structured_content.expect("outcome");
            assert_eq!(outcome["outcome"], "dead", "{outcome}");
        }
        other => panic!("wait: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_wait_leaves_the_worker_busy() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    mcp.spawn(&sb, "c1", &wedged(&sb)).await;
    mcp.ok("umbel_send", json!({ "name": "c1", "prompt": "hang" }))
        .await;
    let wait = start_wait(&mcp, json!({ "name": "c1", "timeout": "60s" })).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    wait.cancel(Some("test".into())).await.expect("cancel");

    let deadline = Instant::now() + Duration::from_secs(5);
    while !mcp.log().contains(CANCELLED) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(mcp.log().contains(CANCELLED), "{}", mcp.log());
    let status = mcp.ok("umbel_status", json!({ "name": "c1" })).await;
    assert_eq!(
        status["workers"][0]["state"], "busy",
        "the worker is untouched"
    );
    // The same worker can be waited on again.
    let outcome = mcp
        .err("umbel_wait", json!({ "name": "c1", "timeout": "1s" }))
        .await;
    assert_eq!(outcome["outcome"], "timeout");
}

#[tokio::test(flavor = "multi_thread")]
async fn umbel_explain_gives_the_evidence_and_the_next_move_of_a_worker_or_a_saved_screen() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    mcp.spawn(&sb, "e1", &wedged(&sb)).await;
    mcp.ok("umbel_send", json!({ "name": "e1", "prompt": "hang" }))
        .await;
    let r = mcp.call("umbel_explain", json!({ "name": "e1" })).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let found = r.structured_content.clone().expect("structured");
    assert_eq!(found["state"], "busy", "{found}");
    assert_eq!(found["shown"], "working", "{found}");
    assert_eq!(found["next"]["action"], "wait", "{found}");
    let text = r
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone());
    assert!(
        text.as_deref()
            .is_some_and(|t| t.starts_with("`e1` is working; next: wait")),
        "{text:?}"
    );
    let screen = sb.project.join("screen.txt");
    let recorded = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gemini/gemini-0.61.0-startup-trust-dialog.txt");
    std::fs::copy(recorded, &screen).expect("copy the screen");
    // A client's path is never opened (it named a private key, and `/dev/stdin` swallowed the
    // server's own requests): it sends the text.
    for path in [screen.to_string_lossy().into_owned(), "/dev/stdin".into()] {
        let args = json!({ "screen": path, "provider": "gemini" });
        let refused = mcp.err("umbel_explain", args).await;
        assert_eq!(code(&refused), "usage", "{refused}");
        assert!(refused.to_string().contains("screenText"), "{refused}");
    }
    let text = std::fs::read_to_string(&screen).expect("read");
    let args = json!({ "screenText": text, "provider": "gemini", "version": "0.62.0" });
    let found = mcp.ok("umbel_explain", args).await;
    assert_eq!(found["screen"]["reading"], "dialog", "{found}");
    assert_eq!(found["cli"]["version"], "0.62.0");
    let both = json!({ "name": "e1", "screenText": "x", "provider": "gemini" });
    let refused = mcp.err("umbel_explain", both).await;
    assert_eq!(code(&refused), "usage", "{refused}");
    mcp.client.cancel().await.expect("close");
}
