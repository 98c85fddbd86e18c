//! The stdio lifecycle, spoken by hand: stdout carries only the protocol, the end of stdin ends
//! the server (interrupting a pending wait), Ctrl-C exits 130.

use crate::harness::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
pub(crate) const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}"#;

#[test]
fn stdin_closing_ends_the_server_with_0_and_stdout_is_only_protocol() {
    let sb = Sandbox::new();
    let mut mcp = sb.umbel(["mcp"]).talk();
    mcp.write_line(INITIALIZE);
    mcp.write_line(INITIALIZED);
    mcp.write_line(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"umbel_ls","arguments":{}}}"#,
    );
    mcp.close_stdin();
    let started = Instant::now();
    let out = mcp.status(0);
    assert!(started.elapsed() < Duration::from_secs(5));
    let replies: Vec<Value> = out
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON-RPC line"))
        .collect();
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert!(
        replies
            .iter()
            .any(|r| r["result"]["structuredContent"] == json!({"workers": []}))
    );

    // No client at all: nothing to serve.
    sb.umbel(["mcp"]).start().status(0);
}

#[test]
fn ctrl_c_ends_the_server_with_130() {
    let sb = Sandbox::new();
    let mut mcp = sb.umbel(["mcp"]).talk();
    mcp.write_line(INITIALIZE);
    let first = mcp.read_line();
    assert!(first.contains("\"serverInfo\""), "{first}");
    mcp.interrupt();
    let started = Instant::now();
    mcp.status(130);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn closing_stdin_mid_wait_exits_at_once_and_leaves_the_worker_busy() {
    let sb = Sandbox::new();
    sb.spawn_playing("e1", sim::wedge(), &[]);
    sb.umbel(["send", "e1", "hang"]).success();
    let mut mcp = sb.umbel(["mcp"]).talk();
    let wait = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"umbel_wait","arguments":{"name":"e1","timeout":"60s"}}}"#;
    for line in [INITIALIZE, INITIALIZED, wait] {
        mcp.write_line(line);
    }
    mcp.read_line();
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    mcp.close_stdin();
    let rest = mcp.status(0).stdout();
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
    let status = sb.umbel(["status", "e1", "--json"]).json();
    assert_eq!(status["state"], "busy", "the worker is untouched");
}
