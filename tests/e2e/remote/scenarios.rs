//! The scenarios of docs/remote.md through ssh: spawn, two turns, read, a permission (126),
//! kill, secrets kept off every argv, typed errors for hosts that cannot be used.

use super::hosts::{Net, sshd_available};
use crate::harness::*;
use serde_json::json;

const CANARY: &str = "canary-remote-5e3c91";

/// `spawn --host` with the host's own scenario file and project folder.
fn spawn_on(net: &Net, host: &str, name: &str, scenario: serde_json::Value, extra: &[&str]) {
    let h = net.host(host);
    let scenario = h.sandbox.scenario(name, scenario);
    let project = h.sandbox.project.to_string_lossy().into_owned();
    let mut args = vec![
        "spawn", "--host", host, "--name", name, "--cwd", &project, "--env", &scenario,
    ];
    args.extend_from_slice(extra);
    assert_success(&net.local.run(&args), "remote spawn");
}

/// A process's environment, one `K=V` per entry.
fn environ(pid: i32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/environ"))
        .unwrap_or_default()
        .split(|b| *b == 0)
        .map(|kv| String::from_utf8_lossy(kv).into_owned())
        .collect()
}

/// The command lines of every live process containing `needle`.
fn cmdlines_with(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(needle))
        .collect()
}

#[test]
fn a_remote_worker_takes_two_turns_and_is_read_and_killed_from_here() {
    if !sshd_available() {
        return;
    }
    let mut net = Net::new(1);
    net.local.var("MY_TOKEN", CANARY);
    let turns = json!({ "turns": [ { "reply": "first answer" }, { "reply": "second answer" } ] });
    spawn_on(&net, "h1", "rw", turns, &["--env", "MY_TOKEN"]);
    let h1 = &net.host("h1").sandbox;
    assert!(
        h1.session_dir("rw").join("meta.json").exists(),
        "the worker lives on h1"
    );
    assert!(!net.local.session_dir("rw").exists(), "and not here");
    for prompt in ["one", "two"] {
        assert_success(&net.local.run(&["send", "rw", prompt]), "send");
        let waited = net.local.run(&["wait", "rw", "--timeout", "30s", "--json"]);
        assert_success(&waited, "wait");
        assert_eq!(json_of(&waited)["outcome"], "stop");
    }
    let read = net.local.run(&["read", "rw"]);
    assert_eq!(stdout(&read), "second answer\n");
    let all = json_of(&net.local.run(&["read", "rw", "--all", "--json"]));
    assert_eq!(answers_of(&all), ["first answer", "second answer"]);
    // The secret reached the worker on h1, and no command line on either side.
    let delivered = format!("MY_TOKEN={CANARY}");
    assert!(
        processes_under(&h1.root)
            .iter()
            .any(|pid| environ(*pid).contains(&delivered)),
        "no process of h1 has the secret"
    );
    assert_eq!(cmdlines_with(CANARY), Vec::<String>::new());
    let status = json_of(&net.local.run(&["ls", "--json"]));
    assert_eq!(status[0]["name"], "rw");
    assert_eq!(status[0]["host"], "h1");
    assert_eq!(status[0]["state"], "ready");
    assert_success(&net.local.run(&["kill", "rw", "--purge"]), "kill");
    assert!(!h1.session_dir("rw").exists(), "purged on h1");
    let after = net.local.run(&["status", "rw"]);
    assert_eq!(after.status.code(), Some(1), "{}", stderr(&after));
}
