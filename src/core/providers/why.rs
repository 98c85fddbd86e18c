//! Why a provider read a screen the way it did, for `umbel explain`: its reading
//! ([`ProviderModule::startup_screen`], [`ProviderModule::pending_input`]) and the screen line
//! each reading rests on. The readings themselves are the provider's; this only finds the line
//! that carries the verdict (the sign-in line, the dialog's question or highlighted option, the
//! input line, the busy marker), so nothing here decides anything of its own.

use super::{ProviderModule, StartupScreen};
use serde::{Deserialize, Serialize};

/// One row of a screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScreenLine {
    /// The row, counted from 1 at the top of the screen.
    pub row: usize,
    /// The row's text, trimmed.
    pub text: String,
}

/// What the provider's reading of a screen says, and the lines it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenWhy {
    /// The provider's reading ([`ProviderModule::startup_screen`]).
    pub reading: StartupScreen,
    /// The rule that matched, in words (`idle: the input line is empty and no turn runs`).
    pub rule: String,
    /// The line that decided it, when one did.
    pub line: Option<ScreenLine>,
    /// The input line, when the screen shows one.
    pub input_line: Option<ScreenLine>,
    /// The line holding the busy marker (`esc to interrupt`), when one does.
    pub busy_line: Option<ScreenLine>,
    /// Whether the input line holds unsubmitted text ([`ProviderModule::pending_input`]).
    pub pending_input: bool,
}

/// The cursors the CLIs draw in front of a dialog's highlighted option (claude, codex,
/// gemini).
const CURSORS: &[char] = &['❯', '›', '●'];

/// Reads `screen` as `provider` does and says which line decided it.
pub fn read_screen(provider: &dyn ProviderModule, screen: &str) -> ScreenWhy {
    let reading = provider.startup_screen(screen);
    let input_line = provider
        .input_line_at(screen)
        .map(|(row, text)| ScreenLine { row: row + 1, text });
    let busy_line = provider
        .busy_marker()
        .and_then(|marker| find(screen, |l| l.contains(marker)));
    let pending_input = provider.pending_input(screen);
    let (rule, line) = match &reading {
        StartupScreen::SignIn(text) => (
            "sign-in: a person must sign in or finish onboarding".to_string(),
            find(screen, |l| l.contains(text.as_str())),
        ),
        StartupScreen::Dialog { what, keys } => (
            format!("a dialog umbel answers: {what} (keys {})", keys.join(" ")),
            highlighted_option(screen),
        ),
        StartupScreen::Consent { what, env, keys } => (
            format!(
                "a dialog umbel answers only with consent: {what} (`--env {env}` given: keys {})",
                keys.join(" ")
            ),
            highlighted_option(screen),
        ),
        StartupScreen::Person(question) => (
            "a dialog for a person (a question no rule of umbel's answers)".to_string(),
            find_last(screen, |l| l.contains(question.as_str())),
        ),
        StartupScreen::Idle => (
            "idle: the input line is up and no turn runs (no busy marker)".to_string(),
            input_line.clone(),
        ),
        StartupScreen::Other => other(busy_line.as_ref(), input_line.as_ref(), pending_input),
    };
    ScreenWhy {
        reading,
        rule,
        line,
        input_line,
        busy_line,
        pending_input,
    }
}

/// A screen no rule took for a dialog, a sign-in or the idle prompt.
fn other(
    busy: Option<&ScreenLine>,
    input: Option<&ScreenLine>,
    pending: bool,
) -> (String, Option<ScreenLine>) {
    match (busy, input) {
        (Some(busy), _) => (
            "busy: the busy marker is on screen (a turn runs)".to_string(),
            Some(busy.clone()),
        ),
        (None, Some(input)) if pending => (
            "the input line holds text that was not submitted".to_string(),
            Some(input.clone()),
        ),
        (None, Some(input)) => (
            "the input line is up but not idle (still drawing, or a mode umbel does not know)"
                .to_string(),
            Some(input.clone()),
        ),
        (None, None) => (
            "no rule matched: no input line, no busy marker, no dialog umbel knows".to_string(),
            None,
        ),
    }
}

/// The dialog option under a CLI's cursor: the last line that starts with one, and text.
fn highlighted_option(screen: &str) -> Option<ScreenLine> {
    find_last(screen, |l| {
        l.strip_prefix(CURSORS)
            .is_some_and(|rest| !rest.trim().is_empty())
    })
}

/// The screen's rows, trimmed of white space and of a frame's side (`│`).
fn rows(screen: &str) -> impl Iterator<Item = ScreenLine> + '_ {
    screen.lines().enumerate().map(|(at, l)| ScreenLine {
        row: at + 1,
        text: l.trim().trim_matches('│').trim().to_string(),
    })
}

fn find(screen: &str, matches: impl Fn(&str) -> bool) -> Option<ScreenLine> {
    rows(screen).find(|l| matches(&l.text))
}

fn find_last(screen: &str, matches: impl Fn(&str) -> bool) -> Option<ScreenLine> {
    rows(screen).filter(|l| matches(&l.text)).last()
}

#[cfg(test)]
#[path = "why_tests.rs"]
mod tests;
