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

#[test]
fn a_runs_prompt_budget_counts_every_worker_and_stops_the_run_at_it() {
    let sb = Sandbox::new();
    let path = crate::workflow::workflow(
        &sb,
        r#"
budget: {maxPrompts: 2}
workers:
  a: {}
  b: {provider: codex}
steps:
  - {id: one, worker: a, prompt: first}
  - {id: two, worker: b, needs: [one], prompt: second}
  - {id: three, worker: a, needs: [two], prompt: third}
"#,
    )
    .display()
    .to_string();
    let out = crate::workflow::run(&sb, &[&path]).status(120);
    let run_id = crate::workflow::run_id_of(&out);
    let record = crate::workflow::run_record(&sb, &run_id);
    assert_eq!(record["failed"]["step"], "three", "{record:#}");
    let err = out.stderr();
    assert!(
        err.contains(&format!(
            "run {run_id}'s budget maxPrompts 2 reached: 2 used"
        )),
        "{err}"
    );
    assert!(err.contains("--resume"), "{err}");
    // Raised in the file, the resumed run finishes: the purged workers' prompts stay counted.
    let raised = std::fs::read_to_string(&path)
        .expect("wf")
        .replace("maxPrompts: 2", "maxPrompts: 3");
    sb.write(&path, &raised);
    crate::workflow::run(&sb, &[&path, "--resume", &run_id]).success();
    let pool = sb.state.join("workflows").join(&run_id).join("budget.json");
    let pool: Value = serde_json::from_slice(&std::fs::read(pool).expect("pool")).expect("json");
    assert_eq!(pool["limits"], json!({ "maxPrompts": 3 }), "{pool}");
}

#[test]
fn a_runs_token_budget_lets_the_turn_that_crossed_it_finish_and_refuses_the_next_step() {
    let sb = Sandbox::new();
    let path = crate::workflow::workflow(
        &sb,
        r#"
budget: {maxTokens: 1}
workers:
  a: {provider: gemini}
steps:
  - {id: one, worker: a, prompt: first}
  - {id: two, worker: a, needs: [one], prompt: second}
"#,
    )
    .display()
    .to_string();
    let out = crate::workflow::run(&sb, &[&path]).status(120);
    let run_id = crate::workflow::run_id_of(&out);
    let record = crate::workflow::run_record(&sb, &run_id);
    assert_eq!(record["failed"]["step"], "two", "{record:#}");
    let one = &record["steps"][0];
    assert_eq!(one["status"], "done", "{record:#}");
    assert!(
        out.stderr().contains("budget maxTokens 1 reached"),
        "{}",
        out.stderr()
    );
}

#[test]
fn a_runs_dollar_budget_needs_priced_models() {
    let sb = Sandbox::new();
    let path = crate::workflow::workflow(
        &sb,
        r#"
budget: {maxBudgetUsd: 1}
workers:
  a: {model: claude-opus-5-5}
  b: {provider: codex}
steps:
  - {id: one, worker: a, prompt: first}
  - {id: two, worker: b, prompt: second}
"#,
    )
    .display()
    .to_string();
    let err = crate::workflow::run(&sb, &[&path]).status(2).stderr();
    assert!(err.contains("worker `b` has no `model:`"), "{err}");
    assert!(!err.contains("worker `a`"), "{err}");
    assert!(
        sb.worker_dirs().is_empty(),
        "a refused run spawned a worker"
    );
}

#[test]
fn the_fleet_budget_refuses_an_unpriced_spawn_under_a_dollar_limit_and_bad_targets() {
    let sb = Sandbox::new();
    sb.umbel(["budget", "--fleet", "--max-budget-usd", "3"])
        .success();
    let refused = sb.umbel(["spawn", "--name", "u"]).status(2);
    assert!(
        refused.stderr().contains("dollar limit"),
        "{}",
        refused.stderr()
    );
    sb.spawn("p", &["--model", "claude-opus-5-5"]);
    let fleet: Value = sb.umbel(["budget", "--fleet", "--json"]).run().json();
    assert_eq!(fleet["limits"], json!({ "maxBudgetUsd": 3.0 }), "{fleet}");
    assert_eq!(fleet.get("name"), None, "{fleet}");
    sb.umbel(["budget"]).status(2);
    sb.umbel(["budget", "p", "--fleet"]).status(2);
    sb.umbel(["budget", "--fleet", "--max-tokens", "0"])
        .status(2);
}

/// A `-p` with a dollar limit on fake-codex's default model, which umbel's tables do not price.
const UNPRICED_PRINT: [&str; 6] = [
    "-p",
    "Say hello",
    "--provider",
    "codex",
    "--max-budget-usd",
    "5",
];

/// opencode records its own cost on each response (its model catalogue's; fake-opencode as
/// 1.18.33 does for claude-sonnet-4-5: $0.000549): that is the cost a dollar limit is held to,
/// before any price table — here one that would make the turn cost $0.135.
#[test]
fn opencodes_own_cost_is_the_cost_its_dollar_limit_holds() {
    let sb = Sandbox::new();
    let dear = r#"{"claude-sonnet-4-5": {"input": 1000, "output": 1000}}"#;
    sb.write(sb.state.join("prices.json"), dear);
    let print = |limit: &str| {
        let args = [
            "-p",
            "Say hello",
            "--provider",
            "opencode",
            "--output-format",
            "json",
        ];
        sb.umbel(args).args(["--max-budget-usd", limit])
    };
    let over = print("0.0000001").status(120);
    assert!(
        over.stdout().contains("Exceeded USD budget (1e-7)"),
        "{}",
        over.stdout()
    );
    let fine = print("0.01").success();
    let out = fine.stdout();
    assert!(out.contains("\"cost\":0.000549"), "{out}");
    assert!(!out.contains("unknown"), "{out}");
}

#[test]
fn print_mode_over_its_dollar_limit_fails_as_claude_p_does() {
    let sb = Sandbox::new();
    // claude checks after each response: a one-response turn over the limit fails too, its
    // answer withheld (recorded: tests/data/claude/claude-2.1.332-print-*-max-budget*).
    let json = [
        "-p",
        "Say hello",
        "--max-budget-usd",
        "0.0000001",
        "--output-format",
        "json",
    ];
    let out = sb.umbel(json).status(120);
    let result: Value = serde_json::from_str(out.stdout().trim()).expect("json");
    assert_eq!(result["subtype"], "error_max_budget_usd", "{result}");
    assert_eq!(result["is_error"], true, "{result}");
    assert_eq!(
        result["errors"],
        json!(["Reached maximum budget ($1e-7)"]),
        "{result}"
    );
    assert_eq!(result.get("result"), None, "{result}");
    let text = sb
        .umbel(["-p", "Say hello", "--max-budget-usd", "0.0000001"])
        .status(120);
    assert_eq!(text.stdout(), "Error: Exceeded USD budget (1e-7)\n");
    // Within the limit, the answer as usual.
    let fine = sb
        .umbel(["-p", "Say hello", "--max-budget-usd", "5"])
        .success();
    assert!(!fine.stdout().contains("Error"), "{}", fine.stdout());
    // A model without a known price: the cost cannot be held to the limit, and says so.
    let unknown = sb.umbel(UNPRICED_PRINT).status(120);
    assert!(
        unknown.stdout().contains("cost is unknown"),
        "{}",
        unknown.stdout()
    );
    let named = sb
        .umbel(["-p", "hi", "--model", "mine", "--max-budget-usd", "5"])
        .status(2);
    assert!(named.stderr().contains("mine"), "{}", named.stderr());
    assert!(sb.worker_dirs().is_empty(), "-p left a worker");
}

#[test]
fn a_users_prices_file_prices_a_model_no_table_names_and_a_broken_one_is_named() {
    let sb = Sandbox::new();
    sb.umbel(UNPRICED_PRINT).status(120);
    let prices = sb.state.join("prices.json");
    sb.write(
        &prices,
        r#"{"gpt-6.2": {"input": 1.25, "output": 10, "cacheRead": 0.125}}"#,
    );
    let priced = sb.umbel(UNPRICED_PRINT).success();
    assert!(!priced.stdout().contains("Error"), "{}", priced.stdout());
    sb.spawn(
        "c",
        &[
            "--provider",
            "codex",
            "--model",
            "gpt-6.2-sol",
            "--max-budget-usd",
            "1",
        ],
    );
    let shown: Value = sb.umbel(["budget", "c", "--json"]).run().json();
    assert_eq!(shown["limits"]["maxBudgetUsd"], 1.0, "{shown}");
    sb.write(&prices, r#"{"gpt-6.2": {"input": "cheap"}}"#);
    let refused = sb
        .umbel([
            "spawn",
            "--name",
            "d",
            "--model",
            "claude-opus-5-5",
            "--max-budget-usd",
            "1",
        ])
        .status(2);
    assert!(
        refused.stderr().contains("prices.json"),
        "{}",
        refused.stderr()
    );
    // Nothing else needs a price: the rest of umbel goes on.
    sb.umbel(["budget", "c"]).success();
}

/// A CLI may write a turn to its transcript after its end-of-turn hook (claude does, a moment
/// later; the fake with `late_transcript_ms`): `budget` right after the wait counts that turn,
/// as `read` and `park` wait for it — it read nothing of it before (0 tokens), and a limit set
/// from that figure was crossed by the turn already done (seen on the real claude in CI).
#[test]
fn budget_right_after_a_turn_counts_the_turn_the_cli_writes_late() {
    let sb = Sandbox::new();
    let late = json!({ "turns": [{ "reply": "Counted late.", "late_transcript_ms": 800 }] });
    sb.spawn_playing("late", late, &["--provider", "claude"]);
    sb.turn_outcome("late", "Count me.", 0);
    let shown: Value = sb.umbel(["budget", "late", "--json"]).run().json();
    assert!(shown["used"]["tokens"].as_u64().unwrap_or(0) > 0, "{shown}");
}
