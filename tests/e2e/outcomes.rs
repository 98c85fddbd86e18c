//! How a wait can end besides a normal stop: provider errors, a pending permission, Ctrl-C.

use crate::harness::*;
use serde_json::json;

mod person;

#[test]
fn a_claude_api_error_is_provider_error_122() {
    let sb = Sandbox::new();
    sb.spawn_playing("e1", json!({ "default": { "end": { "api_error": { "status": 400, "message": "bad request" } } } }), &[]);
    let outcome = sb.turn_outcome("e1", "go", 122);
    assert_eq!(outcome["outcome"], "provider-error");
    assert_eq!(outcome["reason"], "api-error");
    let answer = sb.umbel(["read", "e1", "--json"]).json();
    assert_eq!(answer["isError"], true);
    assert!(
        answer["text"].as_str().unwrap().contains("API Error: 400"),
        "{answer}"
    );
}

#[test]
fn a_permission_prompt_is_input_126_with_the_pending_tool() {
    let sb = Sandbox::new();
    let tool = json!({ "tool": "Bash", "input": { "command": "echo hi", "description": "Print a greeting" } });
    let scenario = json!({ "default": { "end": { "permission": tool } } });
    sb.spawn_playing("p1", scenario, &[]);
    let outcome = sb.turn_outcome("p1", "run it", 126);
    assert_eq!(outcome["outcome"], "input");
    assert_eq!(outcome["reason"], "permission");
    assert_eq!(outcome["pendingTool"]["name"], "Bash");
    assert_eq!(outcome["pendingTool"]["input"]["command"], "echo hi");
    let status = sb.umbel(["status", "p1", "--json"]).json();
    assert_eq!(status["state"], "needs-input");
    assert_eq!(status["needsInput"], "permission");
}

#[test]
fn ctrl_c_during_wait_exits_130_and_leaves_the_worker_alone() {
    let sb = Sandbox::new();
    sb.spawn_playing("c1", sim::wedge(), &[]);
    let child = sb.turn("c1", "hang").args(["--timeout", "60s"]).start();
    std::thread::sleep(std::time::Duration::from_millis(700));
    child.interrupt();
    let started = std::time::Instant::now();
    child.status(130);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let status = sb.umbel(["status", "c1", "--json"]).json();
    assert_eq!(status["state"], "busy", "the worker is untouched");
}

#[test]
fn a_wedged_codex_or_gemini_worker_is_idle_123_too() {
    for provider in ["codex", "gemini"] {
        let sb = Sandbox::new();
        sb.spawn_playing("i3", sim::wedge(), &["--provider", provider]);
        sb.umbel(["send", "i3", "hang"]).success();
        let args = [
            "wait",
            "i3",
            "--idle-timeout",
            "1500ms",
            "--timeout",
            "60s",
            "--json",
        ];
        let out = sb.umbel(args).status(123);
        assert_eq!(out.json()["outcome"], "idle", "{provider}");
    }
}

#[test]
fn a_worker_where_nothing_moves_is_idle_123() {
    let sb = Sandbox::new();
    // Wedged: only the spinner line moves, which does not count.
    sb.spawn_playing("i1", sim::wedge(), &[]);
    sb.umbel(["send", "i1", "hang"]).success();
    let started = std::time::Instant::now();
    let out = sb
        .cmd("wait i1 --idle-timeout 1500ms --timeout 60s --json")
        .status(123);
    assert_eq!(out.json()["outcome"], "idle");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "ended by idleness, not the timeout"
    );
    // A worker that keeps producing does not go idle.
    let scenario = json!({ "default": { "reply": "word ".repeat(40), "chunk_ms": 100 } });
    sb.spawn_playing("i2", scenario, &[]);
    sb.umbel(["send", "i2", "stream"]).success();
    let out = sb
        .cmd("wait i2 --idle-timeout 1500ms --timeout 60s --json")
        .run();
    assert_eq!(out.json()["outcome"], "stop", "{}", out.stderr());
}

#[test]
fn wait_file_ends_when_the_file_appears() {
    let sb = Sandbox::new();
    sb.spawn_playing("f1", sim::wedge(), &[]);
    sb.umbel(["send", "f1", "make the file"]).success();
    let child = sb
        .cmd("wait f1 --file done.txt --timeout 30s --json")
        .start();
    std::thread::sleep(std::time::Duration::from_millis(500));
    sb.write("done.txt", "ok");
    let out = child.success();
    let outcome = out.json();
    assert_eq!(outcome["outcome"], "stop");
    assert_eq!(outcome["reason"], "file");
}

#[test]
fn wait_pattern_waits_past_turns_whose_answer_does_not_match() {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "m1",
        sim::replies(&["still working", "ALL DONE: 3 files"]),
        &[],
    );
    let pos = sb.umbel(["send", "m1", "one"]).run().line();
    sb.umbel(["wait", "m1"]).success();
    let child = sb
        .umbel([
            "wait",
            "m1",
            "--since",
            &pos,
            "--pattern",
            "^ALL DONE",
            "--timeout",
            "30s",
            "--json",
        ])
        .start();
    std::thread::sleep(std::time::Duration::from_millis(500));
    sb.umbel(["send", "m1", "two"]).success();
    let out = child.success();
    assert_eq!(out.json()["reason"], "pattern");
    sb.umbel(["read", "m1"]).stdout("ALL DONE: 3 files\n").run();
    sb.cmd("wait m1 --pattern (unclosed").status(2);
}

#[test]
fn codex_api_errors_and_usage_limits_end_without_a_hook_and_are_still_reported() {
    let sb = Sandbox::new();
    let scenario = json!({ "turns": [
            { "match": "bad", "end": { "api_error": { "status": 400, "message": "bad request" } } },
            { "match": "limit", "end": { "usage_limit": { "retry_at": "8:57 PM" } } }
        ] });
    sb.spawn_playing("x1", scenario, &["--provider", "codex"]);
    let out = sb
        .turn("x1", "bad one")
        .args(["--json", "--timeout", "30s"])
        .status(122);
    assert_eq!(out.json()["reason"], "api-error");

    let outcome = sb.turn_outcome("x1", "limit please", 122);
    assert_eq!(outcome["reason"], "usage-limit");
    assert_eq!(outcome["retryAt"], "8:57 PM");
    assert!(outcome["message"].as_str().unwrap().contains("usage limit"));
}

#[test]
fn gemini_errors_fire_after_agent_and_are_provider_errors() {
    let sb = Sandbox::new();
    sb.spawn_playing("g1", json!({ "default": { "end": { "api_error": { "status": 400, "message": "bad request" } } } }), &["--provider", "gemini"]);
    let outcome = sb.turn_outcome("g1", "go", 122);
    assert_eq!(outcome["reason"], "api-error");
    assert!(
        outcome["message"].as_str().unwrap().contains("API Error"),
        "{outcome}"
    );
}

#[test]
fn permission_prompts_are_input_for_codex_and_gemini_too() {
    for provider in ["codex", "gemini"] {
        let sb = Sandbox::new();
        let tool = json!({ "tool": "Bash", "input": { "command": "echo hi", "description": "Print a greeting" } });
        let scenario = json!({ "default": { "end": { "permission": tool } } });
        sb.spawn_playing("p2", scenario, &["--provider", provider]);
        let outcome = sb.turn_outcome("p2", "run it", 126);
        assert_eq!(outcome["reason"], "permission");
        // The pending tool as every CLI's is shown: its name and input (gemini's input is its
        // confirmation's details).
        let tool = &outcome["pendingTool"];
        let command = &tool["input"]["command"];
        assert!(
            command.as_str().is_some_and(|c| c.contains("echo hi")),
            "{provider}: {outcome}"
        );
    }
}

#[test]
fn a_state_root_on_a_read_only_filesystem_is_a_typed_error() {
    let mut sb = Sandbox::new();
    sb.var("UMBEL_STATE", "/proc/umbel-state");
    sb.umbel(["spawn", "--name", "ro"])
        .stderr_has("/proc/umbel-state")
        .status(1);
    let out = sb.umbel(["ls", "--json"]).run();
    assert_eq!(out.json()["error"]["code"], "io");
}

/// codex 0.171.0 shows no busy marker while an answer streams: the composer looks idle. umbel
/// still knows the turn runs (hooks decide), and the turn ends with the answer.
#[test]
fn a_streaming_codex_without_a_busy_marker_is_busy_until_its_stop() {
    let sb = Sandbox::new();
    let words = "word ".repeat(30);
    let scenario = json!({ "default": { "reply": words.trim_end(), "chunk_ms": 150 } });
    sb.spawn_playing("cx", scenario, &["--provider", "codex"]);
    let sent = sb.umbel(["send", "cx", "stream please"]).success();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let screen = loop {
        let screen = sb.umbel(["capture", "cx"]).run().stdout();
        if screen.contains("• word") || std::time::Instant::now() > deadline {
            break screen;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(screen.contains("• word"), "{screen}");
    assert!(
        !screen.contains("Working"),
        "no busy marker while text streams: {screen}"
    );
    assert!(screen.contains("› Ask Codex to do anything"), "{screen}");
    let status = sb.umbel(["status", "cx", "--json"]).json();
    assert_eq!(status["state"], "busy", "{status}");
    let since = sent.line();
    sb.umbel(["wait", "cx", "--since", &since]).success();
    assert_eq!(
        sb.umbel(["read", "cx"]).run().stdout(),
        format!("{}\n", words.trim_end())
    );
}
