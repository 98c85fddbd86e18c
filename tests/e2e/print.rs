//! `umbel -p`: the drop-in for `claude -p`, `codex exec` and `gemini -p`. The plain text answer
//! (and that `-p` leaves no worker) is a scenario of both tiers: `tiers::print_mode_text_and_json`.

use crate::each_provider;
use crate::harness::*;
use serde_json::{Value, json};

each_provider!(
    print_mode_json_has_the_providers_own_shape,
    print_mode_exit_code_follows_the_outcome,
    print_mode_with_a_name_keeps_and_reuses_the_worker,
    piped_stdin_joins_the_prompt_as_the_providers_print_mode_does,
    a_megabyte_of_stdin_is_delivered,
);

/// A JSONL print's events and their types, in order.
fn jsonl_events(stdout: &str) -> (Vec<Value>, Vec<String>) {
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSONL"))
        .collect();
    let types = events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("").to_string())
        .collect();
    (events, types)
}

fn print_mode_json_has_the_providers_own_shape(provider: &str) {
    let sb = Sandbox::new();
    let out = sb
        .cmd(&format!("-p --output-format json --provider {provider}"))
        .stdin("from stdin")
        .success();
    let answer = "Response to: from stdin";
    match provider {
        "claude" => {
            let result = out.json();
            assert_eq!(result["type"], "result");
            assert_eq!(result["subtype"], "success");
            assert_eq!(result["is_error"], false);
            assert_eq!(result["result"], answer);
            assert_eq!(result["num_turns"], 1);
            assert!(result["duration_ms"].as_u64().is_some());
            assert!(result["session_id"].as_str().is_some_and(|s| s.len() == 36));
        }
        "codex" => {
            let (events, types) = jsonl_events(&out.stdout());
            assert_eq!(
                types,
                [
                    "thread.started",
                    "turn.started",
                    "item.completed",
                    "turn.completed"
                ]
            );
            assert!(
                events[0]["thread_id"]
                    .as_str()
                    .is_some_and(|s| !s.is_empty())
            );
            assert_eq!(events[2]["item"]["type"], "agent_message");
            assert_eq!(events[2]["item"]["text"], answer);
        }
        "qwen" => {
            // One JSON array, as `qwen --output-format json`: init, the answer, the result.
            let documents = out.json();
            let kinds: Vec<&str> = documents
                .as_array()
                .expect("an array")
                .iter()
                .map(|d| d["type"].as_str().unwrap_or(""))
                .collect();
            assert_eq!(kinds, ["system", "assistant", "result"]);
            let result = &documents[2];
            assert_eq!(result["subtype"], "success");
            assert_eq!(result["result"], answer);
            assert!(result["session_id"].as_str().is_some_and(|s| s.len() == 36));
        }
        "opencode" => {
            // `opencode run --format json`: one event a line, the text part's answer inside.
            let (events, types) = jsonl_events(&out.stdout());
            assert_eq!(types, ["step_start", "text", "step_finish"]);
            assert_eq!(events[1]["part"]["text"], answer);
            let session = events[0]["sessionID"].as_str().unwrap_or("");
            assert!(
                session.starts_with("ses_"),
                "opencode's own session id: {session}"
            );
        }
        "copilot" => {
            // `copilot -p --output-format json`: its session's events a line, `result` last.
            let (events, types) = jsonl_events(&out.stdout());
            assert_eq!(
                types,
                [
                    "user.message",
                    "assistant.turn_start",
                    "assistant.message",
                    "assistant.turn_end",
                    "result"
                ]
            );
            assert_eq!(events[2]["data"]["content"], answer);
            let session = events[4]["sessionId"].as_str().unwrap_or("");
            assert_eq!(session.len(), 36, "copilot's own session id: {session}");
        }
        _ => {
            let result = out.json();
            assert_eq!(result["response"], answer);
            assert!(result["session_id"].as_str().is_some_and(|s| s.len() == 36));
        }
    }
}

fn print_mode_exit_code_follows_the_outcome(provider: &str) {
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", json!({ "default": { "end": { "crash": 7 } } }));
    sb.umbel([
        "-p",
        "boom",
        "--provider",
        provider,
        "--output-format",
        "json",
        "--env",
        &scenario,
    ])
    .status(125);
    assert!(sb.worker_dirs().is_empty());

    let scenario = sb.scenario("w", sim::wedge());
    sb.umbel([
        "-p",
        "hang",
        "--provider",
        provider,
        "--timeout",
        "1s",
        "--env",
        &scenario,
    ])
    .stderr_has("timeout")
    .status(124);
}

fn print_mode_with_a_name_keeps_and_reuses_the_worker(provider: &str) {
    let sb = Sandbox::new();
    sb.cmd(&format!("-p one --name keep --provider {provider}"))
        .success();
    assert_eq!(sb.ls().len(), 1);
    sb.cmd("-p two --name keep")
        .stdout("Response to: two\n")
        .success(); // An explicit --provider that is not the worker's is refused, not ignored.
    let other = if provider == "claude" {
        "codex"
    } else {
        "claude"
    };
    sb.umbel(["-p", "three", "--name", "keep", "--provider", other])
        .stderr_has(format!("runs {provider}, not {other}"))
        .status(2);
}

/// `UMBEL_DEBUG_TIMING=1` shows each step of a cold `-p` on stderr, and the answer is out
/// (printed, stdout handed back) before the worker is torn down — which still happens before
/// umbel exits.
#[test]
fn print_mode_answers_before_its_teardown_and_times_each_step() {
    let sb = Sandbox::new();
    let out = sb
        .process(&["-p", "Say hello"])
        .env("UMBEL_DEBUG_TIMING", "1")
        .output()
        .expect("umbel -p");
    assert_success(&out, "umbel -p");
    assert_eq!(stdout(&out), "Response to: Say hello\n");
    let text = stderr(&out);
    let steps: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("umbel: timing +"))
        .filter_map(|l| l.split_once(" ms ").map(|(_, step)| step))
        .collect();
    let at = |step: &str| {
        steps
            .iter()
            .position(|s| *s == step)
            .unwrap_or_else(|| panic!("no `{step}` step in {steps:?}"))
    };
    assert!(at("-p started") < at("tmux session started"), "{steps:?}");
    assert!(at("tmux session started") < at("ready"), "{steps:?}");
    assert!(at("ready") < at("prompt pasted"), "{steps:?}");
    assert!(at("prompt pasted") < at("submit confirmed"), "{steps:?}");
    assert!(at("submit confirmed") < at("turn ended"), "{steps:?}");
    assert!(at("answer read") < at("answer printed"), "{steps:?}");
    assert!(at("answer printed") < at("worker removed"), "{steps:?}");
    assert!(sb.worker_dirs().is_empty(), "-p leaves no worker");
    let quiet = sb.run(&["-p", "Say hello"]);
    assert!(
        !stderr(&quiet).contains("timing"),
        "silent without the variable"
    );
}

/// `-p`'s worker is killed at once once its answer is out (nothing of it is kept: no SIGTERM
/// grace for its CLI to save a session that is removed next), while `kill` still asks first. A
/// child ignoring SIGTERM logs each one it gets: none from `-p`, one from `kill`; neither
/// leaves a process.
#[test]
fn print_mode_kills_its_worker_at_once_where_kill_asks_first() {
    let sb = Sandbox::new();
    let log = sb.root.join("term.log");
    let scenario = sb.scenario(
        "stubborn",
        json!({ "startup": { "stubborn_child": true, "term_log": log.display().to_string() } }),
    );
    sb.umbel(["-p", "Say hello", "--env", &scenario])
        .stdout("Response to: Say hello\n")
        .success();
    assert_no_process_left(&sb.root, "-p");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap_or_default(),
        "",
        "-p sent SIGTERM"
    );
    sb.spawn("k", &["--env", &scenario]);
    sb.umbel(["kill", "k"]).success();
    assert_no_process_left(&sb.root, "kill");
    let terms = std::fs::read_to_string(&log).expect("kill's SIGTERM logged");
    assert_eq!(terms.lines().collect::<Vec<_>>(), ["TERM"], "{terms}");
}

#[test]
fn print_mode_needs_a_prompt() {
    let sb = Sandbox::new();
    sb.umbel(["-p"]).stdin("").status(2);
    sb.umbel(["just a prompt"]).stderr_has("-p").status(2);
}

#[test]
fn claude_json_marks_a_crash_as_an_error() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", json!({ "default": { "end": { "crash": 7 } } }));
    let result = sb
        .umbel(["-p", "boom", "--output-format", "json", "--env", &scenario])
        .run()
        .json();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["outcome"], "dead");
}

#[test]
fn dash_o_json_is_output_format_json_as_gemini_spells_it() {
    let sb = Sandbox::new();
    let v = sb.cmd("-p hi --provider gemini -o json").success().json();
    assert_eq!(v["response"], "Response to: hi", "{v}");
}

/// The joining rules were measured on the real CLIs (src/core/print/stdin.rs).
fn piped_stdin_joins_the_prompt_as_the_providers_print_mode_does(provider: &str) {
    let sb = Sandbox::new();
    let record = sb.record_env();
    sb.umbel(["-p", "Count the lines", "--provider", provider])
        .args(["--env", &record])
        .stdin("x\ny\n")
        .success();
    let expected = match provider {
        "claude" => "Count the lines\nx\ny\n",
        "codex" => "Count the lines\n\n<stdin>\nx\ny\n</stdin>",
        "opencode" => "\"Count the lines\"\nx\ny\n",
        // `copilot -p PROMPT` reads no stdin.
        "copilot" => "Count the lines",
        _ => "x\ny\n\n\nCount the lines",
    };
    let received = sb.received();
    assert_eq!(received.len(), 1);
    assert_eq!(String::from_utf8_lossy(&received[0]), expected);
}

fn a_megabyte_of_stdin_is_delivered(provider: &str) {
    let sb = Sandbox::new();
    let record = sb.record_env();
    let big = text_of(1_000_000, 80);
    sb.umbel(["-p", "--provider", provider, "--env", &record])
        .stdin(big.clone())
        .success();
    let received = sb.received();
    assert_eq!(received.len(), 1);
    // gemini submits its input trimmed (the real one too): the last line's newline goes.
    let expected = match provider {
        "gemini" => big.trim_ascii_end(),
        _ => &big[..],
    };
    assert!(received[0] == expected, "the 1 MB prompt differs");
}

#[test]
fn a_binary_stdin_is_refused_before_any_worker_starts() {
    let sb = Sandbox::new();
    for bytes in [&b"PK\x03\x04\xff\xfe binary"[..], &b"text\0with NUL"[..]] {
        let out = sb
            .umbel(["-p", "Review this", "--output-format", "json"])
            .stdin(bytes.to_vec())
            .status(2);
        assert!(
            out.stderr().contains("standard input is not text")
                || out.stdout().contains("stdin_not_text"),
            "{}{}",
            out.stdout(),
            out.stderr()
        );
        assert!(sb.worker_dirs().is_empty(), "a worker was started");
    }
}

/// A failure before any turn (here a bad `--cwd`) still prints the provider's JSON shape with
/// `is_error`, and umbel's exit code and error code.
#[test]
fn a_failure_before_the_turn_prints_the_providers_error_shape() {
    let sb = Sandbox::new();
    let json = |provider: &str| {
        sb.cmd(&format!(
            "-p hi --provider {provider} --output-format json --cwd /nonexistent/umbel"
        ))
        .run()
    };
    let out = json("claude");
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr());
    let result = out.json();
    assert_eq!(result["type"], "result");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["error"]["code"], "cwd_missing");
    let out = json("codex");
    let last: Value = serde_json::from_str(out.stdout().lines().last().expect("events")).unwrap();
    assert_eq!(last["type"], "turn.failed", "{}", out.stdout());
    let out = json("gemini");
    assert!(out.stdout().is_empty(), "{}", out.stdout());
    assert!(out.stderr().contains("\"error\": {"), "{}", out.stderr());
}

/// stream-json is live: the prompt's event is out while the turn still runs (here it never
/// ends; Ctrl-C stops umbel, which removes its worker).
#[test]
fn stream_json_prints_events_while_the_turn_runs() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "w",
        json!({ "default": { "reply": "partial", "end": "wedge" } }),
    );
    let args = [
        "-p",
        "hello",
        "--provider",
        "gemini",
        "--output-format",
        "stream-json",
    ];
    let mut umbel = sb
        .umbel(args)
        .args(["--timeout", "60s", "--env", &scenario])
        .start();
    let mut next =
        || -> Value { serde_json::from_str(&umbel.read_line()).expect("one JSON object a line") };
    assert_eq!(next()["type"], "init");
    let message = next();
    assert_eq!(
        (&message["type"], &message["role"]),
        (&json!("message"), &json!("user"))
    );
    assert!(
        umbel.is_running(),
        "the events came only once umbel had ended"
    );
    umbel.interrupt();
    umbel.status(130);
    assert!(sb.worker_dirs().is_empty(), "the worker stayed");
}

/// codex's JSON is `codex exec --json`, a stream: a command's items are out while the turn
/// still runs (here its answer streams for seconds after the command).
#[test]
fn codex_json_prints_a_command_while_the_turn_runs() {
    let sb = Sandbox::new();
    let reply = vec!["word"; 40].join(" ");
    let scenario = sb.scenario(
        "w",
        json!({ "turns": [{ "reply": reply, "chunk_ms": 250, "end": { "permission": {
            "tool": "Bash", "input": { "command": "echo hi", "description": "Print hi" } } } }] }),
    );
    let mut umbel = sb
        .umbel([
            "-p",
            "run it",
            "--provider",
            "codex",
            "--output-format",
            "json",
        ])
        .args(["--timeout", "60s", "--unattended", "--env", &scenario])
        .start();
    let kind = |line: &str| {
        crate::print_json::kind(&serde_json::from_str(line).expect("one JSON object a line"))
    };
    let mut kinds = Vec::new();
    while kinds.last().map(String::as_str) != Some("item.completed/command_execution") {
        kinds.push(kind(&umbel.read_line()));
    }
    assert!(
        umbel.is_running(),
        "the command's items came only once umbel had ended"
    );
    assert_eq!(
        kinds,
        [
            "thread.started",
            "turn.started",
            "item.started/command_execution",
            "item.completed/command_execution"
        ]
    );
    let rest: Vec<String> = umbel.success().stdout().lines().map(kind).collect();
    assert_eq!(rest, ["item.completed/agent_message", "turn.completed"]);
}

/// A stdin pipe that stays silent (a `while read` loop's, a CI runner's) does not hang
/// `umbel -p PROMPT`: like `claude -p`, it waits 3 s for data, then goes on with the prompt.
#[test]
fn a_silent_stdin_pipe_is_given_up_after_three_seconds() {
    let sb = Sandbox::new();
    let record = sb.record_env();
    sb.umbel(["-p", "hello", "--env", &record])
        .stderr_has("no stdin data received in 3s")
        .talk()
        .success();
    assert_eq!(sb.received(), [b"hello".to_vec()]);
}

/// copilot runs its permission hook before its own `--deny-tool` rules refuse the tool: that
/// hook is no dialog. `-p` (`--on-permission deny`) must not report a wait for a person while
/// the answer after the refusal still streams (the real 1.0.102 under load: exit 126 once in
/// ten runs, between the hook and its `Stop` 60 ms later).
#[test]
fn copilot_print_is_not_stopped_by_the_permission_hook_its_deny_rules_answer() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "w",
        json!({ "default": { "reply": "It printed hi, or would have.", "chunk_ms": 400, "end": { "permission": {
            "tool": "Bash", "input": { "command": "echo hi > umbel-tool.txt", "description": "Write hi" } } } } }),
    );
    sb.umbel([
        "-p",
        "run the tool",
        "--provider",
        "copilot",
        "--env",
        &scenario,
    ])
    .stdout("It printed hi, or would have.\n")
    .success();
}
