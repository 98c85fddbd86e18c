//! Budgets over MCP: `umbel_spawn` takes a `budget` object, `umbel_budget` shows and changes
//! it, a bad limit is refused naming the field and spawns nothing, and a send past the limit is
//! an error result with code `budget`.

use super::client::*;
use crate::harness::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn spawn_takes_a_budget_and_a_send_past_it_is_refused() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let args = json!({ "name": "mb1", "budget": { "maxPrompts": 1 } });
    let r = mcp.call("umbel_spawn", args).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let shown = mcp.call("umbel_budget", json!({ "name": "mb1" })).await;
    assert!(format!("{shown:?}").contains("maxPrompts"), "{shown:?}");
    sb.turn_outcome("mb1", "one", 0);
    // The worker's status resource carries its budget.
    let status = mcp.read_json("umbel://workers/mb1").await;
    assert_eq!(
        status["budget"]["limits"],
        json!({ "maxPrompts": 1 }),
        "{status}"
    );
    assert_eq!(status["budget"]["reached"]["limit"], "prompts", "{status}");
    let err = mcp
        .err("umbel_send", json!({ "name": "mb1", "prompt": "two" }))
        .await;
    assert_eq!(code(&err), "budget", "{err}");
    assert!(message(&err).contains("--max-prompts 1"), "{err}");
    let raised = json!({ "name": "mb1", "limits": { "maxPrompts": 2 } });
    let r = mcp.call("umbel_budget", raised).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let bad = json!({ "name": "mb2", "budget": { "maxTokens": 0 } });
    let r = mcp.call("umbel_spawn", bad).await;
    assert_eq!(r.is_error, Some(true), "{r:?}");
    assert!(format!("{r:?}").contains("positive"), "{r:?}");
    assert!(sb.worker_dirs().iter().all(|d| d != "mb2"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fleets_budget_is_one_call_and_a_target_is_required() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let set = json!({ "fleet": true, "limits": { "maxPrompts": 1 } });
    let r = mcp.call("umbel_budget", set).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert!(format!("{r:?}").contains("maxPrompts"), "{r:?}");
    let r = mcp.call("umbel_spawn", json!({ "name": "mf1" })).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    sb.turn_outcome("mf1", "one", 0);
    let err = mcp
        .err("umbel_send", json!({ "name": "mf1", "prompt": "two" }))
        .await;
    assert_eq!(code(&err), "budget", "{err}");
    assert!(
        message(&err).contains("the fleet's --max-prompts 1"),
        "{err}"
    );
    let err = mcp.err("umbel_budget", json!({})).await;
    assert_eq!(code(&err), "usage", "{err}");
    let both = json!({ "name": "mf1", "fleet": true });
    assert_eq!(code(&mcp.err("umbel_budget", both).await), "usage");
}
