//! The stdio lifecycle, spoken by hand: stdout carries only the protocol, the end of stdin ends
//! the server (interrupting a pending wait), Ctrl-C exits 130.

use crate::harness::*;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}"#;

#[test]
fn stdin_closing_ends_the_server_with_0_and_stdout_is_only_protocol() {
    let sb = Sandbox::new();
    let mut child = sb
        .process(&["mcp"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("umbel mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines = [
        INITIALIZE,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"umbel_ls","arguments":{}}}"#,
    ];
    for line in lines {
        writeln!(stdin, "{line}").expect("write");
    }
    drop(stdin);
    let started = Instant::now();
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(5));
    let replies: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(&l.expect("line")).expect("JSON-RPC line"))
        .collect();
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert!(
        replies
            .iter()
            .any(|r| r["result"]["structuredContent"] == json!({"workers": []}))
    );

    // No client at all: nothing to serve.
    let out = sb.process(&["mcp"]).output().expect("umbel mcp");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn ctrl_c_ends_the_server_with_130() {
    let sb = Sandbox::new();
    let mut child = sb
        .process(&["mcp"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("umbel mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{INITIALIZE}").expect("write");
    let mut first = String::new();
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    reader.read_line(&mut first).expect("initialize reply");
    assert!(first.contains("\"serverInfo\""), "{first}");
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
    let started = Instant::now();
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(130));
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(stdin);
}

#[test]
fn closing_stdin_mid_wait_exits_at_once_and_leaves_the_worker_busy() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("wedge", json!({ "default": { "end": "wedge" } }));
    sb.spawn("e1", &["--env", &scenario]);
    assert_success(&sb.run(&["send", "e1", "hang"]), "send");
    let mut child = sb
        .process(&["mcp"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("umbel mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let wait = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"umbel_wait","arguments":{"name":"e1","timeout":"60s"}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    for line in [INITIALIZE, initialized, wait] {
        writeln!(stdin, "{line}").expect("write");
    }
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    reader.read_line(&mut first).expect("initialize reply");
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut reader, &mut rest).expect("read replies");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let reply: Value = serde_json::from_str(rest.trim()).expect("the wait's reply");
    assert_eq!(reply["id"], 2);
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(
        reply["result"]["structuredContent"]["error"]["code"],
        "interrupted"
    );
    let status = json_of(&sb.run(&["status", "e1", "--json"]));
    assert_eq!(status["state"], "busy", "the worker is untouched");
}
