//! Faults in umbel's own files and input: a corrupt meta.json, an event log with bytes that are
//! not UTF-8, reserved variables, waits that can never end. Each is a typed, recoverable outcome
//! that names the problem, never a fleet-wide failure.

use crate::harness::*;
use std::os::unix::fs::PermissionsExt;
use umbel::core::wait::Liveness;

/// Overwrites a worker's meta.json with something that is not JSON.
fn corrupt_meta(sb: &Sandbox, name: &str) {
    sb.write(sb.session_dir(name).join("meta.json"), b"{ not json");
}

/// A sandbox with workers `names`, the meta.json of `corrupt` made unreadable.
fn with_a_corrupt_meta(names: [&str; 3], corrupt: &str) -> Sandbox {
    let sb = Sandbox::new();
    for name in names {
        sb.spawn(name, &[]);
    }
    corrupt_meta(&sb, corrupt);
    sb
}

fn session_alive(sb: &Sandbox, name: &str) -> bool {
    let pane = sandbox_tmux(sb)
        .pane(&format!("umbel-{name}"))
        .expect("pane");
    pane.liveness == Liveness::Alive
}

#[test]
fn a_corrupt_meta_shows_in_status_and_blocks_neither_prune_nor_kill_by_name() {
    let sb = with_a_corrupt_meta(["c1", "c2", "c3"], "c2");

    let out = sb.umbel(["ls", "--json"]).stderr_has("c2").success();
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list.iter().filter_map(|w| w["name"].as_str()).collect();
    assert_eq!(names, ["c1", "c2", "c3"], "{list:?}");
    assert_eq!(list[1]["state"], "corrupt", "{}", list[1]);
    let problem = list[1]["problem"].as_str().unwrap_or_default();
    assert!(problem.contains("meta.json"), "{problem}");
    assert_eq!(list[0]["state"], "ready");
    assert!(list[0].get("problem").is_none(), "{}", list[0]);

    sb.umbel(["status"]).stdout_has("corrupt").success();
    sb.umbel(["status", "c2"]).stdout_has("meta.json").success();

    sb.umbel(["prune", "--json"]).stderr_has("c2").success();
    assert!(
        sb.session_dir("c2").is_dir(),
        "prune left the corrupt worker alone"
    );

    // A verb that needs the worker's state says so, and what to do.
    sb.umbel(["send", "c2", "hi"])
        .stderr_has("meta.json is unreadable")
        .stderr_has("`umbel kill --purge c2` ends that worker")
        .status(1);

    assert!(session_alive(&sb, "c2"));
    sb.umbel(["kill", "c2"]).success();
    assert!(
        !session_alive(&sb, "c2"),
        "kill ended the session from the name alone"
    );
    assert!(session_alive(&sb, "c1") && session_alive(&sb, "c3"));
}

#[test]
fn kill_all_goes_past_a_corrupt_meta_and_ends_every_worker() {
    let sb = with_a_corrupt_meta(["a1", "a2", "a3"], "a1");
    sb.umbel(["kill", "--all"]).success();
    for name in ["a1", "a2", "a3"] {
        assert!(!session_alive(&sb, name), "{name} still alive");
    }
    assert!(processes_under(&sb.root).is_empty(), "processes left");
}

#[test]
fn a_log_line_that_is_not_utf8_degrades_one_worker_not_the_fleet() {
    let sb = Sandbox::new();
    for name in ["u1", "u2"] {
        sb.spawn(name, &[]);
    }
    let log = sb.session_dir("u2").join("events").join("log");
    let mut bytes = std::fs::read(&log).expect("log");
    bytes.extend_from_slice(b"17000 Notif\xff\xfeication -\n");
    sb.write(&log, bytes);

    let list = sb.ls();
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(list[0]["state"], "ready");
    assert!(list[0].get("degraded").is_none(), "{}", list[0]);
    assert_eq!(list[1]["state"], "ready", "{}", list[1]);
    let degraded = list[1]["degraded"].as_str().unwrap_or_default();
    assert!(degraded.contains("1 unreadable line"), "{}", list[1]);
    sb.umbel(["status"]).success();
    let one = sb.umbel(["status", "u2", "--json"]).success();
    assert!(one.json()["degraded"].is_string());
    sb.umbel(["logs", "u2"]).stdout_has("Notif").success();
}

#[test]
fn a_worker_may_not_set_the_launch_scripts_own_variables() {
    let sb = Sandbox::new();
    sb.cmd("spawn --name r1 --env __umbel_events=/tmp")
        .stderr_has("--env __umbel_events=/tmp")
        .status(2);
    assert!(sb.worker_dirs().is_empty(), "nothing was started");
}

#[test]
fn a_wait_nothing_can_end_is_refused_at_once_not_after_its_timeout() {
    let sb = Sandbox::new();
    sb.spawn("n1", &[]);
    let started = std::time::Instant::now();
    let out = sb.cmd("wait n1 --timeout 120s --json").status(2);
    assert_eq!(out.json()["error"]["code"], "no_turn", "{}", out.stdout());
    sb.cmd("wait n1 --since 99 --timeout 120s")
        .stderr_has("`--since 99` is past the end")
        .status(2);
    // Far below either timeout: refused, not timed out.
    assert!(started.elapsed() < std::time::Duration::from_secs(60));

    // Once a prompt was sent, both waits are fine.
    let pos = sb.umbel(["send", "n1", "hello"]).run().line();
    sb.cmd("wait n1 --timeout 60s").success();
    sb.umbel(["wait", "n1", "--since", &pos]).success();
}

#[test]
fn kill_says_what_it_did() {
    let sb = Sandbox::new();
    sb.spawn("k1", &[]);
    sb.spawn("k2", &[]);
    sb.umbel(["kill", "k1"]).stdout("killed k1\n").success();
    sb.umbel(["kill", "--all", "--purge"])
        .stdout("purged k1\npurged k2\n")
        .success();
    sb.umbel(["kill", "--all"])
        .stderr_has("no workers to kill")
        .success();
}

/// Speaks to `umbel mcp` by hand: initializes, sends `lines` as they are (bytes, one per line),
/// then closes stdin; returns every reply line, parsed.
fn mcp_replies(sb: &Sandbox, lines: &[&[u8]]) -> Vec<serde_json::Value> {
    let mut mcp = sb.umbel(["mcp"]).talk();
    mcp.write_line(crate::mcp::stdio::INITIALIZE);
    mcp.write_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    for line in lines {
        mcp.write_line(line);
    }
    // A last call that must still be answered: the server survived what came before.
    mcp.write_line(r#"{"jsonrpc":"2.0","id":99,"method":"ping"}"#);
    mcp.close_stdin();
    let replies: Vec<serde_json::Value> = mcp
        .success()
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON-RPC line"))
        .collect();
    assert!(replies.iter().any(|r| r["id"] == 99), "{replies:?}");
    replies
}

/// The reply to request `id`.
fn reply_to(replies: &[serde_json::Value], id: i64) -> &serde_json::Value {
    replies
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no reply to {id}: {replies:?}"))
}

#[test]
fn a_tools_call_with_bad_params_is_invalid_params_not_method_not_found() {
    let sb = Sandbox::new();
    let replies = mcp_replies(
        &sb,
        &[
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"umbel_ls","arguments":5}}"#,
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#,
            br#"{"jsonrpc":"2.0","id":5,"method":"no/such"}"#,
        ],
    );
    for id in [2, 3, 4] {
        let reply = reply_to(&replies, id);
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("tools/call"), "{reply}");
    }
    assert_eq!(reply_to(&replies, 5)["error"]["code"], -32601);
}

#[test]
fn umbel_ls_refuses_unknown_fields_like_every_other_tool() {
    let sb = Sandbox::new();
    let replies = mcp_replies(
        &sb,
        &[
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"umbel_ls","arguments":{"nmae":"w1"}}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"umbel_status","arguments":{"nmae":"w1"}}}"#,
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"umbel_ls"}}"#,
        ],
    );
    for id in [2, 3] {
        let result = &reply_to(&replies, id)["result"];
        assert_eq!(result["isError"], true, "{result}");
        assert_eq!(
            result["structuredContent"]["error"]["code"], "usage",
            "{result}"
        );
        let message = result["structuredContent"]["error"]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(message.contains("nmae"), "{result}");
    }
    let plain = &reply_to(&replies, 4)["result"];
    assert_eq!(
        plain["structuredContent"],
        serde_json::json!({ "workers": [] }),
        "{plain}"
    );
}

#[test]
fn mcp_input_that_is_not_json_gets_a_parse_error_with_a_null_id() {
    let sb = Sandbox::new();
    let replies = mcp_replies(
        &sb,
        &[
            b"{not json",
            b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"x\":\"\xff\"}",
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"umbel_ls","arguments":{}}}"#,
            br#"{"jsonrpc":"2.0","id":5}"#,
        ],
    );
    let parse_errors: Vec<&serde_json::Value> = replies
        .iter()
        .filter(|r| r["error"]["code"] == -32700)
        .collect();
    assert_eq!(parse_errors.len(), 2, "{replies:?}");
    for reply in parse_errors {
        assert_eq!(reply["jsonrpc"], "2.0");
        assert!(reply.get("id").is_some_and(|id| id.is_null()), "{reply}");
    }
    // Well-formed calls around them are served as usual.
    assert_eq!(reply_to(&replies, 4)["result"]["isError"], false);
    // JSON that is not a JSON-RPC message: invalid request, answered with its id.
    assert_eq!(reply_to(&replies, 5)["error"]["code"], -32600);
}

/// `umbel run --check` on `yaml` written as the project's `wf.yaml`: (exit code, stderr).
fn check_workflow(sb: &Sandbox, yaml: &str) -> (Option<i32>, String) {
    let path = sb.project.join("wf.yaml");
    sb.write(&path, yaml);
    let out = sb
        .umbel(["run", "--check", path.to_str().expect("path")])
        .run();
    (out.status.code(), out.stderr())
}

#[test]
fn run_check_refuses_an_empty_prompt_at_its_line_and_column() {
    let sb = Sandbox::new();
    let yaml = "workers:\n  a: {}\nsteps:\n  - id: s\n    worker: a\n    prompt: \"\"\n";
    let (code, err) = check_workflow(&sb, yaml);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("wf.yaml:6:13: step `s`: `prompt:` is empty"),
        "{err}"
    );
}

#[test]
fn a_duplicate_yaml_key_is_said_in_plain_words() {
    let sb = Sandbox::new();
    let yaml =
        "workers:\n  a: {}\nsteps:\n  - id: s\n    worker: a\n    prompt: hi\n    prompt: ho\n";
    let (code, err) = check_workflow(&sb, yaml);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("wf.yaml:7:5: `prompt` is given twice in the same map; keep one"),
        "{err}"
    );
    assert!(
        !err.contains("Options") && !err.contains("DuplicateKeyPolicy"),
        "{err}"
    );
}

#[test]
fn doctor_fails_a_state_root_it_cannot_write_in() {
    let sb = Sandbox::new();
    // A state root whose `sessions/` is a folder no one may create files in (as root too: the
    // mode bits alone say nothing there, nor on a read-only file system).
    std::fs::create_dir_all(&sb.state).expect("state root");
    std::fs::set_permissions(&sb.state, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let _ = std::fs::remove_dir_all(sb.state.join("sessions"));
    std::os::unix::fs::symlink("/sys/kernel", sb.state.join("sessions")).expect("symlink");
    let checks = sb.umbel(["doctor", "--json"]).status(1).json();
    let state = checks["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "state-root"))
        .unwrap_or_else(|| panic!("no state-root check: {checks}"));
    assert_eq!(state["level"], "fail", "{state}");
    assert!(
        state["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("cannot write"),
        "{state}"
    );
}

#[test]
fn read_escapes_control_sequences_on_a_terminal_and_keeps_them_raw_in_a_pipe() {
    let sb = Sandbox::new();
    let reply = "title \u{1b}]0;pwned\u{7} and \u{1b}[31mred\u{1b}[0m";
    sb.spawn_playing(
        "e1",
        serde_json::json!({ "default": { "reply": reply } }),
        &[],
    );
    sb.turn("e1", "hi").success();

    let piped = sb.umbel(["read", "e1"]).success();
    assert_eq!(piped.stdout(), format!("{reply}\n"), "raw when piped");

    let mut pty = rexpect::session::spawn_command(sb.pty_command(&["read", "e1"]), Some(30_000))
        .expect("pty");
    let shown = pty.exp_eof().expect("read ends");
    assert!(
        shown.contains("title ^[]0;pwned^G and ^[[31mred^[[0m"),
        "{shown:?}"
    );
    assert!(
        !shown.contains('\u{1b}'),
        "no raw escape reaches the terminal: {shown:?}"
    );
}
