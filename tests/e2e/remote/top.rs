//! `umbel top`'s keys on a worker that runs on another host: each acts through that host's
//! umbel (send, the last answer in the pager, kill), and the row says which host it is on.

use super::hosts::Net;
use crate::harness::*;
use crate::top_pane::TopPane;
use serde_json::json;

/// The row of worker `name` on a screen of the view (`> ` marks the selected one).
fn row<'a>(screen: &'a str, name: &str) -> Option<&'a str> {
    screen.lines().find(|l| {
        l.trim_start_matches("> ")
            .split_whitespace()
            .next()
            .is_some_and(|w| w == name)
    })
}

#[test]
fn top_s_keys_act_on_a_remote_worker_through_its_host() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    let scenario = h1.scenario("far", json!({ "default": { "chunk_ms": 0 } }));
    let project = h1.project.to_string_lossy().into_owned();
    let spawn = [
        "spawn", "--host", "h1", "--name", "far", "--cwd", &project, "--env", &scenario,
    ];
    assert_success(&net.local.run(&spawn), "remote spawn");

    let top = TopPane::start(&net.local);
    top.until("the remote row with its host", |s| {
        s.contains("HOST") && row(s, "far").is_some_and(|r| r.contains("h1"))
    });

    // `s`: the prompt goes to the host's worker.
    top.send("far", "over there");
    top.until("sent", |s| s.contains("sent to far (position"));
    let answered = || {
        h1.run(&["read", "far"]).status.success()
            && String::from_utf8_lossy(&h1.run(&["read", "far"]).stdout)
                .contains("Response to: over there")
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !answered() {
        assert!(
            std::time::Instant::now() < deadline,
            "the host's worker never answered"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }

    // The row shows the answer's last line, read on the host once its turn ended.
    top.until("far's answer in its row", |s| {
        row(s, "far").is_some_and(|r| r.contains("Response to: over there"))
    });

    // `r`: the last answer, read on the host, in the pager.
    top.keys(&["r"]);
    top.until("the remote answer in the pager", |s| {
        s.contains("far: last answer") && s.contains("Response to: over there")
    });
    top.keys(&["q"]);
    top.until("back to the table", |s| row(s, "far").is_some());

    // `l`: the host's event log in the pager.
    top.keys(&["l"]);
    top.until("the remote log in the pager", |s| {
        s.contains("far: event log") && s.contains("UserPromptSubmit")
    });
    top.keys(&["Escape"]);
    top.until("back to the table", |s| row(s, "far").is_some());

    // `k` then `y`: killed on the host.
    top.keys(&["k"]);
    top.until("the question", |s| s.contains("kill far? (y/n)"));
    top.keys(&["y"]);
    top.until("killed", |s| s.contains("killed far"));
    let there = h1.run(&["status", "far", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&there.stdout).expect("status JSON");
    assert_eq!(status["state"], "dead", "{status}");
    top.keys(&["q"]);
}
