//! Named scenarios for the fakes, for the shapes most tests play (`sb.spawn_playing("w",
//! sim::wedge(), &[])`); anything else is written out as JSON where the test needs it
//! (the format: docs/simulator.md#scenarios).

use serde_json::{Value, json};

/// Every turn hangs: only the spinner moves.
pub fn wedge() -> Value {
    json!({ "default": { "end": "wedge" } })
}

/// Every turn answers `text`.
pub fn reply(text: &str) -> Value {
    json!({ "default": { "reply": text } })
}

/// Every turn answers `text`, then the CLI exits with `code`.
pub fn crash(text: &str, code: i32) -> Value {
    json!({ "default": { "reply": text, "end": { "crash": code } } })
}

/// The turns answer `texts` in order.
pub fn replies(texts: &[&str]) -> Value {
    let turns: Vec<Value> = texts.iter().map(|t| json!({ "reply": t })).collect();
    json!({ "turns": turns })
}

/// Each turn answers the reply of the first `(match, reply)` whose match its prompt contains.
pub fn matching(turns: &[(&str, &str)]) -> Value {
    let turns: Vec<Value> = turns
        .iter()
        .map(|(prompt, reply)| json!({ "match": prompt, "reply": reply }))
        .collect();
    json!({ "turns": turns })
}

/// A turn on `prompt` answers `first`; the guardrail's feedback after a rejection gets `then`.
pub fn accepted_on_retry(prompt: &str, first: &str, then: &str) -> Value {
    matching(&[(prompt, first), ("[umbel] Your answer was rejected", then)])
}
