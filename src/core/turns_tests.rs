//! All turns of the recorded transcripts of the three CLIs.

use super::*;
use crate::core::providers::Provider;
use crate::core::test_data::{
    CLAUDE_AFTER_CLEAR, CLAUDE_SESSION as CLAUDE, CODEX_ROLLOUT as CODEX, GEMINI_CHAT as GEMINI,
};

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

fn turns_of(provider: Provider, text: &str) -> Vec<Turn> {
    all_turns(provider.module(), &lines(text))
}

fn prompts(turns: &[Turn]) -> Vec<&str> {
    turns.iter().filter_map(|t| t.prompt.as_deref()).collect()
}

#[test]
fn claude_turns_are_numbered_in_order_with_prompt_answer_and_errors() {
    let turns = turns_of(Provider::Claude, CLAUDE);
    assert_eq!(
        prompts(&turns),
        [
            "Say hello",
            "Please RUN_TOOL now",
            "Please RUN_TOOL again",
            "Trigger BADREQ please",
            "Trigger RATE429 please"
        ]
    );
    assert_eq!(
        turns.iter().map(|t| t.turn).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(
        turns[2].answer.as_deref(),
        Some("The command printed hello-from-tool. FINAL_AFTER_TOOL"),
        "the answer after the tool, not the preamble"
    );
    assert!(turns[..3].iter().all(|t| t.ended && !t.is_error));
    assert!(turns[3].is_error && turns[3].ended);
    assert_eq!(
        turns[3].answer.as_deref(),
        Some("API Error: 400 fake bad request for probing")
    );
    let tool_turns: Vec<usize> = turns
        .iter()
        .filter(|t| !t.actions.is_empty())
        .map(|t| t.turn)
        .collect();
    assert_eq!(tool_turns, [3], "only the third turn ran a tool");
}

#[test]
fn the_last_of_all_turns_is_the_last_turn() {
    for (provider, text) in [
        (Provider::Claude, CLAUDE),
        (Provider::Claude, CLAUDE_AFTER_CLEAR),
        (Provider::Codex, CODEX),
        (Provider::Gemini, GEMINI),
    ] {
        let last = provider
            .module()
            .last_turn(&mut text.lines().rev().map(str::to_string));
        let turns = turns_of(provider, text);
        let all_last = turns.last().expect("turns");
        assert_eq!(all_last.prompt, last.prompt, "{provider}");
        assert_eq!(all_last.answer, last.answer, "{provider}");
        assert_eq!(all_last.is_error, last.is_error, "{provider}");
    }
}

#[test]
fn claude_commands_and_meta_records_open_no_turn() {
    let turns = turns_of(Provider::Claude, CLAUDE_AFTER_CLEAR);
    assert_eq!(turns.len(), 2, "{turns:#?}");
    assert_eq!(turns[0].prompt.as_deref(), Some("Trigger RATE429 please"));
    assert!(!turns[0].ended && turns[0].answer.is_none());
    assert!(
        turns[1]
            .prompt
            .as_deref()
            .is_some_and(|p| p.starts_with("line 1 of pasted"))
    );
}

#[test]
fn codex_turns_run_from_task_started_to_task_complete() {
    let turns = turns_of(Provider::Codex, CODEX);
    assert_eq!(
        prompts(&turns),
        [
            "Say hello",
            "Please RUN_TOOL now",
            "Please ESCALATE now",
            "Please USAGELIMIT now",
            "Please BADREQ now"
        ]
    );
    assert!(turns.iter().all(|t| t.ended));
    assert_eq!(
        turns.iter().map(|t| t.is_error).collect::<Vec<_>>(),
        [false, false, false, true, true]
    );
    assert_eq!(
        turns.iter().map(|t| t.actions.len()).collect::<Vec<_>>(),
        [0, 1, 1, 0, 0]
    );
}

#[test]
fn gemini_turns_skip_the_session_context_and_tool_responses() {
    let turns = turns_of(Provider::Gemini, GEMINI);
    assert_eq!(
        prompts(&turns),
        [
            "Say hello",
            "Please RUN_TOOL now",
            "Please BADREQ now",
            "Please RATE429 now"
        ]
    );
    assert_eq!(
        turns[1].answer.as_deref(),
        Some("The command printed hello-from-tool. FINAL_AFTER_TOOL")
    );
    assert_eq!(
        turns.iter().map(|t| t.is_error).collect::<Vec<_>>(),
        [false, false, true, true]
    );
    assert_eq!(turns[1].actions.len(), 1);
}

#[test]
fn an_empty_or_unreadable_transcript_has_no_turns() {
    assert!(turns_of(Provider::Claude, "").is_empty());
    assert!(turns_of(Provider::Codex, "not json\n{}").is_empty());
}

#[test]
fn summaries_pick_the_command_or_path_and_stay_short() {
    assert_eq!(
        summarize_input(&serde_json::json!({ "command": "ls  -la\n  /tmp", "description": "x" })),
        "ls -la /tmp"
    );
    assert_eq!(
        summarize_input(&serde_json::json!({ "file_path": "/a/b.rs", "content": "…" })),
        "/a/b.rs"
    );
    assert_eq!(
        summarize_input(&serde_json::json!({ "command": ["bash", "-lc", "echo hi"] })),
        "bash -lc echo hi"
    );
    assert_eq!(
        summarize_input(&serde_json::json!({ "n": 1 })),
        r#"{"n":1}"#
    );
    let long = summarize_input(&serde_json::json!({ "command": "x".repeat(500) }));
    assert_eq!(long.chars().count(), SUMMARY_CHARS + 1);
    assert!(long.ends_with('…'));
}
