//! fake-opencode's TUI in a pseudo-terminal (no tmux): Tab switches the agent Build ↔ Plan as
//! 1.18.33 was recorded (`opencode-1.18.33-mode-build.txt`, `-mode-plan.txt`), and a turn is
//! the agent's (`▣  Plan · <model>` under it, `agent` in its messages).

mod common;

use std::time::{Duration, Instant};

use serde_json::Value;

use common::opencode::Opencode;
use common::pty::{exp, send, spawn, step};
use common::read_jsonl;

/// The agent row of the input box with `agent`.
fn agent_row(agent: &str) -> String {
    format!("┃  {agent} · Claude Sonnet 4.5 (latest) Anthropic")
}

/// The record's messages, once the assistant's has finished.
fn messages(s: &Opencode) -> Vec<Value> {
    let path = s.root.join("record.jsonl");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let records = if path.exists() {
            read_jsonl(&path)
        } else {
            Vec::new()
        };
        let done = records.iter().any(|r| r["info"]["finish"] == "stop");
        if done || Instant::now() > deadline {
            return records
                .into_iter()
                .filter(|r| r["type"] == "message")
                .collect();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn tab_switches_the_agent_and_a_turn_is_the_agents() {
    let s = Opencode::new("agents");
    let mut p = spawn(&s, r#"{"turns":[{"reply":"Planned."}]}"#, &[]);
    exp(&mut p, &agent_row("Build"));
    step(&mut p, "\t", &agent_row("Plan"));
    step(&mut p, "\t", &agent_row("Build"));
    step(&mut p, "\t", &agent_row("Plan"));
    step(&mut p, "what now\r", "Planned.");
    exp(&mut p, "▣  Plan · Claude Sonnet 4.5 (latest) · ");
    exp(&mut p, &agent_row("Plan"));
    let messages = messages(&s);
    assert!(messages.len() >= 2, "{messages:#?}");
    for m in &messages {
        assert_eq!(m["info"]["agent"], "plan", "{m}");
    }
    let assistant = messages.iter().find(|m| m["info"]["role"] == "assistant");
    assert_eq!(assistant.unwrap()["info"]["mode"], "plan");
    step(&mut p, "\t", &agent_row("Build"));
    send(&mut p, "\x03");
    p.exp_eof().unwrap();
}
