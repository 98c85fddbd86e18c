//! The recorded sessions of the three CLIs (copies of `shared/fixtures/samples/` in
//! `tests/data/`), for the core's unit tests.

macro_rules! data {
    ($path:literal) => {
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/", $path))
    };
}

/// A recorded file of one CLI: `provider_data!("codex", "codex-0.171.0-….jsonl")`.
macro_rules! provider_data {
    ($provider:literal, $file:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/",
            $provider,
            "/",
            $file
        ))
    };
}
pub(crate) use provider_data;

/// The last turn of the first `n` lines of `transcript`, as `provider` reads it.
pub fn last_turn_upto(
    provider: &dyn crate::core::providers::ProviderModule,
    transcript: &str,
    n: usize,
) -> crate::core::providers::TranscriptTurn {
    let lines: Vec<String> = transcript.lines().take(n).map(str::to_string).collect();
    provider.last_turn(&mut lines.into_iter().rev())
}

/// An environment from `(name, value)` pairs.
pub fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A claude 2.1.332 session with several turns, tools and an API error.
pub const CLAUDE_SESSION: &str = data!("claude/claude-2.1.332-transcript-session1.jsonl");
/// The claude transcript that `/clear` started.
pub const CLAUDE_AFTER_CLEAR: &str = data!("claude/claude-2.1.332-transcript-after-clear.jsonl");
/// A codex 0.171.0 TUI rollout.
pub const CODEX_ROLLOUT: &str = data!("codex/codex-0.171.0-rollout-tui-session.jsonl");
/// A gemini 0.61.0 chat session.
pub const GEMINI_CHAT: &str = data!("gemini/gemini-0.61.0-chat-session.jsonl");

/// An event-log record with its meaning: line `index`, written at `index` ns, its payload in
/// `<index>.json`.
pub fn event(
    index: usize,
    kind: &str,
    class: crate::core::providers::EventClass,
) -> crate::core::wait::ClassifiedEvent {
    crate::core::wait::ClassifiedEvent {
        record: crate::core::events::EventRecord {
            index,
            at_ns: index as u128,
            kind: kind.into(),
            payload: Some(format!("{index}.json")),
        },
        class,
    }
}

/// The records of the recorded turn whose prompt line holds `prompt`, as umbel reads them once
/// the line holding `until` (after the prompt) was written.
pub fn turn_records(
    provider: crate::core::providers::Provider,
    session: &str,
    prompt: &str,
    until: &str,
) -> Vec<serde_json::Value> {
    let lines: Vec<&str> = session.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains(prompt))
        .expect("prompt");
    let end = start
        + lines[start..]
            .iter()
            .position(|l| l.contains(until))
            .expect("end");
    let mut newest_first = lines[..=end].iter().rev().map(|l| l.to_string());
    crate::core::print::stats::last_turn_records(provider.module(), &mut newest_first).1
}
