//! The recorded sessions of the three CLIs (copies of `shared/fixtures/samples/` in
//! `tests/data/`), for the core's unit tests.

/// A recorded file under `tests/data/`: `fixture!("codex/codex-0.171.0-….txt")`.
macro_rules! fixture {
    ($path:literal) => {
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/", $path))
    };
}
pub(crate) use fixture;

/// The last turn of the first `n` lines of `transcript`, as `provider` reads it.
pub fn last_turn_upto(
    provider: &dyn crate::core::providers::ProviderModule,
    transcript: &str,
    n: usize,
) -> crate::core::providers::TranscriptTurn {
    let lines: Vec<String> = transcript.lines().take(n).map(str::to_string).collect();
    provider.last_turn(&mut lines.into_iter().rev())
}

/// Asserts the prompt and the answer `turn` read.
#[track_caller]
pub fn assert_turn(
    turn: &crate::core::providers::TranscriptTurn,
    prompt: &str,
    answer: Option<&str>,
) {
    assert_eq!(turn.prompt.as_deref(), Some(prompt), "{turn:?}");
    assert_eq!(turn.answer.as_deref(), answer, "{turn:?}");
}

/// An environment from `(name, value)` pairs.
pub fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A claude 2.1.332 session with several turns, tools and an API error.
pub const CLAUDE_SESSION: &str = fixture!("claude/claude-2.1.332-transcript-session1.jsonl");
/// The claude transcript that `/clear` started.
pub const CLAUDE_AFTER_CLEAR: &str = fixture!("claude/claude-2.1.332-transcript-after-clear.jsonl");
/// A codex 0.171.0 TUI rollout.
pub const CODEX_ROLLOUT: &str = fixture!("codex/codex-0.171.0-rollout-tui-session.jsonl");
/// A gemini 0.61.0 chat session.
pub const GEMINI_CHAT: &str = fixture!("gemini/gemini-0.61.0-chat-session.jsonl");

/// A qwen 0.24.4 chat record: turns, a tool call, an API error, a cancelled turn.
pub const QWEN_CHAT: &str = fixture!("qwen/qwen-0.24.4-chat-session.jsonl");
/// An opencode 1.18.33 worker record (the plugin's copy of its bus's messages and parts).
pub const OPENCODE_RECORD: &str =
    fixture!("opencode/1.18.33/opencode-1.18.33-record-text-turn.jsonl");

/// Every recorded session, with the provider that wrote it.
pub const SESSIONS: [(crate::core::providers::Provider, &str); 6] = [
    (crate::core::providers::Provider::Claude, CLAUDE_SESSION),
    (crate::core::providers::Provider::Claude, CLAUDE_AFTER_CLEAR),
    (crate::core::providers::Provider::Codex, CODEX_ROLLOUT),
    (crate::core::providers::Provider::Gemini, GEMINI_CHAT),
    (crate::core::providers::Provider::Qwen, QWEN_CHAT),
    (crate::core::providers::Provider::Opencode, OPENCODE_RECORD),
];

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
    crate::core::providers::last_turn_records(provider.module(), &mut newest_first).1
}

/// A launch in `/work/proj` as session `11111111-…`, with no model, flags, tail, environment or
/// user files, stopping at permission prompts; a test sets what it checks over it
/// (`LaunchInput { model: Some("x"), ..launch_input("/s/sessions/w1") }`).
pub fn launch_input(session_dir: &str) -> crate::core::providers::LaunchInput<'_> {
    crate::core::providers::LaunchInput {
        session_dir: std::path::Path::new(session_dir),
        hook_command: "sh e",
        session_id: "11111111-2222-4333-8444-555555555555",
        model: None,
        on_permission: crate::core::providers::OnPermission::Stop,
        flags: &[],
        cli_args: &[],
        cwd: std::path::Path::new("/work/proj"),
        env: &[],
        user_files: &[],
        release: None,
    }
}

/// Each recorded hook payload of a `*-hook-payloads.jsonl` file: its event name, its payload and
/// what `provider` makes of it.
pub fn classified_hooks(
    provider: &dyn crate::core::providers::ProviderModule,
    records: &str,
) -> Vec<(
    String,
    serde_json::Value,
    crate::core::providers::EventClass,
)> {
    records
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).expect("a JSON record");
            let event = record["event"].as_str().expect("an event name").to_string();
            let payload = record["stdin"].clone();
            let class = provider.classify(&event, Some(&payload));
            (event, payload, class)
        })
        .collect()
}

/// Asserts the class of every recorded hook whose event `expected` names (each of them recorded
/// at least once), and that a `TurnEnded` payload carries the answer; returns all the hooks
/// for the provider's own checks.
#[track_caller]
pub fn assert_hook_classes(
    provider: &dyn crate::core::providers::ProviderModule,
    records: &str,
    expected: &[(&str, crate::core::providers::EventClass)],
) -> Vec<(
    String,
    serde_json::Value,
    crate::core::providers::EventClass,
)> {
    let hooks = classified_hooks(provider, records);
    for (name, want) in expected {
        let recorded: Vec<_> = hooks.iter().filter(|(event, ..)| event == name).collect();
        assert!(!recorded.is_empty(), "no {name} hook recorded");
        for (_, payload, class) in recorded {
            assert_eq!(class, want, "{name}: {payload}");
            if *want == crate::core::providers::EventClass::TurnEnded {
                assert!(provider.answer_from_payload(payload).is_some(), "{payload}");
            }
        }
    }
    hooks
}

/// Asserts what `provider` makes of each startup screen.
#[track_caller]
pub fn assert_screens(
    provider: &dyn crate::core::providers::ProviderModule,
    cases: &[(&str, crate::core::providers::StartupScreen)],
) {
    for (i, (screen, want)) in cases.iter().enumerate() {
        assert_eq!(&provider.startup_screen(screen), want, "case {i}: {screen}");
    }
}

/// Asserts whether `provider` sees unsubmitted input on each screen.
#[track_caller]
pub fn assert_pending(
    provider: &dyn crate::core::providers::ProviderModule,
    cases: &[(&str, bool)],
) {
    for (i, (screen, want)) in cases.iter().enumerate() {
        assert_eq!(provider.pending_input(screen), *want, "case {i}: {screen}");
    }
}
