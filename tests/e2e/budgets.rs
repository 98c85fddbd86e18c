//! Budgets' bad input and faces: limits that are zero, negative, not numbers or in unknown
//! units are usage errors naming the flag and leave no worker behind; a dollar limit on a model
//! without a known price is refused at spawn; `umbel budget` changes one limit and keeps the
//! others (MCP: `mcp/budget.rs`).

use crate::harness::*;
use serde_json::{Value, json};

#[test]
fn bad_limits_are_usage_errors_naming_the_flag_and_spawn_nothing() {
    let sb = Sandbox::new();
    let cases: &[(&[&str], &str)] = &[
        (&["--max-tokens", "0"], "--max-tokens"),
        (&["--max-tokens", "-5"], "--max-tokens"),
        (&["--max-tokens", "2G"], "--max-tokens"),
        (&["--max-tokens", "lots"], "--max-tokens"),
        (&["--max-prompts", "2.5"], "--max-prompts"),
        (&["--max-budget-usd", "0"], "--max-budget-usd"),
        (&["--max-budget-usd", "5 EUR"], "--max-budget-usd"),
        // No model: its price, and so its cost, is unknown.
        (&["--max-budget-usd", "5"], "--max-budget-usd"),
        (
            &["--max-budget-usd", "5", "--model", "my-own-model"],
            "my-own-model",
        ),
    ];
    for (flags, named) in cases {
        let mut args = vec!["spawn", "--name", "b"];
        args.extend(*flags);
        let refused = sb.umbel(&args).status(2);
        assert!(
            refused.stderr().contains(named),
            "{flags:?}: {}",
            refused.stderr()
        );
    }
    assert!(sb.ls().is_empty(), "a refused spawn left a worker");
    assert!(sb.worker_dirs().is_empty(), "a refused spawn left a folder");
}

#[test]
fn a_priced_model_takes_a_dollar_limit_and_budget_changes_one_limit() {
    let sb = Sandbox::new();
    sb.spawn(
        "b",
        &["--model", "claude-opus-5-5", "--max-budget-usd", "$2.50"],
    );
    let shown: Value = sb.umbel(["budget", "b", "--json"]).run().json();
    assert_eq!(shown["limits"], json!({ "maxBudgetUsd": 2.5 }), "{shown}");
    let changed: Value = sb
        .umbel(["budget", "b", "--max-prompts", "4", "--json"])
        .run()
        .json();
    assert_eq!(
        changed["limits"],
        json!({ "maxBudgetUsd": 2.5, "maxPrompts": 4 }),
        "{changed}"
    );
    let text = sb.umbel(["budget", "b"]).run();
    assert!(
        text.stdout().contains("0 prompts of 4"),
        "{}",
        text.stdout()
    );
    sb.umbel(["budget", "b", "--max-prompts", "0"]).status(2);
    sb.umbel(["budget", "nobody"]).status(1);
}
