//! The line behind each reading, on the recorded screens of the three CLIs.

use super::*;
use crate::core::providers::Provider;
use crate::core::test_data::fixture;

/// Reads `screen` as `provider` does; asserts the rule's start and the deciding line's text.
#[track_caller]
fn decided(provider: Provider, screen: &str, rule: &str, line: Option<&str>) -> ScreenWhy {
    let why = read_screen(provider.module(), screen);
    assert!(why.rule.starts_with(rule), "{provider}: {why:?}");
    let text = why.line.as_ref().map(|l| l.text.as_str());
    match line {
        Some(want) => assert!(
            text.is_some_and(|t| t.contains(want)),
            "{provider}: {why:?}"
        ),
        None => assert_eq!(text, None, "{provider}: {why:?}"),
    }
    if let Some(l) = &why.line {
        let row = screen.lines().nth(l.row - 1).unwrap_or_default();
        assert!(
            row.contains(l.text.as_str()),
            "row {} is the line: {row}",
            l.row
        );
    }
    why
}

#[test]
fn idle_screens_are_decided_by_the_input_line() {
    for (provider, screen, line) in [
        (
            Provider::Claude,
            fixture!("claude/claude-2.1.332-turn-complete.txt"),
            "❯",
        ),
        (
            Provider::Codex,
            fixture!("codex/codex-0.171.0-idle-prompt.txt"),
            "› Ask Codex to do anything",
        ),
        (
            Provider::Gemini,
            fixture!("gemini/gemini-0.61.0-idle-yolo.txt"),
            "*   Type your message",
        ),
    ] {
        let why = decided(provider, screen, "idle", Some(line));
        assert_eq!(why.reading, StartupScreen::Idle);
        assert_eq!(why.line, why.input_line, "{provider}");
        assert!(
            why.busy_line.is_none() && !why.pending_input,
            "{provider}: {why:?}"
        );
    }
}

#[test]
fn busy_screens_are_decided_by_the_busy_marker() {
    for (provider, screen, line) in [
        (
            Provider::Claude,
            fixture!("claude/claude-2.1.332-busy-streaming.txt"),
            "esc to interrupt",
        ),
        (
            Provider::Codex,
            fixture!("codex/codex-0.171.0-busy-working.txt"),
            "• Working (3s • esc to interrupt)",
        ),
        (
            Provider::Gemini,
            fixture!("gemini/gemini-0.61.0-busy-thinking.txt"),
            "Thinking... (esc to cancel",
        ),
    ] {
        let why = decided(provider, screen, "busy", Some(line));
        assert_eq!(why.reading, StartupScreen::Other);
        assert_eq!(why.line, why.busy_line, "{provider}");
        assert!(
            why.input_line.is_some(),
            "the input line shows under it: {why:?}"
        );
    }
}

#[test]
fn permission_prompts_are_dialogs_for_a_person_decided_by_their_question() {
    for (provider, screen, question) in [
        (
            Provider::Claude,
            fixture!("claude/claude-2.1.332-permission-prompt-bash.txt"),
            "Bash command",
        ),
        (
            Provider::Codex,
            fixture!("codex/codex-0.171.0-approval-prompt-exec.txt"),
            "Would you like to run the following command?",
        ),
        (
            Provider::Gemini,
            fixture!("gemini/gemini-0.61.0-permission-prompt-shell.txt"),
            "Allow execution of [Shell]?",
        ),
    ] {
        let why = decided(provider, screen, "a dialog for a person", Some(question));
        assert_eq!(why.reading, StartupScreen::Person(question.to_string()));
    }
}

#[test]
fn trust_dialogs_are_decided_by_the_option_under_the_cursor() {
    for (provider, screen, option, keys) in [
        (
            Provider::Claude,
            fixture!("claude/claude-2.1.332-trust-dialog.txt"),
            "❯ No, exit",
            "keys Down",
        ),
        (
            Provider::Codex,
            fixture!("codex/codex-0.171.0-trust-dialog.txt"),
            "› 1. Trust and continue",
            "keys Enter",
        ),
        (
            Provider::Gemini,
            fixture!("gemini/gemini-0.61.0-startup-trust-dialog.txt"),
            "● 1. Trust folder",
            "keys Enter",
        ),
    ] {
        let why = decided(provider, screen, "a dialog umbel answers", Some(option));
        assert!(why.rule.contains(keys), "{provider}: {}", why.rule);
    }
}

#[test]
fn unknown_dialogs_name_their_question_and_unread_screens_say_nothing_matched() {
    for (provider, screen, question) in [
        (
            Provider::Claude,
            fixture!("claude/claude-2.1.332-auto-mode-optin.txt"),
            "Make auto mode your default permission mode?",
        ),
        (
            Provider::Gemini,
            fixture!("gemini/gemini-0.61.0-include-directories-trust.txt"),
            "Do you trust the following folders",
        ),
    ] {
        decided(provider, screen, "a dialog for a person", Some(question));
    }
    let warning = fixture!("codex/codex-0.171.0-startup-warning-bubblewrap.txt");
    decided(Provider::Codex, warning, "no rule matched", None);
    let login = fixture!("codex/codex-0.171.0-startup-login.txt");
    decided(
        Provider::Codex,
        login,
        "sign-in",
        Some("Sign in with ChatGPT"),
    );
}

#[test]
fn a_prompt_left_on_the_input_line_is_pending_input() {
    let paste = fixture!("gemini/gemini-0.61.0-paste-3-lines.txt");
    let why = decided(
        Provider::Gemini,
        paste,
        "the input line holds text",
        Some("> first line"),
    );
    assert!(why.pending_input);
}
