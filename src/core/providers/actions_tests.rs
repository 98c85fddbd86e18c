//! Tool actions read from the recorded transcripts (and small variants of their records).

use super::*;
use crate::core::providers::str_field;
use crate::core::providers::{
    claude::actions::read as claude, codex::actions::read as codex, gemini::actions::read as gemini,
};
use crate::core::test_data::{
    CLAUDE_SESSION as CLAUDE, CODEX_ROLLOUT as CODEX, GEMINI_CHAT as GEMINI,
};
use crate::core::turns::ActionStatus::{Error, Ok, Pending};
use serde_json::json;

fn records(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

const TOOL_COMMAND: &str =
    "env | grep -E '^(CLAUDE|AI_AGENT|CODEX|GEMINI)' | sort > /tmp/hooklogs/tool-env-";

#[test]
fn claude_pairs_tool_use_with_its_tool_result() {
    let actions = claude(&records(CLAUDE));
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].tool, "Bash");
    assert_eq!(
        actions[0].input,
        format!("{TOOL_COMMAND}claude.txt; echo hello-from-tool")
    );
    assert_eq!(actions[0].status, Ok);
}

#[test]
fn claude_tool_without_result_is_pending_and_a_refusal_is_an_error() {
    let all = records(CLAUDE);
    let result_at = all
        .iter()
        .position(|r| r.to_string().contains("\"tool_result\""))
        .expect("a tool_result record");
    assert_eq!(claude(&all[..result_at])[0].status, Pending);
    let mut refused = all[result_at].clone();
    refused["message"]["content"][0]["is_error"] = json!(true);
    let mut changed = all[..result_at].to_vec();
    changed.push(refused);
    assert_eq!(claude(&changed)[0].status, Error);
}

#[test]
fn codex_reads_exec_command_calls_and_their_exit_codes() {
    let all = records(CODEX);
    let actions = codex(&all);
    assert_eq!(actions.len(), 2);
    assert!(
        actions
            .iter()
            .all(|a| a.tool == "exec_command" && a.status == Ok)
    );
    assert_eq!(
        actions[0].input,
        format!("{TOOL_COMMAND}codex.txt; echo hello-from-tool")
    );
    assert_eq!(
        actions[1].input,
        "touch /tmp/probework/escalated-marker; echo escalated"
    );
    let failing = replaced(
        &all,
        "Process exited with code 0",
        "Process exited with code 2",
    );
    assert_eq!(codex(&failing)[0].status, Error);
    let before_output = all
        .iter()
        .position(|r| {
            str_field(&r["payload"], "type") == Some("item_completed")
                && r["payload"]["item"]["type"] == "CommandExecution"
        })
        .expect("a command item");
    assert_eq!(codex(&all[..before_output])[0].status, Pending);
}

#[test]
fn gemini_reads_tool_calls_from_the_last_version_of_a_record() {
    let all = records(GEMINI);
    let actions = gemini(&all);
    assert_eq!(actions.len(), 1, "the rewritten record counts once");
    assert_eq!(actions[0].tool, "run_shell_command");
    assert_eq!(
        actions[0].input,
        format!("{TOOL_COMMAND}gemini.txt; echo hello-from-tool")
    );
    assert_eq!(actions[0].status, Ok);
    let cancelled = replaced(&all, "\"status\":\"success\"", "\"status\":\"cancelled\"");
    assert_eq!(gemini(&cancelled)[0].status, Error);
}

/// `records` with `from` replaced by `to` in each.
fn replaced(records: &[Value], from: &str, to: &str) -> Vec<Value> {
    records
        .iter()
        .map(|r| serde_json::from_str(&r.to_string().replace(from, to)).expect("json"))
        .collect()
}

/// Each reader keeps a call's whole input and what it printed, for a client that shows them
/// (`umbel acp`'s tool calls): the recorded shell call of every CLI.
#[test]
fn every_reader_keeps_the_calls_arguments_and_its_output() {
    use crate::core::providers::{
        copilot::actions::read as copilot, opencode::actions::read as opencode,
        qwen::actions::read as qwen,
    };
    let data = |p: &str| {
        let path = format!("{}/tests/data/{p}", env!("CARGO_MANIFEST_DIR"));
        records(&std::fs::read_to_string(&path).expect("a recording"))
    };
    let cases = [
        (claude(&records(CLAUDE)), "hello-from-tool"),
        (codex(&records(CODEX)), "hello-from-tool"),
        (gemini(&records(GEMINI)), "hello-from-tool"),
        (
            qwen(&records(crate::core::test_data::QWEN_CHAT)),
            "Output: hi",
        ),
        (
            opencode(&data(
                "opencode/1.18.33/opencode-1.18.33-run-format-json-tool.jsonl",
            )),
            "hi",
        ),
        (
            copilot(&data("copilot/1.0.102/copilot-1.0.102-events.jsonl")),
            "completed with exit code 0",
        ),
    ];
    for (actions, printed) in cases {
        let first = &actions[0];
        assert!(first.args.is_object(), "{first:?}");
        let output = first.output.as_deref().unwrap_or_default();
        assert!(output.contains(printed), "{first:?}");
    }
    let refused = copilot(&data(
        "copilot/1.0.102/copilot-1.0.102-deny-rule-events.jsonl",
    ));
    let output = refused[0].output.as_deref().unwrap_or_default();
    assert!(output.contains("was denied"), "{refused:?}");
}

/// The model's thinking, as each CLI recorded a turn whose model thought first (fake-model's
/// `thinking`: a claude `thinking` block, a Responses `reasoning` summary, gemini thought
/// parts, chat `reasoning_content`).
#[test]
fn every_cli_records_the_models_thinking_its_own_way() {
    use crate::core::providers::Provider;
    let cases = [
        (Provider::Claude, "claude/claude-2.1.332-thinking.jsonl"),
        (Provider::Codex, "codex/codex-0.171.0-thinking.jsonl"),
        (Provider::Gemini, "gemini/gemini-0.61.0-thinking.jsonl"),
        (Provider::Qwen, "qwen/qwen-0.24.4-thinking.jsonl"),
        (
            Provider::Opencode,
            "opencode/1.18.33/opencode-1.18.33-thinking.jsonl",
        ),
        (
            Provider::Copilot,
            "copilot/1.0.102/copilot-1.0.102-thinking.jsonl",
        ),
    ];
    for (provider, file) in cases {
        let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        let all = records(&std::fs::read_to_string(&path).expect("a recording"));
        let thoughts = (provider.module().identity().thoughts)(&all);
        assert_eq!(
            thoughts,
            ["Let me weigh this: UMBEL-THOUGHT."],
            "{provider}"
        );
    }
    let without = (Provider::Claude.module().identity().thoughts)(&records(CLAUDE));
    assert!(without.is_empty(), "{without:?}");
}
