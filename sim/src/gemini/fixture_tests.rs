//! Hook payloads, chat records and headless JSON against the real 0.61.0
//! samples: every field of the fixture record of a kind is in ours, with the
//! same nesting.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::output;
use super::test_support::{TOOL, assert_fields, chat, data, lines, session, turn};
use super::turn::{Done, Outcome, Turn};
use crate::engine::timeline::Timeline;
use crate::json::Obj;

#[test]
fn hook_payloads_have_every_fixture_field_in_order() {
    let mut s = session("payloads", "{}", true);
    let input = json!({"command": "echo hi", "description": "Print a greeting"});
    let (title, details) =
        super::payloads::confirmation_details("run_shell_command", "Shell", &input);
    let ours: Vec<(&str, Obj)> = vec![
        ("SessionStart", s.payload_session_start("startup")),
        ("BeforeAgent", s.payload_before_agent("Say hello")),
        ("AfterAgent", s.payload_after_agent("Say hello", "Hello!")),
        (
            "BeforeTool",
            s.payload_before_tool("run_shell_command", &input),
        ),
        (
            "AfterTool",
            s.payload_after_tool("run_shell_command", &input, "Output: hi", "hi"),
        ),
        ("Notification", s.payload_notification(&title, details)),
        ("SessionEnd", s.payload_session_end("exit")),
    ];
    let fixture = lines("hook-payloads.jsonl");
    for (event, got) in ours {
        let want = &fixture.iter().find(|v| v["event"] == event).unwrap()["stdin"];
        assert_fields(want, &got.to_value(), event);
        // Sorted: serde_json keeps file order or sorts, depending on a feature another
        // crate of the workspace may turn on; the order itself is checked just below.
        let mut want_keys: Vec<&String> = want.as_object().unwrap().keys().collect();
        want_keys.sort();
        let got_keys: Vec<&String> = got.0.keys().collect();
        let mut sorted = got_keys.clone();
        sorted.sort();
        assert_eq!(want_keys, sorted, "{event}: same top-level fields");
        assert_eq!(
            got_keys[..5],
            [
                "session_id",
                "transcript_path",
                "cwd",
                "hook_event_name",
                "timestamp"
            ]
        );
    }
    let empty = s.payload_after_agent("x", "");
    assert_eq!(empty.to_value()["prompt_response"], "[no response text]");
}

#[test]
fn chat_records_have_every_fixture_field() {
    let mut s = session("records", TOOL, true);
    s.chat_open();
    assert!(matches!(
        turn(&mut s, "Please RUN_TOOL now"),
        Outcome::Done(Done { failure: None, .. })
    ));
    assert!(matches!(
        turn(&mut s, "Please BADREQ now"),
        Outcome::Done(Done {
            failure: Some(_),
            ..
        })
    ));
    let ours = chat(&s);
    let fixture = lines("chat-session.jsonl");
    let kind = |v: &Value| -> String {
        if let Some(set) = v.get("$set") {
            let mut keys: Vec<&String> = set.as_object().unwrap().keys().collect();
            keys.sort();
            return format!("$set{keys:?}");
        }
        if v.get("sessionId").is_some() {
            return "header".into();
        }
        let tools = if v.get("toolCalls").is_some() {
            "+tools"
        } else {
            ""
        };
        let fr = if v["content"][0].get("functionResponse").is_some() {
            "+fr"
        } else {
            ""
        };
        format!("{}{tools}{fr}", v["type"].as_str().unwrap_or("?"))
    };
    let mut seen = Vec::new();
    for want in &fixture {
        let k = kind(want);
        let got = ours
            .iter()
            .find(|v| kind(v) == k)
            .unwrap_or_else(|| panic!("no `{k}` record"));
        assert_fields(want, got, &k);
        seen.push(k);
    }
    assert!(seen.contains(&"gemini+tools".to_string()) && seen.contains(&"user+fr".to_string()));
    assert!(
        ours.iter()
            .all(|v| fixture.iter().any(|f| kind(f) == kind(v))),
        "no kinds the real CLI lacks"
    );
}

#[test]
fn headless_json_shapes_match_the_fixtures() {
    let mut s = session("json", TOOL, false);
    s.mode = super::cli::ApprovalMode::Yolo;
    s.chat_open();
    turn(&mut s, "Please RUN_TOOL now");
    let want: Value = serde_json::from_str(&data("print-json-success.json")).unwrap();
    let mut got = output::result_json(&s, "Done.").to_value();
    // The fixture's stats are keyed by the model that answered; ours is `gemini-3.8-flash`.
    let model = got["stats"]["models"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let stats = got["stats"]["models"][&model].clone();
    got["stats"]["models"]["gemini-fake"] = stats;
    assert_fields(&want, &got, "json");
    assert_eq!(
        got["stats"]["tools"]["byName"]["run_shell_command"]["success"],
        1
    );
    let f = super::turn::Failure {
        status: 400,
        raw: "{}".into(),
    };
    let want: Value = serde_json::from_str(&data("print-json-api-error-stderr.json")).unwrap();
    assert_fields(&want, &output::error_json(&s, &f).to_value(), "error");
    assert!(
        output::pretty(&output::error_json(&s, &f))
            .contains("\n  \"error\": {\n    \"type\": \"Error\"")
    );
}

#[test]
fn stream_json_events_match_the_fixture() {
    let mut s = session("stream", TOOL, false);
    s.mode = super::cli::ApprovalMode::Yolo;
    let later = Instant::now() + Duration::from_secs(9);
    let mut t = Turn::new(&mut s, "Run it".into(), Instant::now(), 120);
    t.start(&mut s);
    let mut events = Vec::new();
    while t.tick(&mut s, later).is_none() {}
    for e in std::mem::take(&mut t.events) {
        events.push(output::event(&mut s, &e).to_value());
    }
    let mut ours = vec![
        output::init(&mut s).to_value(),
        output::message(&mut s, "user", "Run it").to_value(),
    ];
    ours.extend(events);
    ours.push(output::result_event(&mut s, 5, None).to_value());
    let want = lines("print-stream-json-tool-turn.jsonl");
    let types = |v: &[Value]| {
        v.iter()
            .map(|e| e["type"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(types(&ours), types(&want));
    for (w, g) in want.iter().zip(&ours) {
        let mut w = w.clone();
        if let Some(models) = w.pointer_mut("/stats/models") {
            *models = json!({});
        }
        assert_fields(&w, g, w["type"].as_str().unwrap());
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&w), keys(g));
    }
    assert_eq!(ours[3]["output"], "hi");
}
