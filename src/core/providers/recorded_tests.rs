//! The plain turn every CLI's recorded session opens with, read alike by each provider (what
//! only one provider's records hold is tested in its own `<name>_tests.rs`).

use super::Provider;
use crate::core::test_data::{
    CLAUDE_SESSION, CODEX_ROLLOUT, GEMINI_CHAT, assert_turn, last_turn_upto,
};

#[test]
fn the_plain_turn_reads_prompt_answer_end_and_turn_id() {
    for (provider, session, end, answer, turn_id) in [
        // The turn ends once claude writes turn_duration; its id is the promptId.
        (
            Provider::Claude,
            CLAUDE_SESSION,
            27,
            "Hello from the fake Anthropic server. FINAL_ANSWER_TEXT",
            Some("6adfe72b-1f27-448d-8e64-e1feafd5f87c"),
        ),
        // On task_complete.
        (
            Provider::Codex,
            CODEX_ROLLOUT,
            14,
            "Hello from the fake OpenAI server. FINAL_ANSWER_TEXT",
            Some("01a23854-3aab-71d3-afa3-8c41997a1282"),
        ),
        // Gemini's chat file has no turn ids.
        (
            Provider::Gemini,
            GEMINI_CHAT,
            6,
            "Hello from the fake Gemini server. FINAL_ANSWER_TEXT",
            None,
        ),
    ] {
        let turn = last_turn_upto(provider.module(), session, end);
        assert_turn(&turn, "Say hello", Some(answer));
        assert!(turn.ended && !turn.is_error, "{provider:?}: {turn:?}");
        assert_eq!(turn.turn_id.as_deref(), turn_id, "{provider:?}");
    }
}
