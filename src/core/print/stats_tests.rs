use super::*;
use crate::core::providers::Provider;
use crate::core::test_data::{CLAUDE_SESSION, CODEX_ROLLOUT, GEMINI_CHAT, turn_records};

/// The stats of the recorded turn opened by `prompt`, read up to the line holding `until`.
fn turn(provider: Provider, session: &str, prompt: &str, until: &str) -> TurnStats {
    provider
        .module()
        .turn_stats(&turn_records(provider, session, prompt, until))
}

#[test]
fn claude_counts_each_message_once_and_pairs_tools_with_results() {
    let stats = turn(
        Provider::Claude,
        CLAUDE_SESSION,
        "Please RUN_TOOL now",
        "The command printed hello-from-tool",
    );
    assert_eq!(stats.models.len(), 1);
    let (model, tokens) = &stats.models[0];
    assert_eq!(model, "claude-opus-5-5");
    // Two messages: the tool call (30 output tokens, on two lines) and the final answer (12).
    assert_eq!((tokens.requests, tokens.input, tokens.output), (2, 246, 42));
    assert_eq!(stats.tools.len(), 1);
    assert_eq!(stats.tools[0].name, "Bash");
    assert_eq!(stats.tools[0].output.as_deref(), Some("hello-from-tool"));
    assert_eq!(stats.tools[0].ok, Some(true));
    assert_eq!(stats.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(stats.api_error_status, None);
}

#[test]
fn a_claude_api_error_has_its_status_and_no_model_usage() {
    let stats = turn(
        Provider::Claude,
        CLAUDE_SESSION,
        "Trigger BADREQ please",
        "fake bad request for probing",
    );
    assert!(stats.models.is_empty(), "{stats:?}");
    assert_eq!(stats.api_error_status, Some(400));
    assert_eq!(
        stats.api_error_type.as_deref(),
        Some("invalid_request_error")
    );
    assert_eq!(stats.stop_reason.as_deref(), Some("stop_sequence"));
}

#[test]
fn codex_sums_the_token_records_of_the_turn_and_reads_exit_codes() {
    let stats = turn(
        Provider::Codex,
        CODEX_ROLLOUT,
        "Please RUN_TOOL now",
        "\"task_complete\"",
    );
    let total = stats.total();
    assert_eq!(stats.models[0].0, "gpt-fake-1");
    assert_eq!((total.requests, total.input), (2, 642));
    assert_eq!(stats.tools.len(), 1);
    assert_eq!(stats.tools[0].name, "exec_command");
    assert_eq!(stats.tools[0].exit_code, Some(0));
    assert_eq!(stats.tools[0].output.as_deref(), Some("hello-from-tool\n"));
    assert!(stats.duration_ms.is_some());
}

#[test]
fn gemini_reads_the_last_version_of_each_record() {
    let stats = turn(
        Provider::Gemini,
        GEMINI_CHAT,
        "Please RUN_TOOL now",
        "The command printed hello-from-tool",
    );
    let (model, tokens) = &stats.models[0];
    assert_eq!(model, "gemini-3.8-flash");
    assert_eq!((tokens.requests, tokens.input, tokens.output), (2, 912, 18));
    assert_eq!(stats.tools.len(), 1);
    assert_eq!(stats.tools[0].name, "run_shell_command");
    assert_eq!(stats.tools[0].ok, Some(true));
    let errored = turn(
        Provider::Gemini,
        GEMINI_CHAT,
        "Please BADREQ now",
        "[API Error",
    );
    assert_eq!(errored.api_error_status, Some(400));
}

/// A qwen request that failed counts as a request to its model (qwen's own stats count it, and
/// 0.23.0's print mode lists the model on an API error).
#[test]
fn a_qwen_api_error_is_a_request_to_its_model() {
    let stats = turn(
        Provider::Qwen,
        crate::core::test_data::QWEN_CHAT,
        "a bad one",
        "qwen-code.api_error",
    );
    assert_eq!(stats.api_error_status, Some(400));
    let (model, tokens) = &stats.models[0];
    assert_eq!(model, "qwen-fake");
    assert_eq!((tokens.requests, tokens.output), (1, 0));
}

/// How full the context is, where the CLI records it next to the window's size: codex's
/// `token_count`, qwen's assistant record, copilot's usage record; the others record no window.
#[test]
fn the_context_in_use_and_its_window_where_the_transcript_has_both() {
    let records = |text: &str| -> Vec<Value> {
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    };
    let copilot = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/copilot/1.0.102/copilot-1.0.102-events.jsonl"
    ))
    .expect("the recording");
    let context = |provider: Provider, text: &str| {
        let reading = provider.module().usage_reading();
        reading.context.as_ref()?.read(&records(text))
    };
    assert_eq!(
        context(Provider::Codex, CODEX_ROLLOUT),
        Some((338, 258_400))
    );
    let qwen = crate::core::test_data::QWEN_CHAT;
    assert_eq!(context(Provider::Qwen, qwen).map(|c| c.1), Some(262_144));
    assert_eq!(context(Provider::Copilot, &copilot), Some((338, 128_000)));
    assert_eq!(context(Provider::Claude, CLAUDE_SESSION), None);
    assert_eq!(context(Provider::Gemini, GEMINI_CHAT), None);
}
