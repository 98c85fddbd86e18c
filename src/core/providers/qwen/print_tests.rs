use super::*;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::print::shape::test_stamps::{Fixed, keys};
use crate::core::providers::Provider;
use serde_json::Value;

/// qwen's `-p -o json` result on an API error, as 0.23.0 printed it (a `success` whose
/// `result` is the error) and as 0.24.4 does (`error_during_execution` with `error`).
const QWEN_ERRORS: [&str; 2] = [
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/qwen/0.23.0/qwen-0.23.0-print-json-api-error.json"
    )),
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/qwen/qwen-0.24.4-print-json-api-error.json"
    )),
];

#[test]
fn qwen_json_error_result_has_the_keys_of_every_release() {
    let done = PrintTurn {
        outcome: Outcome::new(OutcomeKind::ProviderError, "the API failed", 1),
        text: String::new(),
        is_error: false,
        session_id: "s".into(),
        stats: Provider::Qwen.module().turn_stats(&[]),
    };
    let ours = messages(&done, 1000, &Fixed);
    let result = ours.iter().find(|m| m["type"] == "result").unwrap();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["result"], result["error"]["message"]);
    for recorded in QWEN_ERRORS {
        let theirs: Vec<Value> = serde_json::from_str(recorded).unwrap();
        let theirs = theirs.iter().find(|m| m["type"] == "result").unwrap();
        for key in keys(theirs) {
            assert!(result.get(&key).is_some(), "no `{key}`: {result}");
        }
    }
}
