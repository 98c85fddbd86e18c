//! Faults umbel must survive: a killed tmux server, a killed `wait`, racing `send`s.

use crate::harness::*;
use rustix::process::{Pid, Signal, kill_process};
use serde_json::json;

#[test]
fn a_killed_tmux_server_leaves_every_worker_reported_dead_not_hung() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", json!({ "default": { "end": "wedge" } }));
    for name in ["k1", "k2", "k3"] {
        sb.spawn(name, &["--env", &scenario]);
    }
    assert_success(&sb.run(&["send", "k1", "hang"]), "send");
    let servers = sb.tmux_servers();
    assert!(!servers.is_empty(), "found the private tmux server");
    for pid in servers {
        let _ = kill_process(Pid::from_raw(pid).unwrap(), Signal::KILL);
    }
    let started = std::time::Instant::now();
    let out = sb.run(&["wait", "k1", "--timeout", "30s", "--json"]);
    assert_eq!(out.status.code(), Some(125), "{}", stderr(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    for worker in sb.ls() {
        assert_eq!(worker["state"], "dead", "{worker}");
    }
}

#[test]
fn an_invalid_codex_config_is_refused_with_its_line_and_nothing_starts() {
    let sb = Sandbox::new();
    let config = sb.home.join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "model = \"gpt-user\"\n[projects\n").unwrap();
    let out = sb.run(&["spawn", "--name", "bad", "--provider", "codex", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = format!("{}{}", stderr(&out), String::from_utf8_lossy(&out.stdout));
    assert!(text.contains("user_config"), "{text}");
    assert!(
        text.contains(&format!("{}:2:10:", config.display())),
        "{text}"
    );
    assert!(sb.tmux_servers().is_empty(), "no tmux server was started");
    assert!(sb.worker_dirs().is_empty());
    assert!(sb.ls().is_empty());
}

#[test]
fn a_hung_tmux_server_does_not_hold_a_wait_past_its_deadline() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", json!({ "default": { "end": "wedge" } }));
    sb.spawn("h1", &["--env", &scenario]);
    assert_success(&sb.run(&["send", "h1", "hang"]), "send");
    let servers = sb.tmux_servers();
    assert!(!servers.is_empty(), "found the private tmux server");
    for &pid in &servers {
        kill_process(Pid::from_raw(pid).unwrap(), Signal::STOP).unwrap();
    }
    let out = sb.run(&["wait", "h1", "--timeout", "2s", "--json"]);
    for &pid in &servers {
        let _ = kill_process(Pid::from_raw(pid).unwrap(), Signal::CONT);
    }
    // The outcome the caller asked for, not a tmux error after tmux's own bound.
    assert_eq!(out.status.code(), Some(124), "{}", stderr(&out));
    let outcome = json_of(&out);
    assert_eq!(outcome["outcome"], "timeout");
    let message = outcome["message"].as_str().unwrap_or_default();
    assert!(message.contains("tmux did not answer"), "{outcome}");
    // Bounded by what the wait had left, not by tmux's own 5 s per call.
    assert!(!message.contains("within 5s"), "{outcome}");
}

#[test]
fn a_wait_killed_and_restarted_with_since_neither_loses_nor_double_counts_a_stop() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "s",
        json!({ "default": { "reply": "done", "delay_ms": 1500 } }),
    );
    sb.spawn("r1", &["--env", &scenario]);
    let pos = stdout(&sb.run(&["send", "r1", "work"])).trim().to_string();
    let child = sb
        .process(&["wait", "r1", "--since", &pos])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    kill_process(Pid::from_raw(child.id() as i32).unwrap(), Signal::KILL).unwrap();
    let _ = child.wait_with_output();
    // The stop lands while no wait is running; a restarted wait still sees it.
    std::thread::sleep(std::time::Duration::from_millis(2000));
    let out = sb.run(&["wait", "r1", "--since", &pos, "--json"]);
    assert_success(&out, "restarted wait");
    let outcome = json_of(&out);
    assert_eq!(outcome["outcome"], "stop");
    // Waiting from the returned position does not count the same stop twice.
    let next = outcome["position"].as_u64().unwrap().to_string();
    let again = sb.run(&["wait", "r1", "--since", &next, "--timeout", "1s"]);
    assert_eq!(again.status.code(), Some(124));
}

#[test]
fn two_sends_racing_on_one_worker_get_one_busy_error() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "s",
        json!({ "default": { "reply": "ok", "delay_ms": 3000 } }),
    );
    sb.spawn("s1", &["--env", &scenario, "--env", &sb.record_env()]);
    let children: Vec<_> = ["first", "second"]
        .iter()
        .map(|p| sb.process(&["send", "s1", p]).spawn().unwrap())
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let codes: Vec<_> = outputs.iter().map(|o| o.status.code()).collect();
    assert!(
        codes.contains(&Some(0)) && codes.contains(&Some(1)),
        "{codes:?}"
    );
    let loser = outputs.iter().find(|o| !o.status.success()).unwrap();
    assert!(stderr(loser).contains("busy"), "{}", stderr(loser));
    assert_success(&sb.run(&["wait", "s1", "--timeout", "30s"]), "wait");
    assert_eq!(
        sb.received().len(),
        1,
        "exactly one prompt reached the worker"
    );
}

#[test]
fn umbel_works_without_a_locale() {
    // Without LANG, tmux rewrote the tabs in its -F output and every pane read as gone.
    let mut sb = Sandbox::new();
    sb.unset("LANG");
    sb.spawn("l1", &[]);
    assert_eq!(
        json_of(&sb.run(&["status", "l1", "--json"]))["state"],
        "ready"
    );
    assert_success(&sb.run(&["send", "l1", "hi"]), "send");
    assert_success(&sb.run(&["wait", "l1"]), "wait");
    assert_eq!(stdout(&sb.run(&["read", "l1"])), "Response to: hi\n");
}

/// A waiting `wait` sleeps on the kernel: over two idle seconds it makes a handful of read calls
/// (its slow liveness checks), not one per inotify event of its own reads (the old spin: thousands).
/// A count, not a time: it holds on a loaded machine.
#[test]
fn an_idle_wait_makes_few_read_calls() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", serde_json::json!({ "default": { "end": "wedge" } }));
    sb.spawn("idle", &["--env", &scenario]);
    assert_success(&sb.run(&["send", "idle", "hang"]), "send");
    let mut child = sb
        .process(&["wait", "idle", "--timeout", "30s"])
        .spawn()
        .expect("wait");
    let io = format!("/proc/{}/io", child.id());
    let reads = || -> u64 {
        let text = std::fs::read_to_string(&io).expect("read /proc/PID/io");
        text.lines()
            .find_map(|l| l.strip_prefix("syscr: "))
            .and_then(|n| n.trim().parse().ok())
            .expect("syscr")
    };
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let before = reads();
    std::thread::sleep(std::time::Duration::from_millis(2000));
    let during = reads() - before;
    let _ = child.kill();
    let _ = child.wait();
    assert!(during < 300, "{during} read calls in 2 idle seconds");
}

/// A duration too large to add to a clock is a usage error naming the flag, before anything
/// starts: no panic (exit 101), no orphan worker.
#[test]
fn a_huge_duration_is_refused_before_anything_starts() {
    let sb = Sandbox::new();
    let huge = "18446744073709551615s";
    for args in [
        vec!["-p", "hi", "--timeout", huge],
        vec!["spawn", "--name", "h", "--startup-timeout", huge],
    ] {
        let out = sb.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("too long"), "{}", stderr(&out));
        assert!(sb.worker_dirs().is_empty(), "{args:?} left a worker");
    }
    sb.spawn("h", &[]);
    let out = sb.run(&["wait", "h", "--timeout", huge]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `UMBEL_TMUX_SOCKET` takes a plain name: `./default` would be the user's own server.
#[test]
fn a_socket_override_that_is_a_path_is_refused() {
    for bad in ["./default", "../x", "default"] {
        let mut sb = Sandbox::new();
        sb.var("UMBEL_TMUX_SOCKET", bad);
        let out = sb.run(&["ls"]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("UMBEL_TMUX_SOCKET"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_command_meeting_an_exiting_tmux_server_is_retried() {
    // Killing the last session makes the server exit; a client arriving meanwhile used to fail
    // with "server exited unexpectedly" (seen when `-p` runs back to back).
    let sb = Sandbox::new();
    let tmux = sandbox_tmux(&sb);
    let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    for round in 0..40 {
        tmux.run(
            &args(&["new-session", "-d", "-s", "race", "sleep 30"]),
            None,
        )
        .unwrap_or_else(|e| panic!("round {round}: {e}"));
        tmux.kill_session("race").expect("kill-session");
    }
}

/// A worker's CLI that ends between `send`'s liveness check and its paste leaves a dead pane
/// (remain-on-exit): tmux 3.3a's server segfaults on `paste-buffer` into a dead pane, and every
/// worker on it dies (the soak lost 6 to 29 workers at a time so). The paste must fail as `dead`
/// and leave the server, and the other workers, alone. `send` itself checks first, so this plays
/// the race's losing side with umbel's own tmux adapter.
#[test]
fn a_paste_into_a_pane_that_just_died_fails_alone_and_keeps_the_tmux_server() {
    let sb = Sandbox::new();
    let crash = sb.scenario(
        "c",
        json!({ "default": { "reply": "bye", "end": { "crash": 3 } } }),
    );
    sb.spawn("gone", &["--env", &crash]);
    sb.spawn("bystander", &[]);
    assert_success(&sb.run(&["send", "gone", "crash now"]), "send");
    assert_eq!(sb.run(&["wait", "gone"]).status.code(), Some(125));
    let session = umbel::core::name::WorkerName::parse("gone")
        .expect("name")
        .tmux_session();
    let pasted = sandbox_tmux(&sb).paste(&session, "umbel-prompt-gone", b"too late");
    match pasted {
        Err(umbel::core::errors::Error::Dead { name, .. }) => assert_eq!(name, "gone"),
        other => panic!("a paste into a dead pane must fail as dead, got {other:?}"),
    }
    let status = json_of(&sb.run(&["status", "bystander", "--json"]));
    assert_eq!(
        status["state"], "ready",
        "the tmux server survived: {status}"
    );
    assert_success(&sb.run(&["send", "bystander", "still here?"]), "send");
    assert_success(&sb.run(&["wait", "bystander"]), "wait");
    assert_eq!(
        stdout(&sb.run(&["read", "bystander"])),
        "Response to: still here?\n"
    );
}

/// claude writes a turn's records a moment after its Stop hook: a `read --all` right after
/// `wait` found the transcript one turn short and listed one answer for two turns (seen on the
/// real claude under load). It now waits for the transcript to catch up with the hooks.
#[test]
fn read_all_waits_for_a_transcript_that_lags_behind_the_hooks() {
    let sb = Sandbox::new();
    sb.spawn("t1", &[]);
    for prompt in ["first", "second"] {
        assert_success(&sb.run(&["send", "t1", prompt]), "send");
        assert_success(&sb.run(&["wait", "t1"]), "wait");
    }
    let status = json_of(&sb.run(&["status", "t1", "--json"]));
    let path = status["transcriptPath"]
        .as_str()
        .expect("transcript")
        .to_string();
    let whole = std::fs::read_to_string(&path).expect("transcript");
    // The transcript as it was before the CLI wrote the second turn.
    let second = whole.find("\"second\"").expect("the second prompt");
    let cut = whole[..second].rfind('\n').map_or(0, |i| i + 1);
    std::fs::write(&path, &whole[..cut]).expect("cut");
    let restore = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(500));
        std::fs::write(&path, whole).expect("restore");
    });
    let all = json_of(&sb.run(&["read", "t1", "--all", "--json"]));
    restore.join().expect("restore thread");
    let answers = answers_of(&all);
    assert_eq!(
        answers,
        ["Response to: first", "Response to: second"],
        "{all}"
    );
}
