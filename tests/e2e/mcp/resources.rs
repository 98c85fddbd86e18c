//! Workers as MCP resources: a client subscribed to two workers hears of each turn end and of a
//! permission prompt (`notifications/resources/updated`), of workers coming and going
//! (`notifications/resources/list_changed`), and reads the new answer with `resources/read`.

use super::client::*;
use crate::harness::*;
use rmcp::model::{
    ReadResourceRequestParams, ResourceContents, SubscribeRequestParams, UnsubscribeRequestParams,
};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// How long a notification may take to come.
const PATIENCE: Duration = Duration::from_secs(15);

impl Mcp {
    /// The resource notifications that came so far.
    fn heard(&self) -> Vec<String> {
        let heard = self.resources.lock().expect("resources lock");
        heard.iter().map(|(uri, _)| uri.clone()).collect()
    }

    /// Waits until `uri` was heard `times` times in all; returns everything heard.
    async fn hear(&self, uri: &str, times: usize) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let heard = self.heard();
            if heard.iter().filter(|u| *u == uri).count() >= times {
                return heard;
            }
            assert!(
                Instant::now() < deadline,
                "{uri} not heard {times} times: {heard:?}\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// `resources/read`: the one text content.
    pub(crate) async fn read(&self, uri: &str) -> String {
        let params = ReadResourceRequestParams::new(uri);
        let read = self.client.read_resource(params).await;
        let read = read.unwrap_or_else(|e| panic!("read {uri}: {e}"));
        match read.contents.as_slice() {
            [ResourceContents::TextResourceContents { text, uri: got, .. }] => {
                assert_eq!(got, uri);
                text.clone()
            }
            other => panic!("{uri}: {other:?}"),
        }
    }

    pub(crate) async fn read_json(&self, uri: &str) -> Value {
        let text = self.read(uri).await;
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{uri}: {e}: {text}"))
    }

    #[allow(deprecated)] // resources/subscribe: the protocol rmcp's client speaks here
    async fn subscribe(&self, uri: &str) {
        let params = SubscribeRequestParams::new(uri);
        self.client.subscribe(params).await.expect("subscribe");
    }
}

fn count(heard: &[String], uri: &str) -> usize {
    heard.iter().filter(|u| *u == uri).count()
}

#[tokio::test(flavor = "multi_thread")]
async fn subscribed_to_two_workers_a_client_hears_each_turn_end_and_a_permission_prompt() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb).await;
    let listed = mcp
        .client
        .list_all_resources()
        .await
        .expect("resources/list");
    // No worker yet: only the fleet's approvals inbox.
    let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["umbel://approvals"], "{listed:?}");
    let templates = mcp
        .client
        .list_all_resource_templates()
        .await
        .expect("resources/templates/list");
    assert_eq!(templates.len(), 3, "{templates:?}");

    sb.spawn_playing(
        "a",
        json!({ "turns": [{ "reply": "first answer" }, { "reply": "second answer" }] }),
        &[],
    );
    let ask = json!({"turns": [{"reply": "I will run it.", "end": {"permission": {
        "tool": "Bash", "input": {"command": "echo hi"}, "output": "hi"}}}]});
    sb.spawn_playing("b", ask, &[]);
    mcp.hear("list_changed", 1).await;
    let uris: Vec<String> = (mcp.client.list_all_resources().await.expect("list"))
        .into_iter()
        .map(|r| r.uri.clone())
        .collect();
    for uri in ["umbel://workers/a/answer", "umbel://workers/b/screen"] {
        assert!(uris.iter().any(|u| u == uri), "{uri}: {uris:?}");
    }
    for uri in [
        "umbel://workers/a",
        "umbel://workers/a/answer",
        "umbel://workers/b",
        "umbel://approvals",
    ] {
        mcp.subscribe(uri).await;
    }
    let ghost = mcp
        .client
        .read_resource(ReadResourceRequestParams::new("umbel://workers/ghost"));
    assert!(ghost.await.is_err(), "a worker that does not exist");

    // a's first turn: one update of its answer, and the new answer reads back.
    sb.umbel(["send", "a", "one"]).success();
    mcp.hear("umbel://workers/a/answer", 1).await;
    let answer = mcp.read_json("umbel://workers/a/answer").await;
    assert_eq!(answer["text"], "first answer", "{answer}");
    // b asks for permission: its status is updated and reads needs-input.
    sb.umbel(["send", "b", "run it"]).success();
    mcp.hear("umbel://workers/b", 1).await;
    let deadline = Instant::now() + PATIENCE;
    loop {
        // Counted before the read: an update landing between the two is heard, not waited
        // for again.
        let seen = count(&mcp.heard(), "umbel://workers/b");
        let status = mcp.read_json("umbel://workers/b").await;
        if status["state"] == "needs-input" {
            break;
        }
        assert!(Instant::now() < deadline, "{status}");
        mcp.hear("umbel://workers/b", seen + 1).await;
    }
    // The inbox heard of it too, and lists b's tool.
    mcp.hear("umbel://approvals", 1).await;
    let inbox = mcp.read_json("umbel://approvals").await;
    assert_eq!(inbox[0]["name"], "b", "{inbox}");
    assert_eq!(inbox[0]["tool"], "Bash", "{inbox}");
    // a's second turn: a second update, and the second answer.
    sb.umbel(["send", "a", "two"]).success();
    mcp.hear("umbel://workers/a/answer", 2).await;
    let answer = mcp.read_json("umbel://workers/a/answer").await;
    assert_eq!(answer["text"], "second answer", "{answer}");
    let screen = mcp.read("umbel://workers/a/screen").await;
    assert!(screen.contains("two"), "{screen}");

    // Not subscribed: no word of b's answer or screen; unsubscribed: no more of a's answer.
    let heard = mcp.heard();
    for quiet in ["umbel://workers/b/answer", "umbel://workers/b/screen"] {
        assert_eq!(count(&heard, quiet), 0, "{quiet}: {heard:?}");
    }
    #[allow(deprecated)]
    let unsubscribed = mcp
        .client
        .unsubscribe(UnsubscribeRequestParams::new("umbel://workers/a/answer"))
        .await;
    unsubscribed.expect("unsubscribe");
    let before = mcp.heard();
    sb.umbel(["kill", "a", "--purge"]).success();
    let heard = mcp
        .hear("list_changed", count(&before, "list_changed") + 1)
        .await;
    assert_eq!(
        count(&heard, "umbel://workers/a/answer"),
        2,
        "one per turn end, none after unsubscribing: {heard:?}"
    );
    mcp.client.cancel().await.expect("close");
}

/// The voluntary context switches (wake-ups) of `pid`'s thread named `name`.
fn thread_wakeups(pid: u32, name: &str) -> Option<u64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    tasks.filter_map(Result::ok).find_map(|task| {
        let comm = std::fs::read_to_string(task.path().join("comm")).ok()?;
        if comm.trim() != name {
            return None;
        }
        let status = std::fs::read_to_string(task.path().join("status")).ok()?;
        status.lines().find_map(|l| {
            l.strip_prefix("voluntary_ctxt_switches:")
                .and_then(|n| n.trim().parse().ok())
        })
    })
}

/// The change feed sleeps on inotify: left alone, its thread does not wake (a 30 s safety net
/// aside); a turn ending wakes it.
#[test]
fn an_idle_change_feed_does_not_wake() {
    use std::io::Write;
    let sb = Sandbox::new();
    sb.spawn_playing("a", sim::reply("hi"), &[]);
    sb.spawn_playing("b", sim::wedge(), &[]);
    let mut server = sb
        .process(&["mcp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("umbel mcp");
    let mut stdin = server.stdin.take().expect("stdin");
    let hello = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}});
    let mut lines = vec![
        hello,
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    ];
    for (id, uri) in ["umbel://workers/a", "umbel://workers/b/answer"]
        .iter()
        .enumerate()
    {
        lines.push(
            json!({"jsonrpc":"2.0","id":id + 1,"method":"resources/subscribe",
            "params":{"uri":uri}}),
        );
    }
    for line in lines {
        writeln!(stdin, "{line}").expect("write");
    }
    let pid = server.id();
    let deadline = Instant::now() + PATIENCE;
    while thread_wakeups(pid, "umbel-mcp-feed").is_none() {
        assert!(Instant::now() < deadline, "no feed thread");
        std::thread::sleep(Duration::from_millis(20));
    }
    sb.umbel(["send", "b", "hang"]).success();
    std::thread::sleep(Duration::from_millis(500));
    let before = thread_wakeups(pid, "umbel-mcp-feed").expect("feed");
    std::thread::sleep(Duration::from_secs(2));
    let idle = thread_wakeups(pid, "umbel-mcp-feed").expect("feed") - before;
    assert!(idle <= 1, "the idle feed woke {idle} times in 2 s");
    sb.turn("a", "hello").success();
    let woke = thread_wakeups(pid, "umbel-mcp-feed").expect("feed") - before;
    assert!(woke > idle, "a turn end wakes the feed");
    drop(stdin);
    let _ = server.wait();
}
