//! Hook payloads, transcript records and print-mode JSON against the real
//! 2.1.332 samples: every field name of the fixture record of a kind appears
//! in ours, with the same nesting. Plus determinism of the records.

use serde_json::{Value, json};

use super::print::{Summary, result_json};
use super::session::Session;
use super::transcript::{text_block, tool_use_block};
use crate::fixtures::{self, assert_fields};
use crate::json::Obj;
use crate::scenario::Scenario;

fn data(name: &str) -> String {
    fixtures::text(&format!("claude-2.1.332-{name}"))
}

fn payload_fixture(event: &str) -> Value {
    data("hook-payloads.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["event"] == event)
        .map(|v| v["stdin"].clone())
        .unwrap_or_else(|| panic!("no {event} payload in the fixture"))
}

fn transcript_fixture(pred: impl Fn(&Value) -> bool) -> Value {
    data("transcript-session1.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| pred(v))
        .unwrap()
}

fn session() -> Session {
    let dir = std::env::temp_dir().join(format!("sim-fixture-tests-{}", std::process::id()));
    Session::for_test(
        &dir,
        "c7cb230e-4705-4afe-b65b-39c2c90e5124",
        Scenario::default(),
        true,
    )
}

fn check(want: Value, got: &Obj, what: &str) {
    assert_fields(&want, &got.to_value(), what);
}

#[test]
fn a_write_into_the_folder_suggests_adding_the_folder() {
    // The approval recordings' PermissionRequest (rec-out claude-*.md) for that command.
    let s = session();
    let write = json!({"command": "echo hi > umbel-tool.txt", "description": "Write hi"});
    let got = s.payload_permission_request("p", "Bash", &write).to_value();
    let want =
        json!([{ "type": "addDirectories", "directories": [s.cwd], "destination": "session" }]);
    assert_eq!(got["permission_suggestions"], want);
    let elsewhere = json!({"command": "echo hi > /tmp/x.txt"});
    let got = s
        .payload_permission_request("p", "Bash", &elsewhere)
        .to_value();
    assert_eq!(got["permission_suggestions"][0]["type"], "addRules");
}

#[test]
fn hook_payloads_have_every_fixture_field() {
    let mut s = session();
    s.last_prompt_id = Some("p".into());
    let input = json!({"command": "echo hi", "description": "Print a greeting"});
    check(
        payload_fixture("SessionStart"),
        &s.payload_session_start("startup"),
        "SessionStart",
    );
    check(
        payload_fixture("UserPromptSubmit"),
        &s.payload_user_prompt_submit("p", "Say hello"),
        "UserPromptSubmit",
    );
    check(
        payload_fixture("Stop"),
        &s.payload_stop("p", "done"),
        "Stop",
    );
    check(
        payload_fixture("StopFailure"),
        &s.payload_stop_failure("p", "API Error: 400 x"),
        "StopFailure",
    );
    check(
        payload_fixture("PreToolUse"),
        &s.payload_pre_tool_use("p", "Bash", &input, "toolu_1"),
        "PreToolUse",
    );
    check(
        payload_fixture("PermissionRequest"),
        &s.payload_permission_request("p", "Bash", &input),
        "PermissionRequest",
    );
    check(
        payload_fixture("PostToolUse"),
        &s.payload_post_tool_use("p", "Bash", &input, "hi", "toolu_1"),
        "PostToolUse",
    );
    check(
        payload_fixture("PostToolBatch"),
        &s.payload_post_tool_batch("p", "Bash", &input, "hi", "toolu_1"),
        "PostToolBatch",
    );
    check(
        payload_fixture("Notification"),
        &s.payload_notification("p", "Claude needs your permission", "permission_prompt"),
        "Notification",
    );
    check(
        payload_fixture("MessageDisplay"),
        &s.payload_message_display("p", "t", "m", "Hello"),
        "MessageDisplay",
    );
    check(
        payload_fixture("SessionEnd"),
        &s.payload_session_end("prompt_input_exit"),
        "SessionEnd",
    );
}

#[test]
fn payload_values_follow_the_contract() {
    let s = session();
    let stop = s.payload_stop("p", "done").to_value();
    assert_eq!(stop["effort"], json!({"level": "medium"}));
    assert_eq!(stop["stop_hook_active"], false);
    assert_eq!(stop["permission_mode"], "default");
    assert_eq!(stop["background_tasks"], json!([]));
    let failure = s
        .payload_stop_failure("p", "API Error: 400 bad request")
        .to_value();
    assert_eq!(
        (
            failure["error"].as_str(),
            failure["last_assistant_message"].as_str()
        ),
        (Some("unknown"), Some("API Error: 400 bad request"))
    );
    let start = s.payload_session_start("startup").to_value();
    assert_eq!(start["model"], "claude-opus-5-5");
    assert!(
        start["transcript_path"]
            .as_str()
            .unwrap()
            .ends_with("/projects/-tmp-probework-proj/c7cb230e-4705-4afe-b65b-39c2c90e5124.jsonl")
    );
    assert!(
        s.payload_session_start("clear")
            .to_value()
            .get("model")
            .is_none()
    );
}

#[test]
fn transcript_records_have_every_fixture_field() {
    let mut s = session();
    let kind = |t: &'static str| move |v: &Value| v["type"] == t;
    let subtype = |st: &'static str| move |v: &Value| v["subtype"] == st;
    for (want, got) in s.rec_header().into_iter().zip(["mode", "permission-mode"]) {
        check(transcript_fixture(kind(got)), &want, got);
    }
    check(
        transcript_fixture(kind("file-history-snapshot")),
        &s.rec_file_history("u"),
        "file-history-snapshot",
    );
    let user = s.rec_user_prompt("p", "u1".into(), "Say hello");
    check(
        transcript_fixture(|v| v["type"] == "user" && v["message"]["content"].is_string()),
        &user,
        "user",
    );
    let atts = s.rec_attachments();
    check(
        transcript_fixture(|v| v["attachment"]["type"] == "date"),
        &atts[1],
        "attachment/date",
    );
    check(
        transcript_fixture(|v| v["attachment"]["type"] == "environment"),
        &atts[0],
        "attachment/environment",
    );
    let text = s.rec_assistant("msg_1", text_block("hi"), Some("end_turn"), 0);
    let fixture_text = |v: &Value| {
        v["type"] == "assistant"
            && v["message"]["content"][0]["type"] == "text"
            && v["message"]["model"] != "<synthetic>"
    };
    let mut want = transcript_fixture(fixture_text);
    want.as_object_mut()
        .unwrap()
        .remove("serverClassifierRequest"); // first turn only, auto mode
    check(want, &text, "assistant/text");
    let tool = s.rec_assistant(
        "msg_1",
        tool_use_block(
            "toolu_1",
            "Bash",
            &json!({"command":"echo hi","description":"Print a greeting"}),
        ),
        Some("tool_use"),
        1,
    );
    let mut want = transcript_fixture(|v| v["message"]["content"][0]["type"] == "tool_use");
    want.as_object_mut().unwrap().remove("slug");
    want.as_object_mut().unwrap().remove("toolInputStreamMs");
    check(want, &tool, "assistant/tool_use");
    let mut want = transcript_fixture(|v| v["message"]["content"][0]["type"] == "tool_result");
    want.as_object_mut().unwrap().remove("slug");
    check(
        want,
        &s.rec_tool_result("p", "toolu_1", "hi", None, "u"),
        "user/tool_result",
    );
    check(
        transcript_fixture(subtype("stop_hook_summary")),
        &s.rec_stop_hook_summary(&["hook.sh".into()]),
        "stop_hook_summary",
    );
    check(
        transcript_fixture(subtype("turn_duration")),
        &s.rec_turn_duration(5),
        "turn_duration",
    );
    let mut want = transcript_fixture(|v| v["isApiErrorMessage"] == true);
    want.as_object_mut().unwrap().remove("slug");
    check(
        want,
        &s.rec_api_error(400, "API Error: 400 bad request"),
        "assistant/api_error",
    );
    check(
        transcript_fixture(kind("last-prompt")),
        &s.rec_noise("Say hello")[0],
        "last-prompt",
    );
}

#[test]
fn api_error_records_carry_the_markers_umbel_reads() {
    let mut s = session();
    let v = s.rec_api_error(429, "API Error: 429 slow down").to_value();
    assert_eq!(v["message"]["model"], "<synthetic>");
    assert_eq!(v["isApiErrorMessage"], true);
    assert_eq!(v["apiErrorStatus"], 429);
    assert_eq!(v["apiErrorType"], "rate_limit_error");
}

#[test]
fn records_chain_parent_uuids_and_count_messages() {
    let mut s = session();
    let a = s.rec_user_prompt("p", "u1".into(), "x").to_value();
    let b = s
        .rec_assistant("m", text_block("y"), Some("end_turn"), 0)
        .to_value();
    let c = s.rec_turn_duration(1).to_value();
    assert_eq!(a["parentUuid"], Value::Null);
    assert_eq!(b["parentUuid"], a["uuid"]);
    assert_eq!(c["parentUuid"], b["uuid"]);
    assert_eq!(c["messageCount"], 3);
}

#[test]
fn print_json_has_every_fixture_field() {
    let mut s = session();
    let ok = result_json(
        &mut s,
        &Summary {
            text: "Hello",
            api_error: None,
            elapsed_ms: 5,
            turns: 1,
            denials: &[],
        },
    );
    let want: Value = serde_json::from_str(&data("print-json-success.json")).unwrap();
    check(want, &ok, "print json success");
    let err = result_json(
        &mut s,
        &Summary {
            text: "API Error: 400 x",
            api_error: Some(400),
            elapsed_ms: 5,
            turns: 1,
            denials: &[],
        },
    );
    let want: Value = serde_json::from_str(&data("print-json-api-error.json")).unwrap();
    check(want, &err, "print json api error");
    let v = err.to_value();
    assert_eq!(
        (v["is_error"].as_bool(), v["terminal_reason"].as_str()),
        (Some(true), Some("api_error"))
    );
}

fn one_turn_lines() -> String {
    let mut s = session();
    let mut recs = s.rec_header();
    let uuid = s.ids.uuid();
    recs.push(s.rec_file_history(&uuid));
    recs.push(s.rec_user_prompt("p", uuid, "Say hello"));
    recs.extend(s.rec_attachments());
    recs.push(s.rec_assistant("m", text_block("Hello"), Some("end_turn"), 0));
    recs.push(s.rec_turn_duration(3));
    recs.extend(s.rec_noise("Say hello"));
    recs.iter().map(|r| r.to_line() + "\n").collect()
}

#[test]
fn the_same_inputs_give_the_same_transcript_bytes() {
    assert_eq!(one_turn_lines(), one_turn_lines());
    assert!(one_turn_lines().contains("\"timestamp\":\"2026-12-02T19:52:00.001Z\""));
}
