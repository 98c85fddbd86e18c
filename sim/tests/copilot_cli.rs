//! fake-copilot's command line and `-p` against copilot 1.0.102's recordings
//! (`tests/data/copilot/1.0.102/`): `--version`, `--help`, the text output and its stats, an
//! API error, the JSON events, a piped prompt, no sign-in; the hooks of `-p`; a session that
//! goes on with `--resume`.

mod common;

use serde_json::{Value, json};

use common::copilot::Copilot;
use common::{Sim, run, run_with_stdin};

/// A file of the 1.0.102 recordings.
fn recorded(name: &str) -> String {
    let path = format!(
        "{}/../tests/data/copilot/1.0.102/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A recorded JSONL file of 1.0.102, without the `session.background_tasks_changed` noise
/// the fake leaves out.
fn recorded_events(name: &str) -> Vec<Value> {
    recorded(name)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] != "session.background_tasks_changed")
        .collect()
}

/// Every key of `want` is in `got`; objects recurse; arrays compare their first elements.
fn assert_fields(want: &Value, got: &Value, at: &str) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                let gv = g
                    .get(k)
                    .unwrap_or_else(|| panic!("{at}: no `{k}` in {got}"));
                assert_fields(wv, gv, &format!("{at}.{k}"));
            }
        }
        (Value::Array(w), Value::Array(g)) if w.first().is_some_and(Value::is_object) => {
            assert_fields(&w[0], &g[0], &format!("{at}[0]"));
        }
        _ => {}
    }
}

/// The recordings' scenario.
const SCENARIO: &str = r#"{"turns":[
    {"match":"Say hello","reply":"Hello there."},
    {"match":"run the tool","reply":"It printed hi.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi > out.txt","description":"Print hi"}}}},
    {"match":"broken","end":{"api_error":{"status":400,"message":"fake bad request"}}}]}"#;

/// The stats' `Resume` line and token counts made the same.
fn stats_of(text: &str) -> String {
    text.lines()
        .map(|l| match l {
            l if l.starts_with("Resume ") => "Resume     copilot --resume=<id>".to_string(),
            l if l.starts_with("Tokens ") => "Tokens     ↑ N • ↓ N".to_string(),
            l => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn version_and_help_are_the_recorded_ones() {
    let s = Copilot::new("version");
    let (code, out, _) = run(s.cmd().arg("--version"));
    assert_eq!((code, out), (0, recorded("version.txt")));
    let (code, out, _) = run(s.cmd().arg("--help"));
    assert_eq!((code, out), (0, recorded("help.txt")));
}

#[test]
fn text_prints_the_answer_and_the_stats_as_recorded() {
    let s = Copilot::new("text");
    let (code, out, err) = run(&mut s.scripted(SCENARIO, &["-p", "Say hello"]));
    assert_eq!(code, 0);
    assert_eq!(out, recorded("print-text-stdout.txt"));
    assert_eq!(stats_of(&err), stats_of(&recorded("print-text-stderr.txt")));
    let id = s.sessions().pop().unwrap();
    assert!(err.contains(&format!("copilot --resume={id}")), "{err}");
    let fired = s.fired(4);
    assert_eq!(
        fired,
        ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]
    );
    assert_eq!(s.hooks()[3].1["reason"], "complete");
    let argv: Value =
        serde_json::from_str(&std::fs::read_to_string(s.root.join("rec/argv.json")).unwrap())
            .unwrap();
    assert_eq!(argv, json!(["-p", "Say hello"]));
}

#[test]
fn an_api_error_exits_1_with_the_recorded_stderr() {
    let s = Copilot::new("error");
    let (code, out, err) = run(&mut s.scripted(SCENARIO, &["-p", "broken please"]));
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        stats_of(&err),
        stats_of(&recorded("print-text-error-stderr.txt"))
    );
    assert_eq!(
        s.fired(3),
        ["SessionStart", "UserPromptSubmit", "SessionEnd"]
    );
}

/// Runs `-p PROMPT --output-format json`; its exit status and printed events.
fn json_of(s: &Copilot, prompt: &str, extra: &[&str]) -> (i32, Vec<Value>) {
    let mut args = vec!["-p", prompt, "--output-format", "json"];
    args.extend(extra);
    let (code, out, err) = run(&mut s.scripted(SCENARIO, &args));
    assert_eq!(err, "", "json prints nothing on stderr");
    let events = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (code, events)
}

#[test]
fn json_prints_the_recorded_events_of_a_tool_turn_and_an_api_error() {
    let s = Copilot::new("json");
    for (prompt, name, code) in [
        ("run the tool", "print-json-tool.jsonl", 0),
        ("broken please", "print-json-error.jsonl", 1),
    ] {
        let (got_code, ours) = json_of(&s, prompt, &["--allow-all-tools"]);
        let theirs = recorded_events(name);
        let kinds = |l: &[Value]| l.iter().map(|e| e["type"].clone()).collect::<Vec<_>>();
        assert_eq!(kinds(&ours), kinds(&theirs), "{name}");
        for (i, (want, got)) in theirs.iter().zip(&ours).enumerate() {
            assert_fields(want, got, &format!("{name} line {i}"));
        }
        assert_eq!(got_code, code);
        assert_eq!(ours.last().unwrap()["exitCode"], code);
    }
}

#[test]
fn a_piped_prompt_is_the_prompt_and_p_wins_over_it() {
    let s = Copilot::new("stdin");
    let (code, out, _) = run_with_stdin(&mut s.scripted(SCENARIO, &[]), b"Say hello\n");
    assert_eq!((code, out), (0, recorded("print-stdin.txt")));
    let (_, out, _) = run_with_stdin(
        &mut s.scripted(SCENARIO, &["-p", "other", "-s"]),
        b"Say hello",
    );
    assert_eq!(out, "Response to: other\n");
}

#[test]
fn without_a_sign_in_p_exits_1_with_the_recorded_error() {
    let s = Copilot::new("signed-out");
    let (code, out, err) = run(s.signed_out().args(["-p", "hi"]));
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(err, recorded("print-not-signed-in-stderr.txt"));
    let (code, _, _) = run(s.signed_out().env("GH_TOKEN", "x").args(["-p", "hi"]));
    assert_eq!(code, 0, "a token is a sign-in");
}

#[test]
fn resume_goes_on_in_the_same_session_log() {
    let s = Copilot::new("resume");
    let id = "11111111-2222-4333-8444-555555555555";
    run(&mut s.scripted(SCENARIO, &["--session-id", id, "-p", "Say hello"]));
    let before = s.log(id).len();
    let resume = format!("--resume={id}");
    let (code, _, _) = run(&mut s.scripted(SCENARIO, &[&resume, "-p", "again"]));
    assert_eq!(code, 0);
    assert_eq!(s.sessions(), [id]);
    let log = s.log(id);
    assert_eq!(log[before]["type"], "session.resume");
    assert_eq!(log[before]["parentId"], log[before - 1]["id"]);
    let starts: Vec<Value> = s
        .hooks()
        .into_iter()
        .filter(|(e, _)| e == "SessionStart")
        .map(|(_, p)| p["source"].clone())
        .collect();
    assert_eq!(starts, ["new", "resume"]);
    let (code, _, err) = run(&mut s.scripted(SCENARIO, &["--resume", "nope", "-p", "x"]));
    assert_eq!(
        (code, err.trim()),
        (1, "Error: No session found with ID: nope")
    );
}

#[test]
fn without_allow_all_tools_p_refuses_the_tool_and_answers() {
    let s = Copilot::new("no-allow");
    let (code, out, _) = run(&mut s.scripted(SCENARIO, &["-p", "run the tool", "-s"]));
    assert_eq!((code, out.as_str()), (0, "It printed hi.\n"));
    assert_eq!(
        s.fired(4),
        [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "Stop",
            "SessionEnd"
        ]
    );
    let id = s.sessions().pop().unwrap();
    let done = s
        .log(&id)
        .into_iter()
        .find(|e| e["type"] == "tool.execution_complete")
        .unwrap();
    assert_eq!(done["data"]["success"], false);
}
