//! Faults umbel must survive: a killed tmux server, a killed `wait`, racing `send`s.

use crate::harness::*;
use rustix::process::{Pid, Signal, kill_process};
use serde_json::json;

#[test]
fn a_killed_tmux_server_leaves_every_worker_reported_dead_not_hung() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", sim::wedge());
    for name in ["k1", "k2", "k3"] {
        sb.spawn(name, &["--env", &scenario]);
    }
    sb.umbel(["send", "k1", "hang"]).success();
    let servers = sb.tmux_servers();
    assert!(!servers.is_empty(), "found the private tmux server");
    for pid in servers {
        let _ = kill_process(Pid::from_raw(pid).unwrap(), Signal::KILL);
    }
    let started = std::time::Instant::now();
    sb.cmd("wait k1 --timeout 30s --json").status(125);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    for worker in sb.ls() {
        assert_eq!(worker["state"], "dead", "{worker}");
    }
}

/// A user config file the CLI itself would refuse is refused with its place before anything
/// starts (gemini's is JSON with comments, read as gemini reads it).
#[test]
fn an_invalid_user_config_is_refused_with_its_line_and_nothing_starts() {
    for (provider, file, text, place) in [
        (
            "codex",
            ".codex/config.toml",
            "model = \"gpt-user\"\n[projects\n",
            "2:10",
        ),
        (
            "gemini",
            ".gemini/settings.json",
            "{\n  // mine\n  \"a\" 1\n}\n",
            "3:7",
        ),
    ] {
        let sb = Sandbox::new();
        let config = sb.home.join(file);
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        sb.write(&config, text);
        let out = sb
            .cmd(&format!("spawn --name bad --provider {provider} --json"))
            .status(1);
        let text = format!("{}{}", out.stderr(), out.stdout());
        assert!(text.contains("user_config"), "{text}");
        assert!(
            text.contains(&format!("{}:{place}:", config.display())),
            "{text}"
        );
        assert!(sb.tmux_servers().is_empty(), "no tmux server was started");
        assert!(sb.worker_dirs().is_empty());
        assert!(sb.ls().is_empty());
    }
}

#[test]
fn a_hung_tmux_server_does_not_hold_a_wait_past_its_deadline() {
    let sb = Sandbox::new();
    sb.spawn_playing("h1", sim::wedge(), &[]);
    sb.umbel(["send", "h1", "hang"]).success();
    let servers = sb.tmux_servers();
    assert!(!servers.is_empty(), "found the private tmux server");
    for &pid in &servers {
        kill_process(Pid::from_raw(pid).unwrap(), Signal::STOP).unwrap();
    }
    let out = sb.cmd("wait h1 --timeout 2s --json").run();
    for &pid in &servers {
        let _ = kill_process(Pid::from_raw(pid).unwrap(), Signal::CONT);
    }
    // The outcome the caller asked for, not a tmux error after tmux's own bound.
    assert_eq!(out.status.code(), Some(124), "{}", out.stderr());
    let outcome = out.json();
    assert_eq!(outcome["outcome"], "timeout");
    let message = outcome["message"].as_str().unwrap_or_default();
    assert!(message.contains("tmux did not answer"), "{outcome}");
    // Bounded by what the wait had left, not by tmux's own 5 s per call.
    assert!(!message.contains("within 5s"), "{outcome}");
}

#[test]
fn a_wait_killed_and_restarted_with_since_neither_loses_nor_double_counts_a_stop() {
    let sb = Sandbox::new();
    let scenario = json!({ "default": { "reply": "done", "delay_ms": 1500 } });
    sb.spawn_playing("r1", scenario, &[]);
    let pos = sb.umbel(["send", "r1", "work"]).run().line();
    let child = sb.umbel(["wait", "r1", "--since", &pos]).start();
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill();
    // The stop lands while no wait is running; a restarted wait still sees it.
    std::thread::sleep(std::time::Duration::from_millis(2000));
    let outcome = sb
        .umbel(["wait", "r1", "--since", &pos, "--json"])
        .success()
        .json();
    assert_eq!(outcome["outcome"], "stop");
    // Waiting from the returned position does not count the same stop twice.
    let next = outcome["position"].as_u64().unwrap().to_string();
    sb.umbel(["wait", "r1", "--since", &next, "--timeout", "1s"])
        .status(124);
}

#[test]
fn two_sends_racing_on_one_worker_get_one_busy_error() {
    let sb = Sandbox::new();
    let scenario = json!({ "default": { "reply": "ok", "delay_ms": 3000 } });
    sb.spawn_playing("s1", scenario, &["--env", &sb.record_env()]);
    let loser = race(["first", "second"].map(|p| sb.umbel(["send", "s1", p])));
    assert!(loser.stderr().contains("busy"), "{}", loser.stderr());
    sb.cmd("wait s1 --timeout 30s").success();
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
        sb.umbel(["status", "l1", "--json"]).json()["state"],
        "ready"
    );
    sb.turn("l1", "hi").success();
    sb.umbel(["read", "l1"]).stdout("Response to: hi\n").run();
}

/// A waiting `wait` sleeps on the kernel: over two idle seconds it makes a handful of read calls
/// (its slow liveness checks), not one per inotify event of its own reads (the old spin: thousands).
/// A count, not a time: it holds on a loaded machine.
#[test]
fn an_idle_wait_makes_few_read_calls() {
    let sb = Sandbox::new();
    sb.spawn_playing("idle", sim::wedge(), &[]);
    let child = sb.turn("idle", "hang").args(["--timeout", "30s"]).start();
    let io = format!("/proc/{}/io", child.pid());
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
    child.kill();
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
        sb.umbel(&args).stderr_has("too long").status(2);
        assert!(sb.worker_dirs().is_empty(), "{args:?} left a worker");
    }
    sb.spawn("h", &[]);
    sb.umbel(["wait", "h", "--timeout", huge]).status(2);
}

/// `UMBEL_TMUX_SOCKET` takes a plain name: `./default` would be the user's own server.
#[test]
fn a_socket_override_that_is_a_path_is_refused() {
    for bad in ["./default", "../x", "default"] {
        let mut sb = Sandbox::new();
        sb.var("UMBEL_TMUX_SOCKET", bad);
        sb.umbel(["ls"]).stderr_has("UMBEL_TMUX_SOCKET").status(2);
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
    sb.spawn_playing("gone", sim::crash("bye", 3), &[]);
    sb.spawn("bystander", &[]);
    sb.turn("gone", "crash now").status(125);
    let session = umbel::core::name::WorkerName::parse("gone")
        .expect("name")
        .tmux_session();
    let pasted = sandbox_tmux(&sb).paste(&session, "umbel-prompt-gone", b"too late");
    match pasted {
        Err(umbel::core::errors::Error::Dead { name, .. }) => assert_eq!(name, "gone"),
        other => panic!("a paste into a dead pane must fail as dead, got {other:?}"),
    }
    let status = sb.umbel(["status", "bystander", "--json"]).json();
    assert_eq!(
        status["state"], "ready",
        "the tmux server survived: {status}"
    );
    sb.turn("bystander", "still here?").success();
    sb.umbel(["read", "bystander"])
        .stdout("Response to: still here?\n")
        .run();
}

/// claude writes a turn's records a moment after its Stop hook: a `read --all` right after
/// `wait` found the transcript one turn short and listed one answer for two turns (seen on the
/// real claude under load). It now waits for the transcript to catch up with the hooks.
#[test]
fn read_all_waits_for_a_transcript_that_lags_behind_the_hooks() {
    let sb = Sandbox::new();
    sb.spawn("t1", &[]);
    for prompt in ["first", "second"] {
        sb.turn("t1", prompt).success();
    }
    let status = sb.umbel(["status", "t1", "--json"]).json();
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
    let all = sb.cmd("read t1 --all --json").json();
    restore.join().expect("restore thread");
    let answers = answers_of(&all);
    assert_eq!(
        answers,
        ["Response to: first", "Response to: second"],
        "{all}"
    );
}
