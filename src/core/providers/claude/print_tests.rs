use super::*;
use crate::core::outcome::Outcome;
use crate::core::print::shape::test_stamps::{Fixed, keys};
use crate::core::providers::Provider;

/// claude 2.1.332's `-p --output-format json --max-budget-usd 0.0000001` result.
const OVER_BUDGET: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/claude/claude-2.1.332-print-json-max-budget.json"
));

/// claude 2.1.332's `-p --output-format json --max-turns 1` result (one tool call made).
const OVER_TURNS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/claude/claude-2.1.332-print-json-max-turns.json"
));

/// A turn umbel failed for `limit` (`message`, the answer's `text`) is in claude's shape as
/// `recorded` is: every key of it, its failure fields alike, and no `result`.
fn fails_as_recorded(limit: LimitKind, message: &str, text: &str, recorded: &str) {
    let mut outcome = Outcome::new(OutcomeKind::Budget, message, 4);
    outcome.reason = Some(limit.as_str().into());
    let turn = PrintTurn {
        outcome,
        text: text.into(),
        is_error: true,
        session_id: "s".into(),
        stats: Provider::Claude.module().turn_stats(&[]),
    };
    let ours = result(&turn, 240, &Fixed);
    let theirs: Value = serde_json::from_str(recorded).expect("recorded JSON");
    for key in keys(&theirs) {
        assert!(ours.get(&key).is_some(), "{key} missing from {ours}");
    }
    assert_eq!(ours.get("result"), None, "{ours}");
    for key in ["subtype", "terminal_reason", "errors", "is_error"] {
        assert_eq!(ours[key], theirs[key], "{key}");
    }
}

#[test]
fn a_turn_over_its_dollar_limit_is_claudes_error_max_budget_usd() {
    fails_as_recorded(
        LimitKind::BudgetUsd,
        "Reached maximum budget ($1e-7)",
        "Error: Exceeded USD budget (1e-7)",
        OVER_BUDGET,
    );
}

#[test]
fn a_turn_past_its_turn_limit_is_claudes_error_max_turns() {
    fails_as_recorded(
        LimitKind::Turns,
        "Reached maximum number of turns (1)",
        "Error: Reached max turns (1)",
        OVER_TURNS,
    );
}
