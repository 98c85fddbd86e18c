//! `umbel acp` on every CLI, fakes and real ones (`tiers::acp::real::…`, `just smoke-offline`),
//! driven by the official SDK's client side: a prompt streamed as chunks and ended `end_turn`,
//! a second turn, a permission asked of the editor and allowed, `session/cancel` ending the
//! prompt `cancelled` with the next one answered, the editor's going away parking the worker,
//! and `session/load` in a new process replaying the conversation and going on.

use super::{Tier, world_asking_first};
use crate::acp::{Said, answered, editor, prompt, said, said_until, state};
use agent_client_protocol::v1::schema::{
    CancelNotification, LoadSessionRequest, NewSessionRequest, StopReason, ToolCallStatus,
};
use serde_json::{Value, json};
use std::path::PathBuf;

fn an_editor_prompts_is_asked_cancels_and_loads(provider: &str, tier: Tier) {
    let sb = world_asking_first(tier);
    let words = vec!["slow"; 60].join(" ");
    let tool = json!({ "tool": "Bash", "input": { "command": "echo umbel-tool-ran > umbel-tool.txt; cat umbel-tool.txt", "description": "Write and show it" } });
    let scenario = sb.scenario(
        "acp",
        json!({ "turns": [
            { "match": "hello", "reply": "Hello from the fake.", "thinking": "Weighing it: UMBEL-THOUGHT.", "chunk_ms": 50, "late_transcript_ms": 1200 },
            { "match": "again", "reply": "Second answer." },
            { "match": "tool", "reply": "It printed hi.", "late_transcript_ms": 1200, "end": { "permission": tool } },
            { "match": "long", "reply": words, "delay_ms": 30000 },
            { "match": "after", "reply": "After the cancel." },
            { "match": "resumed", "reply": "Still here." },
        ] }),
    );
    let args = ["--provider", provider, "--env", scenario.as_str()];
    let project = sb.project.clone();
    let (id, first) = editor(&sb, &args, {
        let sb_state = &sb;
        async move |cx, mut heard| {
            let new = answered(&cx, NewSessionRequest::new(project), "session/new").await;
            let id = new.session_id;
            let ended = answered(&cx, prompt(&id, "hello"), "prompt 1").await;
            assert_eq!(ended.stop_reason, StopReason::EndTurn);
            // The context's use, where the transcript records it with the window's size (a
            // CLI may write it after the turn's end: it may come after the response).
            let wait = if records_context(provider) { 10 } else { 0 };
            let limit = std::time::Duration::from_secs(wait);
            let first = said_until(&mut heard, limit, |s| s.usage.is_some()).await;
            assert_eq!(first.agent, "Hello from the fake.");
            // The model's thinking, as the CLI recorded it.
            assert_eq!(first.thoughts, "Weighing it: UMBEL-THOUGHT.", "{first:?}");
            let window = first.usage.map(|(used, size)| used > 0 && size > used);
            assert_eq!(
                window,
                records_context(provider).then_some(true),
                "{first:?}"
            );
            let ended = answered(&cx, prompt(&id, "again"), "prompt 2").await;
            assert_eq!(ended.stop_reason, StopReason::EndTurn);
            assert_eq!(said(&mut heard).agent, "Second answer.");
            let ended = answered(&cx, prompt(&id, "run the tool"), "prompt 3").await;
            assert_eq!(ended.stop_reason, StopReason::EndTurn);
            let Said {
                agent,
                asked,
                tools,
                ..
            } = said(&mut heard);
            assert_eq!(asked.len(), 1, "one permission asked");
            assert!(agent.ends_with("It printed hi."), "{agent}");
            // The tool, from the transcript, ran; the permission asked about that tool call.
            let asked_about = asked[0].tool_call.tool_call_id.0.to_string();
            let [tool] = &tools[..] else {
                panic!("one tool call: {tools:?}")
            };
            assert_eq!(tool.id, asked_about, "{tools:?}");
            assert_eq!(tool.status, ToolCallStatus::Completed, "{tools:?}");
            // Its whole input, and what it printed.
            let input = tool
                .input
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default();
            assert!(input.contains("cat umbel-tool.txt"), "{tools:?}");
            assert!(tool.output.contains("umbel-tool-ran"), "{tools:?}");
            // Cancel once the CLI runs the turn.
            let long = cx.send_request(prompt(&id, "a long task"));
            let name = id.0.to_string();
            for _ in 0..200 {
                if state(sb_state, &name) == "busy" {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            cx.send_notification(CancelNotification::new(id.clone()))
                .expect("session/cancel");
            let ended = long.block_task().await.expect("the cancelled prompt");
            assert_eq!(ended.stop_reason, StopReason::Cancelled);
            // A cancelled turn said nothing (not an earlier turn's answer).
            let agent = said(&mut heard).agent;
            assert!(!agent.contains("It printed hi."), "{agent:?}");
            let ended = answered(&cx, prompt(&id, "after that"), "prompt 5").await;
            assert_eq!(ended.stop_reason, StopReason::EndTurn);
            assert!(said(&mut heard).agent.ends_with("After the cancel."));
            (id, name)
        }
    });
    assert_eq!(
        state(&sb, &first),
        "parked",
        "the editor left: its worker is parked"
    );
    let ls: Vec<Value> = sb.ls();
    assert!(ls.iter().any(|w| w["name"] == first.as_str()), "{ls:?}");
    // A new editor process loads the session: the conversation first, then a turn goes on.
    let project: PathBuf = sb.project.clone();
    editor(&sb, &args, async move |cx, mut heard| {
        answered(
            &cx,
            LoadSessionRequest::new(id.clone(), project),
            "session/load",
        )
        .await;
        // The replay came before the response; a client may take its notifications after.
        let replayed = |s: &Said| s.user.contains("again") && s.agent.contains("Second answer.");
        let limit = std::time::Duration::from_secs(5);
        let Said { agent, user, .. } = said_until(&mut heard, limit, replayed).await;
        assert!(user.contains("hello") && user.contains("again"), "{user}");
        assert!(
            agent.contains("Hello from the fake.") && agent.contains("Second answer."),
            "{agent}"
        );
        let ended = answered(&cx, prompt(&id, "resumed?"), "prompt after load").await;
        assert_eq!(ended.stop_reason, StopReason::EndTurn);
        assert_eq!(said(&mut heard).agent, "Still here.");
    });
    sb.umbel(["kill", &first, "--purge"]).success();
}

/// Whether the CLI's transcript records the context window next to its use.
fn records_context(provider: &str) -> bool {
    ["codex", "qwen", "copilot"].contains(&provider)
}

tiered!([claude, codex, gemini, qwen, opencode, copilot]; { an_editor_prompts_is_asked_cancels_and_loads });
