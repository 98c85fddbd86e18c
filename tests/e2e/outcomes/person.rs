//! Waits that end because the CLI waits for a person other than for a permission: it lost
//! its session mid-turn and shows its sign-in screen (every provider), or claude asks a
//! question (`elicitation_dialog`).

use crate::each_provider;
use crate::harness::*;
use serde_json::json;

each_provider!(losing_the_session_mid_turn_is_input_126_sign_in);

fn losing_the_session_mid_turn_is_input_126_sign_in(provider: &str) {
    let sb = Sandbox::new();
    let turn = json!({ "reply": "Half an answer", "end": "sign_in" });
    sb.spawn_playing("s1", json!({ "default": turn }), &["--provider", provider]);
    if provider == "opencode" {
        // opencode has no sign-in screen: credentials its provider refuses mid-turn end the
        // turn with `session.error` (`ProviderAuthError`), a failed turn like an API error.
        let outcome = sb.turn_outcome("s1", "go", 122);
        assert_eq!(outcome["reason"], "api-error", "{outcome}");
        return;
    }
    let outcome = sb.turn_outcome("s1", "go", 126);
    assert_eq!(outcome["outcome"], "input", "{outcome}");
    assert_eq!(outcome["reason"], "sign-in", "{outcome}");
    assert!(
        outcome["screen"].as_str().is_some_and(|s| !s.is_empty()),
        "{outcome}"
    );
    let status = sb.umbel(["status", "s1", "--json"]).json();
    assert_eq!(status["state"], "needs-input", "{status}");
    assert_eq!(status["needsInput"], "sign-in", "{status}");
}

#[test]
fn a_claude_question_is_input_126_question() {
    let sb = Sandbox::new();
    let end = json!({ "question": { "text": "Which branch should I use?" } });
    let scenario = json!({ "default": { "reply": "Let me ask.", "end": end } });
    sb.spawn_playing("q1", scenario, &[]);
    let outcome = sb.turn_outcome("q1", "pick one", 126);
    assert_eq!(outcome["outcome"], "input", "{outcome}");
    assert_eq!(outcome["reason"], "question", "{outcome}");
    let status = sb.umbel(["status", "q1", "--json"]).json();
    assert_eq!(status["state"], "needs-input", "{status}");
    assert_eq!(status["needsInput"], "question", "{status}");
}
