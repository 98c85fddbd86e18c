//! `umbel -p`: the drop-in for `claude -p`.

use crate::harness::*;
use serde_json::json;

#[test]
fn print_mode_text_answers_and_leaves_nothing_behind() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "s",
        json!({ "default": { "reply": "Hello from the fake." } }),
    );
    let out = sb.run(&["-p", "Say hello", "--env", &scenario]);
    assert_success(&out, "-p");
    assert_eq!(stdout(&out), "Hello from the fake.\n");
    assert!(
        sb.worker_dirs().is_empty(),
        "the anonymous worker is removed: {:?}",
        sb.worker_dirs()
    );
}

#[test]
fn print_mode_reads_the_prompt_from_stdin_and_prints_claude_json() {
    let sb = Sandbox::new();
    let out = sb
        .umbel()
        .args(["-p", "--output-format", "json"])
        .write_stdin("from stdin")
        .output()
        .unwrap();
    assert_success(&out, "-p json");
    let result = json_of(&out);
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "Response to: from stdin");
    assert_eq!(result["num_turns"], 1);
    assert!(result["duration_ms"].as_u64().is_some());
    assert!(result["session_id"].as_str().is_some_and(|s| s.len() == 36));
}

#[test]
fn print_mode_exit_code_follows_the_outcome() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", json!({ "default": { "end": { "crash": 7 } } }));
    let out = sb.run(&["-p", "boom", "--output-format", "json", "--env", &scenario]);
    assert_eq!(out.status.code(), Some(125), "{}", stderr(&out));
    let result = json_of(&out);
    assert_eq!(result["is_error"], true);
    assert_eq!(result["outcome"], "dead");
    assert!(sb.worker_dirs().is_empty());

    let scenario = sb.scenario("w", json!({ "default": { "end": "wedge" } }));
    let out = sb.run(&["-p", "hang", "--timeout", "1s", "--env", &scenario]);
    assert_eq!(out.status.code(), Some(124));
    assert!(stderr(&out).contains("timeout"), "{}", stderr(&out));
}

#[test]
fn print_mode_with_a_name_keeps_and_reuses_the_worker() {
    let sb = Sandbox::new();
    assert_success(&sb.run(&["-p", "one", "--name", "keep"]), "-p 1");
    assert_eq!(sb.ls().len(), 1);
    let out = sb.run(&["-p", "two", "--name", "keep"]);
    assert_success(&out, "-p 2");
    assert_eq!(stdout(&out), "Response to: two\n");
    assert_eq!(sb.received().len(), 0, "no record dir was requested");
}

#[test]
fn print_mode_needs_a_prompt() {
    let sb = Sandbox::new();
    let out = sb.umbel().args(["-p"]).write_stdin("").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = sb.run(&["just a prompt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("-p"), "{}", stderr(&out));
}
