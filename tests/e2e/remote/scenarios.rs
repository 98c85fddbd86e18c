//! The scenarios of docs/remote.md through ssh: spawn, two turns, read, a permission (126),
//! kill, secrets kept off every argv, typed errors for hosts that cannot be used.

use super::hosts::Net;
use super::json_of;
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
    let Some(mut net) = Net::up(1) else {
        return;
    };
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

/// The host's umbel processes serving a forwarded verb.
fn serving(net: &Net, host: &str) -> Vec<i32> {
    processes_under(&net.host(host).sandbox.root)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("remote-exec"))
        })
        .collect()
}

#[test]
fn a_remote_permission_is_needs_input_126_and_a_prompt_on_stdin_travels_along() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let tool = json!({ "tool": "Bash", "input": { "command": "rm -rf build" } });
    let record = net.host("h1").sandbox.record_env();
    spawn_on(
        &net,
        "h1",
        "perm",
        json!({ "default": { "reply": "ok", "end": { "permission": tool } } }),
        &["--env", &record],
    );
    let sent = net
        .local
        .umbel(["send", "perm"])
        .stdin("a prompt\nfrom stdin")
        .run();
    assert_success(&sent, "send from stdin");
    assert_eq!(
        net.host("h1").sandbox.received(),
        vec![b"a prompt\nfrom stdin".to_vec()]
    );
    let waited = net
        .local
        .run(&["wait", "perm", "--timeout", "30s", "--json"]);
    assert_eq!(waited.status.code(), Some(126), "{}", stderr(&waited));
    let outcome = json_of(&waited);
    assert_eq!(outcome["outcome"], "input");
    assert_eq!(outcome["reason"], "permission");
}

/// A worker on h1 in a minute-long turn.
fn long_turn(net: &Net, name: &str) {
    let long = json!({ "default": { "reply": "late", "delay_ms": 60000 } });
    spawn_on(net, "h1", name, long, &[]);
    assert_success(&net.local.run(&["send", name, "take your time"]), "send");
}

/// Waits until the host's umbel serves a forwarded verb.
fn until_served(net: &Net) {
    assert!(
        eventually(std::time::Duration::from_secs(10), || !serving(net, "h1")
            .is_empty()),
        "the host's umbel never started waiting"
    );
}

/// A worker on h1 in a minute-long turn, and a local `wait ARGS` on it that the host's umbel
/// is already serving.
fn waiting_on_a_long_turn(net: &Net, name: &str, args: &[&str]) -> std::process::Child {
    long_turn(net, name);
    let mut wait = vec!["wait", name, "--timeout", "120s"];
    wait.extend_from_slice(args);
    let child = net.local.process(&wait).spawn().expect("wait");
    until_served(net);
    child
}

#[test]
fn an_mcp_cancel_ends_the_remote_wait() {
    use std::io::Write;
    let Some(net) = Net::up(1) else {
        return;
    };
    long_turn(&net, "mw");
    let mut server = net
        .local
        .process(&["mcp"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("umbel mcp");
    let mut stdin = server.stdin.take().expect("stdin");
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"umbel_wait","arguments":{"name":"mw","timeout":"120s"}}}"#,
    ] {
        writeln!(stdin, "{line}").expect("write");
    }
    until_served(&net);
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
    writeln!(stdin, "{cancel}").expect("write");
    assert!(
        eventually(std::time::Duration::from_secs(10), || serving(&net, "h1")
            .is_empty()),
        "the host's wait outlived the cancelled MCP call"
    );
    drop(stdin);
    let _ = server.wait();
    let there = json_of(&net.host("h1").sandbox.run(&["status", "mw", "--json"]));
    assert_eq!(there["state"], "busy", "the worker itself is left alone");
}

#[test]
fn a_host_going_away_mid_wait_is_a_typed_error_and_the_remote_wait_ends() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let wait = waiting_on_a_long_turn(&net, "slow", &["--json"]);
    let started = std::time::Instant::now();
    net.host("h1").relay.cut();
    let out = wait.wait_with_output().expect("wait ends");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(255), "{}", stderr(&out));
    let error = json_of(&out);
    assert_eq!(error["error"]["code"], "host_unreachable", "{error}");
    assert!(
        eventually(std::time::Duration::from_secs(30), || serving(&net, "h1")
            .is_empty()),
        "the host's wait outlived its caller"
    );
    // Nothing else on the host was touched: the worker is still busy there.
    let there = json_of(&net.host("h1").sandbox.run(&["status", "slow", "--json"]));
    assert_eq!(there["state"], "busy");
}

#[test]
fn interrupting_a_local_wait_ends_the_remote_one() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let wait = waiting_on_a_long_turn(&net, "long", &[]);
    let pid = rustix::process::Pid::from_child(&wait);
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
    let out = wait.wait_with_output().expect("wait ends");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        eventually(std::time::Duration::from_secs(10), || serving(&net, "h1")
            .is_empty()),
        "the host's wait outlived the interrupted one"
    );
    let there = json_of(&net.host("h1").sandbox.run(&["status", "long", "--json"]));
    assert_eq!(there["state"], "busy", "the worker itself is left alone");
}

#[test]
fn hosts_that_cannot_be_used_are_typed_errors_with_the_remedy() {
    let Some(mut net) = Net::up(1) else {
        return;
    };
    let project = net
        .host("h1")
        .sandbox
        .project
        .to_string_lossy()
        .into_owned();
    let spawn = |net: &Net, host: &str| {
        net.local.run(&[
            "spawn", "--host", host, "--name", "x", "--cwd", &project, "--json",
        ])
    };
    let stranger = spawn(&net, "stranger");
    assert_eq!(stranger.status.code(), Some(255), "{}", stderr(&stranger));
    assert_eq!(json_of(&stranger)["error"]["code"], "host_key");
    assert!(stderr(&stranger).contains("never disables host-key checking"));
    let nowhere = spawn(&net, "nowhere");
    assert_eq!(nowhere.status.code(), Some(255));
    assert_eq!(json_of(&nowhere)["error"]["code"], "host_unreachable");
    net.local.var("UMBEL_REMOTE_UMBEL", "/nonexistent/umbel");
    let missing = spawn(&net, "h1");
    assert_eq!(missing.status.code(), Some(1), "{}", stderr(&missing));
    assert_eq!(json_of(&missing)["error"]["code"], "remote_umbel");
    let option = net
        .local
        .run(&["spawn", "--host=-oProxyCommand=x", "--name", "x"]);
    assert_eq!(option.status.code(), Some(2));
    assert!(net.local.worker_dirs().is_empty());
    assert!(!net.local.state.join("remote").join("x.json").exists());
}

#[test]
fn ls_lists_every_hosts_workers_and_a_hung_host_only_costs_its_timeout() {
    let Some(mut net) = Net::up(3) else {
        return;
    };
    for host in ["h1", "h2", "h3"] {
        for n in 1..=2 {
            let name = format!("{host}-w{n}");
            spawn_on(&net, host, &name, json!({}), &[]);
        }
    }
    net.local.spawn("here", &[]);
    net.add_silent("hung");
    let ghost = json!({ "name": "ghost", "host": "hung", "createdAt": 1 });
    std::fs::write(net.local.state.join("remote/ghost.json"), ghost.to_string()).unwrap();
    let started = std::time::Instant::now();
    let out = net.local.run(&["ls", "--json"]);
    let took = started.elapsed();
    assert_success(&out, "ls");
    // The hung host's bound is twice the connect timeout (2 s here); the others answer at once.
    assert!(took < std::time::Duration::from_secs(8), "ls took {took:?}");
    let rows = json_of(&out);
    let rows = rows.as_array().expect("a list");
    let find = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing from {rows:?}"))
    };
    assert_eq!(find("here")["state"], "ready");
    assert!(find("here").get("host").is_none());
    for host in ["h1", "h2", "h3"] {
        for n in 1..=2 {
            let row = find(&format!("{host}-w{n}"));
            assert_eq!(row["host"], host);
            assert_eq!(row["state"], "ready");
        }
    }
    assert_eq!(find("ghost")["state"], "unreachable");
    assert!(find("ghost")["problem"].as_str().unwrap().contains("hung"));
    assert_eq!(rows.len(), 8);
    let text = stdout(&net.local.run(&["ls"]));
    assert!(text.starts_with("NAME"), "{text}");
    assert!(text.lines().next().unwrap().contains("HOST"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("ghost") && l.contains("unreachable")),
        "{text}"
    );
    // `top` shows them too, with their hosts.
    let frame = net
        .local
        .umbel(["top", "--once", "--width", "160"])
        .success()
        .stdout();
    let header = frame.lines().find(|l| l.contains("NAME")).unwrap_or("");
    assert!(header.contains("HOST"), "{frame}");
    let line = |name: &str| {
        frame
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} missing from\n{frame}"))
            .to_string()
    };
    assert!(line("h2-w1").contains(" h2 "), "{frame}");
    assert!(line("here").contains("local"), "{frame}");
    assert!(line("ghost").contains("unreachable"), "{frame}");
}

#[test]
fn print_mode_runs_on_the_host_with_its_stdin_and_secrets() {
    let Some(mut net) = Net::up(1) else {
        return;
    };
    net.local.var("MY_TOKEN", CANARY);
    let h1 = &net.host("h1").sandbox;
    let scenario = h1.scenario("p", json!({ "default": { "reply": "remote answer" } }));
    let record = h1.record_env();
    let project = h1.project.to_string_lossy().into_owned();
    let out = net
        .local
        .umbel([
            "-p", "--host", "h1", "--cwd", &project, "--env", &scenario, "--env", &record, "--env",
            "MY_TOKEN",
        ])
        .stdin("the prompt on stdin")
        .run();
    assert_success(&out, "-p --host");
    assert_eq!(stdout(&out), "remote answer\n");
    assert_eq!(h1.received(), vec![b"the prompt on stdin".to_vec()]);
    assert!(h1.worker_dirs().is_empty(), "-p removed its worker on h1");
    assert!(net.local.worker_dirs().is_empty());
}

/// `-p --name W` for a remote worker `W` takes its turn on W's host, as `--host` would.
#[test]
fn print_mode_on_a_remote_workers_name_runs_on_its_host() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let turns = json!({ "turns": [ { "reply": "first" }, { "reply": "second" } ] });
    spawn_on(&net, "h1", "pw", turns, &[]);
    let out = net.local.run(&["-p", "--name", "pw", "one"]);
    assert_success(&out, "-p --name");
    assert_eq!(stdout(&out), "first\n");
    let out = net.local.run(&["-p", "--name", "pw", "two"]);
    assert_eq!(stdout(&out), "second\n", "{}", stderr(&out));
    let h1 = &net.host("h1").sandbox;
    assert!(
        h1.session_dir("pw").join("meta.json").exists(),
        "kept, as -p --name keeps it"
    );
    assert!(net.local.worker_dirs().is_empty(), "nothing here");
}

#[test]
fn kill_all_reaches_the_remote_workers_and_a_dead_host_keeps_its_record() {
    let Some(net) = Net::up(2) else {
        return;
    };
    spawn_on(&net, "h1", "ka", json!({}), &[]);
    spawn_on(&net, "h2", "kb", json!({}), &[]);
    net.local.spawn("kl", &[]);
    net.host("h2").relay.cut();
    let out = net.local.run(&["kill", "--all", "--purge"]);
    assert_success(&out, "kill --all");
    let said = stdout(&out);
    assert!(
        said.contains("purged ka") && said.contains("purged kl"),
        "{said}"
    );
    assert!(
        stderr(&out).contains("host `h2` is unreachable"),
        "{}",
        stderr(&out)
    );
    assert!(!net.host("h1").sandbox.session_dir("ka").exists());
    assert!(net.local.worker_dirs().is_empty());
    let records = net.local.state.join("remote");
    assert!(!records.join("ka.json").exists());
    assert!(
        records.join("kb.json").exists(),
        "h2's worker is still there"
    );
}

#[test]
fn attach_takes_over_a_remote_workers_pane_through_ssh() {
    let Some(net) = Net::up(1) else {
        return;
    };
    spawn_on(&net, "h1", "at", json!({}), &[]);
    let piped = net.local.run(&["attach", "at"]);
    assert_eq!(piped.status.code(), Some(2), "{}", stderr(&piped));
    assert!(
        stderr(&piped).contains("needs a terminal"),
        "{}",
        stderr(&piped)
    );
    let client =
        rexpect::session::spawn_command(net.local.pty_command(&["attach", "at"]), Some(15_000))
            .expect("start umbel attach in a pty");
    // tmux's status line on h1 names the worker's session.
    crate::attach::detach_from(client, "at");
    let status = json_of(&net.local.run(&["status", "at", "--json"]));
    assert_eq!(status["state"], "ready", "the worker outlives the client");
}
