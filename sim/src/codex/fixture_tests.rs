//! Hook payloads, rollout records and `exec --json` events against the real
//! 0.171.0 samples: every field the sample of a kind has, ours has, with the
//! same nesting (payloads: exactly the same keys, in the same order). Plus
//! determinism: the same scenario gives the same rollout bytes.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};

use super::exec::{thread_started, turn_completed, turn_failed, turn_started};
use super::session::Session;
use super::turn::{Done, Outcome, Phase, Turn};
use crate::engine::timeline::Timeline;
use crate::fixtures::{self, assert_fields};
use crate::json::Obj;
use crate::keys::Key;
use crate::scenario::Scenario;

fn data(name: &str) -> Vec<Value> {
    fixtures::jsonl(&format!("codex-0.171.0-{name}"))
}

/// The keys of `v` in the order they appear in `text` (serde_json sorts them).
fn ordered_keys(v: &Value, text: &str) -> Vec<String> {
    let mut keys: Vec<(usize, String)> = v
        .as_object()
        .unwrap()
        .keys()
        .map(|k| {
            (
                text.find(&format!("\"{k}\"")).unwrap_or(usize::MAX),
                k.clone(),
            )
        })
        .collect();
    keys.sort();
    keys.into_iter().map(|(_, k)| k).collect()
}

fn raw(name: &str) -> Vec<String> {
    let path = format!(
        "{}/tests/data/codex-0.171.0-{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

const SCENARIO: &str = r#"{"turns":[
  {"match":"hello","reply":"Hello!","chunk_ms":5},
  {"match":"RUN","reply":"Done.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi","description":"Probe"}}}},
  {"match":"LIMIT","end":{"usage_limit":{}}},
  {"match":"BAD","end":{"api_error":{"status":400,"message":"fake bad request for probing"}}},
  {"match":"SLOW","reply":"thinking","end":"wedge"}]}"#;

fn session(home: &Path, interactive: bool) -> Session {
    Session::for_test(home, Scenario::parse(SCENARIO).unwrap(), interactive)
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sim-codex-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs one prompt to its end: approves an approval prompt with `y`,
/// interrupts a wedged turn with Esc. Returns the turn (for its events).
fn drive(sess: &mut Session, prompt: &str) -> (Turn, Outcome) {
    let mut t = Instant::now();
    let mut turn = Turn::new(sess, prompt.to_string(), t, 120);
    turn.start(sess);
    loop {
        if let Some(d) = turn.core.deadline() {
            t = t.max(d);
            if let Some(o) = turn.tick(sess, t) {
                return (turn, o);
            }
            continue;
        }
        let key = match turn.core.phase {
            Phase::Dialog(_) => Key::Text("y".into()),
            _ => Key::Esc,
        };
        if let Some(o) = turn.key(sess, &key, t) {
            return (turn, o);
        }
    }
}

fn rollout(sess: &Session) -> Vec<String> {
    std::fs::read_to_string(&sess.rollout_path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn run_all(home: &Path) -> Session {
    let mut sess = session(home, true);
    for p in [
        "Say hello",
        "Please RUN now",
        "Please LIMIT now",
        "Please BAD now",
        "Please SLOW down",
    ] {
        drive(&mut sess, p);
    }
    sess
}

fn kind(r: &Value) -> String {
    let p = &r["payload"];
    let text = p
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or("");
    format!(
        "{}/{}/{}/{}/{}/{}",
        r["type"].as_str().unwrap_or(""),
        p["type"].as_str().unwrap_or(""),
        p["role"].as_str().unwrap_or(""),
        p.pointer("/item/type")
            .and_then(Value::as_str)
            .unwrap_or(""),
        p.get("error").is_some_and(|e| !e.is_null()),
        text.starts_with('<'),
    )
}

#[test]
fn rollout_records_have_every_fixture_field() {
    let home = temp("rollout");
    let sess = run_all(&home);
    let ours: Vec<Value> = rollout(&sess)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for want in data("rollout-tui-session.jsonl") {
        let k = kind(&want);
        let got = ours
            .iter()
            .find(|r| kind(r) == k)
            .unwrap_or_else(|| panic!("no record of kind {k}"));
        assert_fields(&want, got, &k);
    }
    for (i, (r, line)) in ours.iter().zip(rollout(&sess)).enumerate() {
        assert_eq!(r["ordinal"], json!(i), "ordinals count from 0");
        assert_eq!(
            ordered_keys(r, &line)[..4],
            ["timestamp", "ordinal", "type", "payload"]
        );
    }
    let stamps: Vec<&str> = ours
        .iter()
        .map(|r| r["timestamp"].as_str().unwrap())
        .collect();
    assert!(
        stamps.windows(2).all(|w| w[0] < w[1]),
        "timestamps increase"
    );
    let aborted = ours
        .iter()
        .rev()
        .find(|r| r["payload"]["type"] == "turn_aborted")
        .unwrap();
    assert_eq!(aborted["payload"]["reason"], "interrupted");
    assert!(aborted["payload"]["duration_ms"].is_number());
    let marker = ours
        .iter()
        .rev()
        .find(|r| kind(r) == "response_item/message/user//false/true")
        .unwrap();
    assert!(
        marker["payload"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("<turn_aborted>\n")
    );
    let limit = ours
        .iter()
        .find(|r| r["payload"]["error"]["codex_error_info"] == "usage_limit_exceeded");
    assert!(limit.is_some_and(|r| r["payload"]["last_agent_message"].is_null()));
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn hook_payloads_have_the_fixture_keys_in_order() {
    let home = temp("payloads");
    let mut s = session(&home, true);
    let input = json!({"command": "echo hi", "description": "Probe"});
    let ours: Vec<(&str, Obj)> = vec![
        ("SessionStart", s.payload_session_start()),
        (
            "UserPromptSubmit",
            s.payload_user_prompt_submit("t", "Say hello"),
        ),
        (
            "PreToolUse",
            s.payload_pre_tool_use("t", "Bash", &input, "call_1"),
        ),
        (
            "PermissionRequest",
            s.payload_permission_request("t", "Bash", &input),
        ),
        (
            "PostToolUse",
            s.payload_post_tool_use("t", "Bash", &input, "hi\n", "call_1"),
        ),
        ("Stop", s.payload_stop("t", "Hello!")),
        ("Interrupt", s.payload_interrupt("t")),
        ("SessionEnd", s.payload_session_end("other")),
    ];
    let samples = raw("hook-payloads.jsonl");
    for (event, got) in ours {
        let line = samples
            .iter()
            .find(|l| {
                l.contains(&format!("\"event\": \"{event}\""))
                    || l.contains(&format!("\"event\":\"{event}\""))
            })
            .unwrap_or_else(|| panic!("no {event} sample"));
        let want = serde_json::from_str::<Value>(line).unwrap()["stdin"].clone();
        let got_line = got.to_line();
        assert_eq!(
            ordered_keys(&got.to_value(), &got_line),
            ordered_keys(&want, line),
            "{event}"
        );
        assert_fields(&want, &got.to_value(), event);
        let tool_keys = |v: &Value, text: &str| {
            let start = text.find("\"tool_input\"").unwrap_or(0);
            v.get("tool_input").map(|t| ordered_keys(t, &text[start..]))
        };
        assert_eq!(
            tool_keys(&got.to_value(), &got_line),
            tool_keys(&want, line),
            "{event}.tool_input"
        );
    }
    s.begin("x");
    assert!(
        s.rollout_path.exists(),
        "the rollout exists once the thread started"
    );
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn exec_json_events_have_the_fixture_shapes() {
    let home = temp("execjson");
    let mut sess = session(&home, false);
    let (turn, _) = drive(&mut sess, "Please RUN now");
    let mut ours = vec![thread_started(&sess.id), turn_started()];
    ours.extend(turn.events.iter().cloned());
    ours.push(turn_completed(sess.thread_usage));
    let ours: Vec<Value> = ours.iter().map(Obj::to_value).collect();
    let tag = |v: &Value| format!("{}/{}", v["type"], v["item"]["type"]);
    for want in data("exec-json-tool-turn.jsonl") {
        if want["item"]["type"] == "error" {
            continue; // the probe's model-metadata warning
        }
        let got = ours.iter().find(|v| tag(v) == tag(&want));
        let got = got.unwrap_or_else(|| panic!("no {} event in {ours:#?}", tag(&want)));
        assert_fields(&want, got, &tag(&want));
        assert_eq!(
            got.as_object().unwrap().keys().collect::<Vec<_>>(),
            want.as_object().unwrap().keys().collect::<Vec<_>>()
        );
    }
    let want_command = data("exec-json-tool-turn.jsonl")[3]["item"]["command"].clone();
    assert!(
        want_command
            .as_str()
            .unwrap()
            .starts_with("/bin/bash -lc \"")
    );
    let (turn, outcome) = drive(&mut sess, "Please BAD now");
    let Outcome::Done(Done {
        error: Some(message),
        ..
    }) = outcome
    else {
        panic!("expected a failed turn");
    };
    let mut failed: Vec<Value> = turn.events.iter().map(Obj::to_value).collect();
    failed.push(turn_failed(&message).to_value());
    let want = data("exec-json-api-error.jsonl");
    assert_eq!(failed, want[3..], "error and turn.failed, byte for byte");
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn the_same_scenario_gives_the_same_rollout_bytes() {
    let (a, b) = (temp("det-a"), temp("det-b"));
    let (sa, sb) = (run_all(&a), run_all(&b));
    assert_eq!(rollout(&sa), rollout(&sb));
    assert!(rollout(&sa).len() > 40);
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn late_transcript_holds_back_the_final_records() {
    let home = temp("late");
    let scenario =
        Scenario::parse(r#"{"turns":[{"reply":"Done.","late_transcript_ms":300}]}"#).unwrap();
    let mut sess = Session::for_test(&home, scenario, true);
    let (_, outcome) = drive(&mut sess, "go");
    let Outcome::Done(Done {
        hook: Some(hook),
        late: Some(late),
        ..
    }) = outcome
    else {
        panic!("expected Stop and late records");
    };
    assert_eq!(hook.event, "Stop");
    assert!(!rollout(&sess).iter().any(|l| l.contains("task_complete")));
    let kinds: Vec<String> = late.records.iter().map(|r| kind(&r.to_value())).collect();
    assert_eq!(
        kinds,
        [
            "event_msg/item_completed//AgentMessage/false/false",
            "response_item/message/assistant//false/false",
            "token_usage_record////false/false",
            "event_msg/token_count///false/false",
            "event_msg/task_complete///false/false"
        ]
    );
    sess.append(&late.records);
    assert!(rollout(&sess).last().unwrap().contains("\"task_complete\""));
    let _ = std::fs::remove_dir_all(&home);
}
