//! fake-gemini without a TUI: command line, headless `-p`, trust and auth
//! gates, hooks, the chat file and the json/stream-json outputs.

mod common;

use common::gemini::{Sandbox, ready};
use common::{Sim, read_jsonl, run, run_with_stdin};
use serde_json::Value;

const SID: &str = "11111111-2222-4333-8444-555555555555";

fn data(name: &str) -> String {
    common::data(&format!("gemini-0.61.0-{name}"))
}

#[test]
fn version_help_and_usage_errors() {
    let s = Sandbox::new("cli");
    assert_eq!(
        run(s.cmd().arg("--version")),
        (0, data("version.txt"), String::new())
    );
    let (code, out, _) = run(s.cmd().arg("-h"));
    assert_eq!((code, out.as_str()), (0, data("help.txt").as_str()));
    assert_eq!(
        run(s.cmd().arg("--x")),
        (1, String::new(), "Unknown argument: x\n".into())
    );
    let (code, _, err) = run(s.cmd().args(["--approval-mode", "never"]));
    assert_eq!(code, 1);
    assert!(err.starts_with("Invalid values:\n  Argument: approval-mode, Given: \"never\""));
    let (code, _, err) = run(s.cmd().args(["--session-id", "nope", "-p", "x"]));
    assert_eq!(code, 1);
    assert!(err.contains("valid UUID"), "{err}");
}

#[test]
fn headless_text_answers_fires_hooks_and_writes_the_chat() {
    let s = ready(
        "text",
        &["SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd"],
    );
    let (code, out, err) = run(s
        .cmd()
        .args(["-p", "Say hello\nsecond line", "--session-id", SID]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "Response to: Say hello\n", "")
    );
    assert_eq!(
        s.events(),
        ["SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd"]
    );
    let p = s.payloads();
    let chat = s.chat();
    assert_eq!(p[0]["transcript_path"], chat.to_str().unwrap());
    assert_eq!(p[0]["session_id"], SID);
    assert_eq!(p[0]["cwd"], s.proj.to_str().unwrap());
    assert_eq!(p[1]["prompt"], "Say hello\nsecond line");
    assert_eq!(p[2]["prompt_response"], "Response to: Say hello");
    assert_eq!(p[2]["stop_hook_active"], false);
    assert_eq!(p[3]["reason"], "exit");
    assert!(
        chat.ends_with("tmp/proj/chats/session-2026-12-02T19-52-11111111.jsonl"),
        "{chat:?}"
    );
    let lines = read_jsonl(&chat);
    assert_eq!(lines[0]["sessionId"], SID);
    assert_eq!(lines[0]["kind"], "main");
    let records = s.chat_records();
    assert_eq!(records[0]["content"][0]["text"], "Say hello\nsecond line");
    assert_eq!(records[1]["content"], "Response to: Say hello");
    let projects: Value =
        serde_json::from_str(&std::fs::read_to_string(s.dir().join("projects.json")).unwrap())
            .unwrap();
    assert_eq!(projects["projects"][s.proj.to_str().unwrap()], "proj");
    let env = std::fs::read_to_string(s.root.join("hook-env.txt")).unwrap();
    assert!(env.contains(&format!("GEMINI_SESSION_ID={SID}")));
    assert!(env.contains("GEMINI_CLI_NO_RELAUNCH=true"));
    assert!(env.contains(&format!("GEMINI_PROJECT_DIR={}", s.proj.display())));
}

#[test]
fn untrusted_folders_and_missing_auth_stop_headless_runs() {
    let s = Sandbox::new("gates").settings(true, &[]);
    let (code, out, err) = run(s.cmd().args(["-p", "x", "-y"]));
    assert_eq!((code, out.as_str()), (55, ""));
    assert!(err.starts_with(
        "Approval mode overridden to \"default\" because the current folder is not trusted.\n"
    ));
    assert!(err.contains(
        "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`"
    ));
    assert_eq!(run(s.cmd().args(["-p", "x", "--skip-trust"])).0, 0);
    assert_eq!(
        run(s
            .cmd()
            .args(["-p", "x"])
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true"))
        .0,
        0
    );

    let s = Sandbox::new("noauth").settings(false, &[]).trusted();
    let (code, _, err) = run(s.cmd().args(["-p", "x"]));
    assert_eq!(
        (code, err.as_str()),
        (41, "Invalid auth method selected.\n")
    );
    assert_eq!(
        run(s.cmd().args(["-p", "x"]).env("GEMINI_API_KEY", "k")).0,
        0
    );
    let (code, _, _) = run(s
        .cmd()
        .args(["-p", "x"])
        .env("GEMINI_API_KEY", "k")
        .env("UMBEL_SIM_SCENARIO", r#"{"startup":{"sign_in":true}}"#));
    assert_eq!(code, 41);
}

#[test]
fn the_prompt_is_appended_to_piped_stdin() {
    let s = ready("stdin", &["BeforeAgent"]);
    let (code, _, _) = run_with_stdin(s.cmd().args(["-p", "the question"]), b"piped context");
    assert_eq!(code, 0);
    assert_eq!(s.payloads()[0]["prompt"], "piped context\n\nthe question");
    let (code, _, err) = run(s.cmd().args(["-p", ""]));
    assert_eq!(code, 42);
    assert!(err.starts_with("No input provided via stdin."));
}

#[test]
fn json_output_has_the_recorded_shape() {
    let s = ready("json", &[]);
    let (code, out, _) = run(s
        .cmd()
        .args(["-p", "Say hello", "-o", "json", "--session-id", SID]));
    assert_eq!(code, 0);
    assert!(
        out.starts_with("{\n  \"session_id\": \""),
        "pretty-printed: {out}"
    );
    let got: Value = serde_json::from_str(&out).unwrap();
    let want: Value = serde_json::from_str(&data("print-json-success.json")).unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&got), keys(&want));
    assert_eq!(keys(&got["stats"]), keys(&want["stats"]));
    assert_eq!(got["session_id"], SID);
    assert_eq!(got["response"], "Response to: Say hello");
    let model = &got["stats"]["models"]["gemini-3.8-flash"];
    assert_eq!(keys(model), keys(&want["stats"]["models"]["gemini-fake"]));
    assert_eq!(
        keys(&model["roles"]["main"]),
        keys(&want["stats"]["models"]["gemini-fake"]["roles"]["main"])
    );
}

#[test]
fn stream_json_in_yolo_mode_runs_the_tool_and_fires_tool_hooks() {
    let s = ready(
        "stream",
        &["BeforeTool", "AfterTool", "Notification", "AfterAgent"],
    );
    let scenario = r#"{"turns":[{"reply":"Done.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi","description":"Print a greeting"}}}}]}"#;
    let (code, out, _) = run(s
        .cmd()
        .args(["-p", "Run it", "-o", "stream-json", "--yolo"])
        .env("UMBEL_SIM_SCENARIO", scenario));
    assert_eq!(code, 0);
    let events: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let want: Vec<Value> = data("print-stream-json-tool-turn.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types = |v: &[Value]| {
        v.iter()
            .map(|e| e["type"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(types(&events), types(&want));
    assert_eq!(events[2]["tool_name"], "run_shell_command");
    assert_eq!(events[3]["output"], "hi");
    assert_eq!(events[4]["content"], "Done.");
    assert_eq!(events[5]["stats"]["tool_calls"], 1);
    assert_eq!(
        s.events(),
        ["BeforeTool", "AfterTool", "AfterAgent"],
        "no confirmation in yolo mode"
    );
    let (code, out, _) = run(s
        .cmd()
        .args(["-p", "Run it", "-o", "stream-json"])
        .env("UMBEL_SIM_SCENARIO", scenario));
    assert_eq!(code, 0);
    assert!(
        !out.contains("tool_use"),
        "without yolo, headless mode offers no tools: {out}"
    );
}

#[test]
fn an_api_error_prints_the_error_object_on_stderr() {
    let s = ready("apierr", &["AfterAgent", "SessionEnd"]);
    let scenario = r#"{"turns":[{"end":{"api_error":{"status":400,"message":"fake bad request for probing"}}}]}"#;
    let (code, out, err) = run(s
        .cmd()
        .args(["-p", "x", "-o", "json", "--session-id", SID])
        .env("UMBEL_SIM_SCENARIO", scenario));
    assert_eq!((code, out.as_str()), (144, ""));
    let start = err.find("{\n").unwrap();
    let got: Value = serde_json::from_str(&err[start..]).unwrap();
    let want: Value = serde_json::from_str(&data("print-json-api-error-stderr.json")).unwrap();
    assert_eq!(got["error"], want["error"]);
    assert_eq!(got["session_id"], SID);
    assert_eq!(s.payloads()[0]["prompt_response"], "[no response text]");
    assert_eq!(s.events(), ["AfterAgent", "SessionEnd"]);
    let types: Vec<String> = s
        .chat_records()
        .iter()
        .map(|r| r["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(types, ["user", "error", "info"]);
}

#[test]
fn crashes_and_identical_runs() {
    let s = ready("crash", &[]);
    let (code, _, err) = run(s
        .cmd()
        .args(["-p", "x"])
        .env("UMBEL_SIM_SCENARIO", r#"{"turns":[{"end":{"crash":3}}]}"#));
    assert_eq!(
        (code, err.as_str()),
        (3, "fake-gemini: simulated crash (exit status 3)\n")
    );
    let scenario = r#"{"seed":9,"turns":[{"reply":"a\nb","chunk_ms":1}]}"#;
    let bytes = || {
        let _ = std::fs::remove_dir_all(s.dir().join("tmp"));
        let out = run(s
            .cmd()
            .args(["-p", "x", "--session-id", SID])
            .env("UMBEL_SIM_SCENARIO", scenario));
        assert_eq!(out.0, 0);
        std::fs::read(s.chat()).unwrap()
    };
    assert_eq!(bytes(), bytes());
}
