use super::*;
use crate::core::outcome::Outcome;
use crate::core::print::shape::test_stamps::{Fixed, keys};
use crate::core::providers::Provider;

/// claude 2.1.332's `-p --output-format json --max-budget-usd 0.0000001` result.
const OVER_BUDGET: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/claude/claude-2.1.332-print-json-max-budget.json"
));

#[test]
fn a_turn_over_its_dollar_limit_is_claudes_error_max_budget_usd() {
    let mut outcome = Outcome::new(OutcomeKind::Budget, "Reached maximum budget ($1e-7)", 4);
    outcome.reason = Some(LimitKind::BudgetUsd.as_str().into());
    let turn = PrintTurn {
        outcome,
        text: "Error: Exceeded USD budget (1e-7)".into(),
        is_error: true,
        session_id: "s".into(),
        stats: Provider::Claude.module().turn_stats(&[]),
    };
    let ours = result(&turn, 240, &Fixed);
    let theirs: Value = serde_json::from_str(OVER_BUDGET).expect("recorded JSON");
    for key in keys(&theirs) {
        assert!(ours.get(&key).is_some(), "{key} missing from {ours}");
    }
    assert_eq!(ours.get("result"), None, "{ours}");
    for key in ["subtype", "terminal_reason", "errors", "is_error"] {
        assert_eq!(ours[key], theirs[key], "{key}");
    }
}
