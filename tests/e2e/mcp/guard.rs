//! Guardrails over MCP: the same `guard` object on `umbel_send` and `umbel_wait` as the CLI's
//! flags — feedback and retry, `rejected` as an error result with the last check, bad fields.

use super::client::*;
use crate::harness::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_guard_given_to_send_is_enforced_by_wait() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let scenario = sb.scenario("s", sim::accepted_on_retry("Write", "a draft", "DONE"));
    mcp.spawn(&sb, "mg1", &[scenario, sb.record_env()]).await;
    let check = ["sh", "-c", "grep -q DONE || { echo 'say DONE'; exit 1; }"];
    let sent = json!({ "name": "mg1", "prompt": "Write", "guard": { "accept": check } });
    mcp.ok("umbel_send", sent).await;
    let outcome = mcp
        .ok("umbel_wait", json!({ "name": "mg1", "timeout": "60s" }))
        .await;
    assert_eq!(outcome["outcome"], "stop");
    assert_eq!(outcome["attempts"], 2);
    let received = sb.received();
    assert_eq!(received.len(), 2);
    let feedback = String::from_utf8_lossy(&received[1]);
    assert!(feedback.contains("Its output:\nsay DONE\n"), "{feedback}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_schema_never_met_is_a_rejected_error_result() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let schema = sb.root.join("s.json");
    sb.write(&schema, r#"{"type":"object"}"#);
    let scenario = sb.scenario("s", sim::reply("prose only"));
    mcp.spawn(&sb, "mg2", &[scenario]).await;
    mcp.ok("umbel_send", json!({ "name": "mg2", "prompt": "Q" }))
        .await;
    let guard = json!({ "schema": schema, "maxAttempts": 2 });
    let outcome = mcp
        .err(
            "umbel_wait",
            json!({ "name": "mg2", "timeout": "60s", "guard": guard }),
        )
        .await;
    assert_eq!(outcome["outcome"], "rejected");
    assert_eq!(outcome["attempts"], 2);
    assert_eq!(outcome["check"]["check"], "schema");
    let said = outcome["check"]["output"].as_str().unwrap_or_default();
    assert!(said.contains("not JSON"), "{outcome}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_guard_fields_are_refused_with_their_name() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    mcp.spawn(&sb, "mg3", &[]).await;
    let args = json!({ "name": "mg3", "prompt": "x", "guard": { "acept": "true" } });
    let r = mcp.call("umbel_send", args).await;
    assert_eq!(r.is_error, Some(true));
    assert!(format!("{r:?}").contains("unknown field `acept`"), "{r:?}");
    let args = json!({ "name": "mg3", "prompt": "x", "guard": { "accept": "no-such-program-x" } });
    let err = mcp.err("umbel_send", args).await;
    assert_eq!(code(&err), "usage");
    assert!(message(&err).contains("not an executable program"), "{err}");
    assert!(sb.received().is_empty());
}
