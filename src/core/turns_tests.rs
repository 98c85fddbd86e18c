//! All turns of the recorded transcripts of the three CLIs.

use super::*;
use crate::core::providers::Provider;
use crate::core::providers::ProviderModule;
use crate::core::test_data::{
    CLAUDE_AFTER_CLEAR, CLAUDE_SESSION as CLAUDE, CODEX_ROLLOUT as CODEX, GEMINI_CHAT as GEMINI,
    SESSIONS,
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
    for (provider, text) in SESSIONS {
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

/// The turns as umbel first read them: each provider's `last_turn` driven over the lines newest
/// first, again and again, each call's lines being its turn's records. Reading forwards must
/// give exactly these.
fn backwards_turns(provider: &dyn ProviderModule, text: &str) -> Vec<Turn> {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut rest = lines.iter().rev();
    let mut newest_first = Vec::new();
    loop {
        let mut consumed: Vec<&String> = Vec::new();
        let parsed = {
            let mut feed = rest.by_ref().inspect(|l| consumed.push(l)).cloned();
            provider.last_turn(&mut feed)
        };
        if consumed.is_empty() {
            break;
        }
        if parsed.prompt.is_none() && parsed.answer.is_none() {
            continue;
        }
        let records: Vec<Value> = consumed
            .iter()
            .rev()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        newest_first.push(Turn {
            turn: 0,
            prompt: parsed.prompt,
            answer: parsed.answer,
            ended: parsed.ended,
            is_error: parsed.is_error,
            actions: provider.turn_actions(&records),
        });
    }
    newest_first.reverse();
    for (index, turn) in newest_first.iter_mut().enumerate() {
        turn.turn = index + 1;
    }
    newest_first
}

const CLAUDE_CONNECTION_ERROR: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/claude/claude-2.1.197-transcript-connection-error.jsonl"
));

/// Every recorded transcript, alone and three times over (a turn's last records followed by
/// the next session's preamble).
fn recorded() -> Vec<(Provider, String)> {
    SESSIONS
        .into_iter()
        .chain([(Provider::Claude, CLAUDE_CONNECTION_ERROR)])
        .flat_map(|(provider, text)| [(provider, text.to_string()), (provider, text.repeat(3))])
        .collect()
}

#[test]
fn reading_forwards_gives_what_reading_backwards_turn_by_turn_gives() {
    for (provider, text) in recorded() {
        let forwards = turns_of(provider, &text);
        assert!(!forwards.is_empty(), "{provider}");
        assert_eq!(
            forwards,
            backwards_turns(provider.module(), &text),
            "{provider}"
        );
    }
}

#[test]
fn skipping_lines_without_a_record_token_changes_no_turn() {
    for (provider, text) in recorded() {
        let tokens: Vec<&str> = provider.module().record_tokens().to_vec();
        assert!(!tokens.is_empty(), "{provider}");
        let skipped = text
            .lines()
            .filter(|l| !tokens.iter().any(|t| l.contains(t)))
            .count();
        assert!(skipped > 0, "{provider}: the filter skips some lines");
        let kept: String = text
            .lines()
            .filter(|l| tokens.iter().any(|t| l.contains(t)))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            turns_of(provider, &kept),
            turns_of(provider, &text),
            "{provider}"
        );
    }
}

#[test]
fn records_held_at_once_do_not_grow_with_the_transcript() {
    for (provider, text) in recorded().into_iter().step_by(2) {
        let peak = |copies: usize| {
            let mut reader = TurnReader::new(provider.module(), None);
            for _ in 0..copies {
                for line in text.lines() {
                    reader.push(line.as_bytes());
                }
            }
            let peak = reader.peak_held;
            (peak, reader.finish().len())
        };
        let (short, short_turns) = peak(2);
        let (long, long_turns) = peak(100);
        assert_eq!(long_turns, 50 * short_turns, "{provider}");
        assert_eq!(long, short, "{provider}: one turn's records at most");
        assert!(long < text.lines().count(), "{provider}");
    }
}

#[test]
fn a_turn_limit_stops_at_the_record_that_opens_the_next_turn() {
    let text = CLAUDE.repeat(20);
    let all = turns_of(Provider::Claude, &text);
    let second_prompt = text
        .lines()
        .position(|l| l.contains("Please RUN_TOOL now") && l.contains("\"promptId\""))
        .expect("the second prompt");
    for limit in [1, 2] {
        let mut reader = TurnReader::new(Provider::Claude.module(), Some(limit));
        let fed = text
            .lines()
            .take_while(|line| reader.push(line.as_bytes()))
            .count();
        let turns = reader.finish();
        assert_eq!(turns, all[..limit], "limit {limit}");
        if limit == 1 {
            assert_eq!(fed, second_prompt, "stops at turn 2's prompt");
        }
        assert!(fed < text.lines().count() / 10, "limit {limit}: fed {fed}");
    }
}

/// claude 2.1.246, a fork's first turn: the CLI wrote the fork's answer above the history it
/// copied from the parent (each record names its parent by `parentUuid`).
const CLAUDE_FORK_ANSWER_FIRST: &str = crate::core::test_data::fixture!(
    "claude/2.1.246/claude-2.1.246-transcript-fork-answer-first.jsonl"
);

#[test]
fn a_record_written_before_its_parent_is_read_after_it() {
    let turns = turns_of(Provider::Claude, CLAUDE_FORK_ANSWER_FIRST);
    let read: Vec<(Option<&str>, Option<&str>, bool)> = turns
        .iter()
        .map(|t| (t.prompt.as_deref(), t.answer.as_deref(), t.ended))
        .collect();
    assert_eq!(
        read,
        [
            (Some("alpha question"), Some("First."), true),
            (Some("bravo question"), Some("Fork's."), true),
        ]
    );
    // A record whose parent never comes is read at the end, not dropped.
    let orphan = CLAUDE_FORK_ANSWER_FIRST.replacen("9f2fa102-1780", "00000000-1780", 1);
    let turns = turns_of(Provider::Claude, &orphan);
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert_eq!(turns[1].answer.as_deref(), Some("Fork's."), "{turns:?}");
}

#[test]
fn a_record_naming_a_parent_never_written_is_read_where_it_stands() {
    // claude often writes a `parentUuid` it never writes a record for (anthropics/claude-code
    // #22526, #58554): past the first prompt, such a record waits for nothing.
    let mut dangled = false;
    let text: String = CLAUDE
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).expect("a record");
            if !dangled && record["type"] == "assistant" {
                dangled = true;
                record["parentUuid"] = "00000000-0000-4000-8000-000000000000".into();
            }
            format!("{record}\n")
        })
        .collect();
    assert!(dangled);
    assert_eq!(
        turns_of(Provider::Claude, &text),
        turns_of(Provider::Claude, CLAUDE)
    );
    // Read in place, not held back with all that follows it: a turn limit still stops early.
    let mut reader = TurnReader::new(Provider::Claude.module(), Some(1));
    let fed = text
        .lines()
        .take_while(|line| reader.push(line.as_bytes()))
        .count();
    assert!(fed < text.lines().count() / 2, "fed {fed}");
    assert_eq!(reader.finish(), turns_of(Provider::Claude, CLAUDE)[..1]);
}

#[test]
fn a_turn_limit_still_stops_early_on_a_linked_transcript() {
    let text = CLAUDE_FORK_ANSWER_FIRST.repeat(2);
    let mut reader = TurnReader::new(Provider::Claude.module(), Some(1));
    let fed = text
        .lines()
        .take_while(|line| reader.push(line.as_bytes()))
        .count();
    assert_eq!(reader.finish()[0].answer.as_deref(), Some("First."));
    assert!(fed < CLAUDE_FORK_ANSWER_FIRST.lines().count(), "fed {fed}");
}

/// A turn the user interrupted keeps no answer: its partial text ("Thinking slowly... ") is
/// never the answer (outcomes.md), as codex's and gemini's interrupted turns have none.
#[test]
fn an_interrupted_claude_turn_has_no_answer() {
    let text =
        crate::core::test_data::fixture!("claude/2.1.246/claude-2.1.246-transcript-session.jsonl");
    let turns = turns_of(Provider::Claude, text);
    let interrupted = turns
        .iter()
        .find(|t| t.prompt.as_deref() == Some("Take time SLOW ECHO:four"))
        .expect("the interrupted turn");
    assert!(interrupted.ended && interrupted.is_error, "{interrupted:?}");
    assert_eq!(interrupted.answer, None, "{interrupted:?}");
}
