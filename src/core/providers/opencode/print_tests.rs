use super::*;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::print::shape::test_stamps::{Fixed, keys};
use crate::core::providers::Provider;
use serde_json::{Value, json};

/// `opencode run --format json` on 1.18.33 against fake-model: one text turn.
const RECORDED: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/opencode/1.18.33/opencode-1.18.33-run-format-json.jsonl"
));
/// The worker record of a like turn (`core/providers/opencode/`).
const RECORD: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/opencode/1.18.33/opencode-1.18.33-record-text-turn.jsonl"
));

#[test]
fn opencode_json_has_the_events_and_keys_opencode_run_prints() {
    let records: Vec<Value> = RECORD
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let done = PrintTurn {
        outcome: Outcome::new(OutcomeKind::Stop, "the turn ended", 1),
        text: "Response to: \"say hi four\"".into(),
        is_error: false,
        session_id: "ses_x".into(),
        stats: Provider::Opencode.module().turn_stats(&records),
    };
    let ours = events(&done, 1000, &Fixed);
    let theirs: Vec<Value> = RECORDED
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ours.len(), theirs.len(), "{ours:?}");
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a["type"], b["type"]);
        assert_eq!(keys(a), keys(b), "{}", a["type"]);
        assert_eq!(keys(&a["part"]), keys(&b["part"]), "{} part", a["type"]);
    }
    assert_eq!(ours[1]["part"]["text"], "Response to: \"say hi four\"");
    assert_eq!(ours[2]["part"]["tokens"], theirs[2]["part"]["tokens"]);
    assert_eq!(ours[2]["part"]["reason"], "stop");
}

/// `opencode run --format json --auto` on a shell tool turn (1.18.33, fake-model).
const RECORDED_TOOL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/opencode/1.18.33/opencode-1.18.33-run-format-json-tool.jsonl"
));

#[test]
fn opencode_json_tool_use_carries_the_parts_own_state() {
    let recorded: Vec<Value> = RECORDED_TOOL
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let theirs = recorded.iter().find(|e| e["type"] == "tool_use").unwrap();
    // The worker record holds the same part, as the plugin heard it.
    let records = vec![json!({ "type": "part", "part": theirs["part"] })];
    let done = PrintTurn {
        outcome: Outcome::new(OutcomeKind::Stop, "the turn ended", 1),
        text: String::new(),
        is_error: false,
        session_id: "ses_x".into(),
        stats: Provider::Opencode.module().turn_stats(&records),
    };
    let ours = events(&done, 1000, &Fixed);
    let tool = ours.iter().find(|e| e["type"] == "tool_use").unwrap();
    assert_eq!(keys(&tool["part"]["state"]), keys(&theirs["part"]["state"]));
    assert_eq!(tool["part"]["state"]["metadata"]["exit"], 0);
    assert_eq!(tool["part"]["state"]["title"], "echo hi");
}

/// `opencode run --format json` on an API error (HTTP 400 from fake-model, 1.18.33).
const RECORDED_ERROR: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/opencode/1.18.33/opencode-1.18.33-run-format-json-api-error.jsonl"
));

#[test]
fn opencode_json_error_is_the_recorded_error_object() {
    let theirs: Value = serde_json::from_str(RECORDED_ERROR.trim()).unwrap();
    // The worker record's assistant message carries the same error.
    let records = vec![json!({ "type": "message", "info": { "id": "msg_1",
        "role": "assistant", "modelID": "claude-sonnet-4-5", "error": theirs["error"] } })];
    let done = PrintTurn {
        outcome: Outcome::new(OutcomeKind::ProviderError, "the API failed", 1),
        text: String::new(),
        is_error: false,
        session_id: "ses_x".into(),
        stats: Provider::Opencode.module().turn_stats(&records),
    };
    let ours = events(&done, 1000, &Fixed);
    let error = ours.iter().find(|e| e["type"] == "error").unwrap();
    assert_eq!(error["error"], theirs["error"]);
    assert_eq!(keys(error), keys(&theirs));
}
