//! The explanation's pure parts on the recorded sessions and screens.

use super::*;
use crate::core::events::EventRecord;
use crate::core::providers::Provider;
use crate::core::providers::why::read_screen;
use crate::core::test_data::{CLAUDE_SESSION, CODEX_ROLLOUT, GEMINI_CHAT, fixture};

/// The bound of the first `n` lines of `transcript`, read from their end.
fn bound(provider: Provider, transcript: &str, n: usize) -> TranscriptRecord {
    let lines: Vec<String> = transcript.lines().take(n).map(str::to_string).collect();
    turn_bound(provider.module(), &mut lines.into_iter().rev())
        .unwrap_or_else(|| panic!("{provider}: no bound in {n} lines"))
}

#[test]
fn the_record_that_ended_the_turn_is_named_with_its_type_and_answer() {
    for (provider, session, n, kind, text) in [
        (
            Provider::Claude,
            CLAUDE_SESSION,
            27,
            "system/turn_duration",
            "Hello from the fake Anthropic server.",
        ),
        (
            Provider::Codex,
            CODEX_ROLLOUT,
            14,
            "event_msg/task_complete",
            "Hello from the fake OpenAI server.",
        ),
        (
            Provider::Gemini,
            GEMINI_CHAT,
            6,
            "gemini",
            "Hello from the fake Gemini server.",
        ),
    ] {
        let record = bound(provider, session, n);
        assert_eq!(record.bounds, Bound::Ended, "{provider}: {record:?}");
        assert_eq!(record.kind, kind, "{provider}");
        assert_eq!(record.error, None, "{provider}");
        assert!(record.excerpt.starts_with(text), "{provider}: {record:?}");
    }
}

#[test]
fn a_turn_without_an_end_shows_the_record_that_opened_it() {
    let record = bound(Provider::Gemini, GEMINI_CHAT, 4);
    assert_eq!(record.bounds, Bound::Opened, "{record:?}");
    assert_eq!(record.excerpt, "Say hello");
}

#[test]
fn an_opening_record_without_the_prompt_shows_the_prompt_written_after_it() {
    // codex: task_started, then context, then the user's message (read up to it).
    let prompt = CODEX_ROLLOUT
        .lines()
        .position(|l| l.contains("\"text\": \"Say hello\""))
        .expect("the prompt's record");
    let record = bound(Provider::Codex, CODEX_ROLLOUT, prompt + 1);
    assert_eq!(record.bounds, Bound::Opened, "{record:?}");
    assert_eq!(record.kind, "event_msg/task_started");
    assert_eq!(record.excerpt, "Say hello", "{record:?}");
}

#[test]
fn a_failed_turns_record_carries_the_reason() {
    let record = bound(Provider::Codex, CODEX_ROLLOUT, 51);
    assert_eq!(record.error.as_deref(), Some("usage-limit"), "{record:?}");
    assert!(record.excerpt.contains("try again"), "{record:?}");
}

#[test]
fn events_say_what_they_meant() {
    let event = |kind: &str, class| ClassifiedEvent {
        record: EventRecord {
            index: 3,
            at_ns: 5_000_000,
            kind: kind.into(),
            payload: None,
        },
        class,
    };
    let failed = explain_event(&event(
        "StopFailure",
        EventClass::TurnFailed {
            reason: "api-error",
        },
    ));
    assert_eq!(
        (failed.meaning, failed.reason.as_deref()),
        (Meaning::TurnFailed, Some("api-error"))
    );
    assert_eq!((failed.position, failed.at_ms), (3, 5));
    let exit = explain_event(&event("Exit", EventClass::Other));
    assert_eq!(exit.meaning, Meaning::Exit);
    let many: Vec<ClassifiedEvent> = (0..12)
        .map(|_| event("Stop", EventClass::TurnEnded))
        .collect();
    assert_eq!(recent_events(&many).len(), EVENTS_SHOWN);
}

#[test]
fn a_saved_screen_gets_umbels_next_move() {
    for (provider, screen, action) in [
        (
            Provider::Claude,
            fixture!("claude/claude-2.1.332-turn-complete.txt"),
            Action::AcceptSend,
        ),
        (
            Provider::Codex,
            fixture!("codex/codex-0.171.0-busy-working.txt"),
            Action::Wait,
        ),
        (
            Provider::Gemini,
            fixture!("gemini/gemini-0.61.0-permission-prompt-shell.txt"),
            Action::ReportNeedsInput,
        ),
        (
            Provider::Claude,
            fixture!("claude/claude-2.1.332-trust-dialog.txt"),
            Action::AnswerDialog,
        ),
        (
            Provider::Codex,
            fixture!("codex/codex-0.171.0-startup-warning-bubblewrap.txt"),
            Action::WaitForStartup,
        ),
    ] {
        let evidence = screen_evidence(read_screen(provider.module(), screen), "file", screen);
        assert_eq!(
            next_for_screen(&evidence).action,
            action,
            "{provider}: {evidence:?}"
        );
    }
}
