//! fake-claude without a TUI: command line, `-p`, hooks, transcripts, scenarios.

mod common;

use std::os::unix::process::ExitStatusExt;

use common::claude::Sandbox;
use common::{Sim, read_jsonl, run, run_with_stdin};
use serde_json::Value;

const SID: &str = "11111111-2222-4333-8444-555555555555";

fn recorded_version() -> String {
    common::data("claude-2.1.332-version.txt")
        .trim_end()
        .to_string()
}

#[test]
fn version_help_and_unknown_options_behave_like_the_real_cli() {
    let s = Sandbox::new("cli");
    assert_eq!(
        run(s.cmd().arg("--version")),
        (0, format!("{}\n", recorded_version()), String::new())
    );
    let (code, out, _) = run(s.cmd().arg("--help"));
    assert_eq!(code, 0);
    assert!(out.starts_with("Usage: claude [options] [command] [prompt]"));
    assert_eq!(
        run(s.cmd().arg("--x")),
        (1, String::new(), "error: unknown option '--x'\n".into())
    );
    let (code, _, err) = run(s.cmd().args(["-p", "--session-id", "nope", "hi"]));
    assert_eq!(
        (code, err.as_str()),
        (1, "Error: Invalid session ID. Must be a valid UUID.\n")
    );
}

#[test]
fn print_mode_answers_with_the_builtin_reply() {
    let s = Sandbox::new("text");
    assert_eq!(
        run(s.cmd().args(["-p", "Say hello\nsecond line"])),
        (0, "Response to: Say hello\n".into(), String::new())
    );
    let (code, out, _) = run(s.cmd().arg("-p").stdin(std::process::Stdio::null()));
    assert_eq!((code, out.as_str()), (1, ""));
}

#[test]
fn print_mode_reads_the_prompt_from_stdin() {
    let s = Sandbox::new("stdin");
    let (_, out, _) = run_with_stdin(s.cmd().arg("-p"), b"from stdin");
    assert_eq!(out, "Response to: from stdin\n");
}

#[test]
fn json_output_has_the_result_shape() {
    let s = Sandbox::new("json");
    let (code, out, _) =
        run(s
            .cmd()
            .args(["-p", "hi", "--output-format", "json", "--session-id", SID]));
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["type"], "result");
    assert_eq!(v["subtype"], "success");
    assert_eq!(v["is_error"], false);
    assert_eq!(v["result"], "Response to: hi");
    assert_eq!(v["session_id"], SID);
    assert_eq!(v["terminal_reason"], "completed");
}

#[test]
fn an_api_error_gives_the_error_shape_exit_1_and_stop_failure() {
    let s = Sandbox::new("apierr");
    let scenario = r#"{"turns":[{"end":{"api_error":{"status":400,"message":"bad request"}}}]}"#;
    let settings = s.settings(&["Stop", "StopFailure"]);
    let (code, v) = print_json(&s, scenario, &settings);
    assert_eq!(code, 1);
    assert_eq!(
        (v["is_error"].as_bool(), v["api_error_status"].as_u64()),
        (Some(true), Some(400))
    );
    assert_eq!(v["result"], "API Error: 400 bad request");
    assert_eq!(s.events(), ["StopFailure"]);
    assert_eq!(
        s.payloads()[0]["last_assistant_message"],
        "API Error: 400 bad request"
    );
    let records = read_jsonl(&s.transcript());
    assert!(
        records
            .iter()
            .any(|r| r["isApiErrorMessage"] == true && r["message"]["model"] == "<synthetic>")
    );
    assert!(!records.iter().any(|r| r["subtype"] == "turn_duration"));
}

#[test]
fn hooks_fire_in_order_with_the_claude_environment() {
    let s = Sandbox::new("hooks");
    let settings = s.settings(&[
        "SessionStart",
        "UserPromptSubmit",
        "Stop",
        "SessionEnd",
        "PreToolUse",
    ]);
    let file = s.root.join("settings.json");
    std::fs::write(&file, &settings).unwrap();
    let (code, _, _) = run(s.cmd().args([
        "-p",
        "Say hello",
        "--settings",
        file.to_str().unwrap(),
        "--session-id",
        SID,
    ]));
    assert_eq!(code, 0);
    let p = s.one_turn_payloads();
    assert_eq!(p[0]["source"], "startup");
    assert_eq!(p[1]["prompt"], "Say hello");
    assert_eq!(p[2]["last_assistant_message"], "Response to: Say hello");
    assert_eq!(p[1]["prompt_id"], p[2]["prompt_id"]);
    assert_eq!(p[3]["reason"], "other");
    let proj = s.proj.to_str().unwrap();
    assert_eq!(p[0]["cwd"], proj);
    assert_eq!(p[0]["transcript_path"], s.transcript().to_str().unwrap());
    let env = std::fs::read_to_string(s.root.join("hook-env.txt")).unwrap();
    for want in [
        format!("CLAUDE_PROJECT_DIR={proj}"),
        "CLAUDECODE=1".into(),
        "CLAUDE_CODE_ENTRYPOINT=sdk-cli".into(),
        format!("CLAUDE_CODE_SESSION_ID={SID}"),
    ] {
        assert!(env.lines().any(|l| l == want), "{want} not in\n{env}");
    }
}

#[test]
fn user_settings_json_and_permission_mode_from_settings_apply() {
    let s = Sandbox::new("usersettings");
    let mut settings: Value = serde_json::from_str(&s.settings(&["UserPromptSubmit"])).unwrap();
    settings["permissions"] = serde_json::json!({"defaultMode": "plan"});
    std::fs::write(s.home.join("settings.json"), settings.to_string()).unwrap();
    run(s.cmd().args(["-p", "x"]));
    assert_eq!(s.events(), ["UserPromptSubmit"]);
    assert_eq!(s.payloads()[0]["permission_mode"], "plan");
    run(s.cmd().args(["-p", "y", "--permission-mode", "manual"]));
    assert_eq!(s.payloads()[1]["permission_mode"], "default");
}

#[test]
fn scenario_errors_name_the_field() {
    let s = Sandbox::new("scenario");
    let (code, _, err) = run(s
        .cmd()
        .env("UMBEL_SIM_SCENARIO", r#"{"turns":[{"replly":"x"}]}"#)
        .args(["-p", "x"]));
    assert_eq!(code, 1);
    assert!(
        err.starts_with("fake-claude: UMBEL_SIM_SCENARIO")
            && err.contains("unknown field `replly`"),
        "{err}"
    );
    let file = s.root.join("scenario.json");
    std::fs::write(&file, r#"{"default":{"reply":"from file"}}"#).unwrap();
    let (_, out, _) = run(s.cmd().env("UMBEL_SIM_SCENARIO", &file).args(["-p", "x"]));
    assert_eq!(out, "from file\n");
}

#[test]
fn the_same_scenario_writes_the_same_transcript_bytes() {
    let (a, b) = (Sandbox::new("det-a"), Sandbox::new("det-b"));
    let scenario = r#"{"seed":42,"turns":[{"reply":"one two three","delay_ms":20,"chunk_ms":5}]}"#;
    for s in [&a, &b] {
        let mut c = s.cmd();
        c.env("UMBEL_SIM_SCENARIO", scenario)
            .current_dir(&a.proj)
            .args(["-p", "Say hello", "--session-id", SID]);
        assert_eq!(run(&mut c).0, 0);
    }
    let (ta, tb) = (
        std::fs::read(a.transcript()).unwrap(),
        std::fs::read(b.transcript()).unwrap(),
    );
    assert!(!ta.is_empty());
    assert_eq!(String::from_utf8_lossy(&ta), String::from_utf8_lossy(&tb));
}

#[test]
fn sessions_sharing_a_config_dir_get_distinct_ids() {
    let s = Sandbox::new("ids");
    let id = |s: &Sandbox| {
        let (_, out, _) = run(s.cmd().args(["-p", "x", "--output-format", "json"]));
        serde_json::from_str::<Value>(&out).unwrap()["session_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (a, b) = (id(&s), id(&s));
    assert_ne!(a, b);
}

#[test]
fn a_late_transcript_lands_after_the_stop_hook() {
    for (late, finished_at_stop) in [(Some(300), false), (None, true)] {
        let s = Sandbox::new("late");
        let path = s
            .home
            .join("projects")
            .join(common_encoded(&s))
            .join(format!("{SID}.jsonl"));
        let snap = s.root.join("at-stop.jsonl");
        let hook = format!("cp '{}' '{}'", path.display(), snap.display());
        let settings =
            serde_json::json!({"hooks":{"Stop":[{"hooks":[{"type":"command","command":hook}]}]}})
                .to_string();
        let scenario = match late {
            Some(ms) => format!(r#"{{"turns":[{{"reply":"done","late_transcript_ms":{ms}}}]}}"#),
            None => "{}".into(),
        };
        let start = std::time::Instant::now();
        let (code, _, _) = run(s.cmd().env("UMBEL_SIM_SCENARIO", scenario).args([
            "-p",
            "x",
            "--session-id",
            SID,
            "--settings",
            &settings,
        ]));
        assert_eq!(code, 0);
        let at_stop = read_jsonl(&snap);
        assert_eq!(
            at_stop.iter().any(|r| r["subtype"] == "turn_duration"),
            finished_at_stop
        );
        assert_eq!(
            at_stop.iter().any(|r| r["type"] == "assistant"),
            finished_at_stop
        );
        let all = read_jsonl(&path);
        assert!(all.iter().any(|r| r["subtype"] == "turn_duration"));
        assert!(all.iter().any(|r| r["subtype"] == "stop_hook_summary"));
        if late.is_some() {
            assert!(start.elapsed() >= std::time::Duration::from_millis(300));
        }
    }
}

fn common_encoded(s: &Sandbox) -> String {
    s.proj
        .to_str()
        .unwrap()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

#[test]
fn crash_and_signal_ends_stop_the_process_without_stop() {
    let s = Sandbox::new("crash");
    let settings = s.settings(&["Stop", "UserPromptSubmit"]);
    let (code, _, err) = run(s
        .cmd()
        .env("UMBEL_SIM_SCENARIO", r#"{"turns":[{"end":{"crash":7}}]}"#)
        .args(["-p", "x", "--settings", &settings]));
    assert_eq!(code, 7);
    assert!(err.contains("fake-claude: simulated crash"), "{err}");
    let out = s
        .cmd()
        .env(
            "UMBEL_SIM_SCENARIO",
            r#"{"turns":[{"end":{"signal":"KILL"}}]}"#,
        )
        .args(["-p", "x", "--settings", &settings])
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9));
    let out = s
        .cmd()
        .env(
            "UMBEL_SIM_SCENARIO",
            r#"{"turns":[{"end":{"signal":"SIGTERM"}}]}"#,
        )
        .args(["-p", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(15));
    assert_eq!(s.events(), ["UserPromptSubmit", "UserPromptSubmit"]);
}

#[test]
fn prompts_are_recorded_byte_exact() {
    let s = Sandbox::new("record");
    let rec = s.root.join("rec");
    let prompt = "tab\there\r\nünï 🙂 'quotes' \"dq\" ;";
    run(s
        .cmd()
        .env("UMBEL_SIM_RECORD_DIR", &rec)
        .args(["-p", prompt]));
    assert_eq!(
        std::fs::read(rec.join("prompt-1.txt")).unwrap(),
        prompt.as_bytes()
    );
    let user = read_jsonl(&s.transcript())
        .into_iter()
        .find(|r| r["type"] == "user")
        .unwrap();
    assert_eq!(user["message"]["content"], prompt);
}

#[test]
fn print_mode_denies_tools_that_need_permission() {
    let s = Sandbox::new("deny");
    let scenario = r#"{"turns":[{"reply":"Could not run it.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi"}}}}]}"#;
    let settings = s.settings(&["PreToolUse", "PermissionRequest", "PostToolUse", "Stop"]);
    let (code, v) = print_json(&s, scenario, &settings);
    assert_eq!(code, 0);
    assert_eq!(v["permission_denials"][0]["tool_name"], "Bash");
    assert_eq!(v["result"], "Could not run it.");
    assert_eq!(s.events(), ["PreToolUse", "PermissionRequest", "Stop"]);
}

/// `-p x --output-format json` playing `scenario` with `settings`: the status and the JSON.
fn print_json(s: &Sandbox, scenario: &str, settings: &str) -> (i32, Value) {
    let args = ["-p", "x", "--output-format", "json", "--settings", settings];
    let (code, out, _) = run(s.cmd().env("UMBEL_SIM_SCENARIO", scenario).args(args));
    (code, serde_json::from_str(&out).unwrap())
}
