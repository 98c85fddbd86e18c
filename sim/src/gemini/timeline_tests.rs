//! The chat file over whole turns: upsert by id, the history rewrite on
//! failures, late records, and determinism of its bytes.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::test_support::{TOOL, chat, session, turn};
use super::turn::{Done, Outcome, Turn};
use crate::engine::timeline::Timeline;
use crate::keys::Key;

#[test]
fn a_tool_turn_upserts_its_gemini_record_by_id() {
    let mut s = session("upsert", TOOL, true);
    s.chat_open();
    turn(&mut s, "Please RUN_TOOL now");
    let records = chat(&s);
    let mut by_id: HashMap<String, Value> = HashMap::new();
    let mut order = Vec::new();
    for r in records.iter().filter(|r| r.get("id").is_some()) {
        let id = r["id"].as_str().unwrap().to_string();
        if by_id.insert(id.clone(), r.clone()).is_none() {
            order.push(id);
        }
    }
    let first_gemini = records.iter().find(|r| r["type"] == "gemini").unwrap();
    assert_eq!(
        first_gemini["content"], "",
        "written first with empty content"
    );
    assert!(first_gemini.get("toolCalls").is_none());
    let merged = &by_id[first_gemini["id"].as_str().unwrap()];
    assert_eq!(merged["toolCalls"][0]["status"], "success");
    assert_eq!(merged["toolCalls"][0]["args"]["command"], "echo hi");
    assert_eq!(
        merged["timestamp"], first_gemini["timestamp"],
        "same id, same timestamp"
    );
    let kinds: Vec<String> = order
        .iter()
        .map(|id| by_id[id]["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["user", "gemini", "user", "gemini"]);
    assert_eq!(by_id[&order[3]]["content"], "Done.");
    let fr = &by_id[&order[2]]["content"][0]["functionResponse"];
    assert!(
        fr["response"]["output"]
            .as_str()
            .unwrap()
            .contains("Output: hi")
    );
}

#[test]
fn failures_rewrite_the_history_without_the_failed_prompt() {
    let mut s = session(
        "rollback",
        r#"{"turns":[{"reply":"ok"},{"end":{"api_error":{"status":429,"message":"slow down"}}},{"end":"wedge"}]}"#,
        true,
    );
    s.chat_open();
    turn(&mut s, "first");
    let outcome = turn(&mut s, "second");
    let Outcome::Done(Done {
        after_agent: Some(after_agent),
        failure: Some(f),
        ..
    }) = outcome
    else {
        panic!("expected failure")
    };
    assert_eq!(
        after_agent.to_value()["prompt_response"],
        "[no response text]"
    );
    assert_eq!(f.status, 429);
    assert!(f.raw.contains("RESOURCE_EXHAUSTED"));
    let mut t = Turn::new(&mut s, "third".into(), Instant::now(), 120);
    t.start(&mut s);
    assert!(
        t.tick(&mut s, Instant::now() + Duration::from_secs(9))
            .is_none(),
        "wedged"
    );
    let Outcome::Done(Done { response, .. }) = t.cancel(&mut s) else {
        panic!()
    };
    assert_eq!(response, "");
    let records = chat(&s);
    let types: Vec<&str> = records.iter().filter_map(|r| r["type"].as_str()).collect();
    assert_eq!(
        types,
        ["user", "gemini", "user", "error", "info", "user", "info"]
    );
    let rewrites: Vec<&Value> = records
        .iter()
        .filter(|r| r["$set"].get("messages").is_some())
        .collect();
    assert_eq!(rewrites.len(), 3, "start, error, cancel");
    for rw in &rewrites[1..] {
        let texts: Vec<Value> = rw["$set"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"][0]["text"].clone())
            .collect();
        assert_eq!(texts.len(), 3, "context, first, its answer");
        assert_eq!(texts[1], "first");
        assert_eq!(texts[2], "ok", "gemini content in API form (parts)");
    }
    assert_eq!(
        records.iter().rev().find(|r| r["type"] == "info").unwrap()["content"],
        "Request cancelled."
    );
}

#[test]
fn the_same_scenario_gives_the_same_chat_bytes() {
    let run = || {
        let mut s = session("determinism", TOOL, true);
        s.chat_open();
        turn(&mut s, "Please RUN_TOOL now");
        turn(&mut s, "Please BADREQ now");
        turn(&mut s, "third");
        std::fs::read(&s.chat_path).unwrap()
    };
    let (a, b) = (run(), run());
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn late_transcript_fires_after_agent_before_the_last_record() {
    let mut s = session(
        "late",
        r#"{"turns":[{"reply":"Done.","late_transcript_ms":300}]}"#,
        true,
    );
    s.chat_open();
    let Outcome::Done(Done {
        after_agent: Some(after_agent),
        late: Some(late),
        ..
    }) = turn(&mut s, "x")
    else {
        panic!("expected late records")
    };
    assert_eq!(after_agent.to_value()["prompt_response"], "Done.");
    assert!(
        chat(&s).iter().all(|r| r["type"] != "gemini"),
        "not written yet"
    );
    let rec = late.records[0].to_value();
    assert_eq!(rec["content"], "Done.");
    assert!(
        rec["timestamp"].as_str().unwrap() > after_agent.to_value()["timestamp"].as_str().unwrap()
    );
    assert_eq!(
        late.records[1].to_value()["$set"]["lastUpdated"],
        rec["timestamp"]
    );
}

#[test]
fn refusing_the_confirmation_ends_the_turn_and_no_after_agent_fires() {
    // gemini 0.61.0, Esc or `3` on the dialog (rec-out gemini-esc.md, gemini-3.md): no hook,
    // `-  Shell …` and `ℹ Request cancelled.`, an `info` record, ready for the next prompt.
    let later = Instant::now() + Duration::from_secs(3600);
    for esc in [true, false] {
        let mut s = session("refuse", TOOL, true);
        s.chat_open();
        let mut t = Turn::new(&mut s, "Please RUN_TOOL now".into(), Instant::now(), 120);
        t.start(&mut s);
        while t.core.deadline().is_some() {
            assert!(t.tick(&mut s, later).is_none());
        }
        let outcome = match esc {
            true => Some(t.cancel(&mut s)),
            false => t.key(&mut s, &Key::Text("3".into()), later),
        };
        let Some(Outcome::Done(done)) = outcome else {
            panic!("the refusal did not end the turn")
        };
        assert_eq!(done.after_agent, None, "no AfterAgent");
        let shown = t.core.commits.join("\n");
        assert!(shown.contains("│ -  Shell echo hi"), "{shown}");
        assert!(shown.contains("ℹ Request cancelled."), "{shown}");
        let records = chat(&s);
        let info = records.iter().rev().find(|r| r["type"] == "info").unwrap();
        assert_eq!(info["content"], "Request cancelled.");
        let call = records
            .iter()
            .rev()
            .find_map(|r| r.get("toolCalls"))
            .unwrap();
        assert_eq!(call[0]["status"], "cancelled");
    }
}
