//! fake-qwen against the real qwen 0.24.4's recordings (`tests/data/qwen-0.24.4-*`, copies of
//! the workspace's `tests/data/qwen/`): its hooks fire in qwen's order with qwen's payload
//! fields, and its chat record has qwen's record types and fields.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Every hook event qwen 0.24.4 fires.
const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Notification",
    "Stop",
    "StopFailure",
    "SessionEnd",
];

/// Payload fields of the real qwen that the fake leaves out: its internal prompt ids, ids of
/// background work and context accounting (umbel reads none of them).
const NOT_PLAYED: &[&str] = &[
    "prompt_id",
    "background_tasks",
    "crons",
    "context_usage",
    "context_limit",
    "input_tokens",
    "tool_use_id",
    "tool_call_id",
];

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn recorded(name: &str) -> Vec<Value> {
    jsonl(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// Runs `fake-qwen --yolo -p PROMPT` with logging hooks for every event in a fresh home; returns
/// the hook payloads in order and the chat records.
fn run(scenario: Value, prompt: &str) -> (Vec<Value>, Vec<Value>) {
    let root = tempfile::tempdir().unwrap();
    let (home, proj) = (root.path().join("home"), root.path().join("proj"));
    std::fs::create_dir_all(home.join(".qwen")).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    let log = root.path().join("hooks.jsonl");
    let hook = root.path().join("hook.sh");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\n{{ cat; echo; }} >> '{}'\n", log.display()),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&hook).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&hook, perms).unwrap();
    let entry = json!([{ "hooks": [{ "type": "command", "command": hook }] }]);
    let hooks: serde_json::Map<String, Value> = EVENTS
        .iter()
        .map(|e| (e.to_string(), entry.clone()))
        .collect();
    std::fs::write(
        home.join(".qwen/settings.json"),
        json!({ "hooks": hooks }).to_string(),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fake-qwen"))
        .args(["--yolo", "-p", prompt])
        .current_dir(&proj)
        .env_clear()
        .env("HOME", &home)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("OPENAI_API_KEY", "fake")
        .env("UMBEL_SIM_SCENARIO", scenario.to_string())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let chats = home.join(".qwen/projects");
    let chat = walk(&chats)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"));
    let chat = chat.unwrap_or_else(|| panic!("no chat record: {out:?}"));
    let project: String = proj
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    assert_eq!(
        chat.parent().unwrap().parent().unwrap(),
        chats.join(project)
    );
    (jsonl(&log), jsonl(&chat))
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// The recorded fields of each (event, notification type) the fake fires, less [`NOT_PLAYED`],
/// are in the fake's payload.
fn assert_payloads_like_the_real_ones(fired: &[Value]) {
    let real: Vec<Value> = recorded("qwen-0.24.4-hook-payloads.jsonl")
        .into_iter()
        .map(|r| r["stdin"].clone())
        .collect();
    for payload in fired {
        // An empty `UserPromptSubmit` (the request after a tool's result) has no
        // `submitted_prompt`: its own twin.
        let kind = |p: &Value| {
            let next_request = p["prompt"] == "";
            (
                p["hook_event_name"].clone(),
                p["notification_type"].clone(),
                next_request,
            )
        };
        let twin = real.iter().find(|r| kind(r) == kind(payload));
        let twin = twin.unwrap_or_else(|| panic!("qwen fires no {:?}", kind(payload)));
        let missing: Vec<String> = keys(twin)
            .difference(&keys(payload))
            .filter(|k| !NOT_PLAYED.contains(&k.as_str()))
            .cloned()
            .collect();
        assert!(
            missing.is_empty(),
            "{:?} lacks {missing:?}: {payload}",
            kind(payload)
        );
    }
}

#[test]
fn a_tool_turn_fires_qwens_hooks_and_writes_qwens_records() {
    let tool =
        json!({ "tool": "Bash", "input": { "command": "echo hi", "description": "say hi" } });
    let scenario =
        json!({ "turns": [{ "reply": "It printed hi.", "end": { "permission": tool } }] });
    let (fired, chat) = run(scenario, "run the tool please");
    let events: Vec<&str> = fired
        .iter()
        .map(|p| p["hook_event_name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        events,
        [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "Stop",
            "Notification",
            "SessionEnd"
        ]
    );
    assert_eq!(fired[1]["submitted_prompt"], "run the tool please");
    assert_eq!(fired[4]["prompt"], "");
    assert_eq!(fired[5]["last_assistant_message"], "It printed hi.");
    assert_payloads_like_the_real_ones(&fired);

    let types: Vec<&str> = chat
        .iter()
        .map(|r| r["type"].as_str().unwrap_or(""))
        .collect();
    // Each response after its `qwen-code.api_response` telemetry, naming the turn's
    // `prompt_id` as its hooks do.
    assert_eq!(
        types,
        [
            "user",
            "system",
            "assistant",
            "tool_result",
            "system",
            "assistant"
        ]
    );
    let event = |r: &Value| r.pointer("/systemPayload/uiEvent/event.name").cloned();
    for told in [&chat[1], &chat[4]] {
        assert_eq!(event(told), Some("qwen-code.api_response".into()));
        let id = &told["systemPayload"]["uiEvent"]["prompt_id"];
        assert_eq!(id, &fired[1]["prompt_id"], "{told}");
        assert!(
            id.as_str().is_some_and(|id| id.ends_with("########0")),
            "{id}"
        );
    }
    let real = recorded("qwen-0.24.4-chat-session.jsonl");
    for record in &chat {
        let twin = real
            .iter()
            .find(|r| r["type"] == record["type"] && event(r) == event(record))
            .unwrap();
        let (theirs, ours) = (keys(twin), keys(record));
        let missing: Vec<&String> = theirs.difference(&ours).collect();
        assert!(missing.is_empty(), "{} lacks {missing:?}", record["type"]);
    }
    assert_eq!(chat[0]["provenance"], "real_user");
    assert_eq!(chat[2]["parentUuid"], chat[1]["uuid"]);
    assert_eq!(
        chat[2]["message"]["parts"][0]["functionCall"]["name"],
        "run_shell_command"
    );
    assert_eq!(chat[3]["toolCallResult"]["status"], "success");
    assert_eq!(chat[5]["message"]["parts"][0]["text"], "It printed hi.");
}

#[test]
fn an_api_error_is_stop_failure_and_an_api_error_record() {
    let scenario = json!({ "turns": [{ "end": { "api_error": { "status": 400, "message": "nope bad request" } } }] });
    let (fired, chat) = run(scenario, "a bad one");
    let failure = fired
        .iter()
        .find(|p| p["hook_event_name"] == "StopFailure")
        .expect("StopFailure");
    assert_eq!(failure["error"], "invalid_request");
    assert_eq!(failure["error_details"], "400 nope bad request");
    assert_eq!(
        failure["last_assistant_message"],
        "[API Error: 400 nope bad request]"
    );
    assert!(!fired.iter().any(|p| p["hook_event_name"] == "Stop"));
    assert_payloads_like_the_real_ones(&fired);
    let event = &chat.last().unwrap()["systemPayload"]["uiEvent"];
    assert_eq!(event["event.name"], "qwen-code.api_error");
    assert_eq!(event["error_message"], "400 nope bad request");
}
