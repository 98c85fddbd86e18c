//! Many workers, one supervisor: `wait NAME… --any | --all` over workers of each CLI, and the
//! fleet's event stream (`events -f`, `--exec`) checked line by line against the workers' own
//! event logs.

use crate::harness::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Every turn answers `text` after `delay_ms`.
fn slow_reply(text: &str, delay_ms: u64) -> Value {
    json!({ "default": { "reply": text, "delay_ms": delay_ms } })
}

#[test]
fn wait_any_returns_the_first_of_three_clis_to_stop_and_all_the_last() {
    let sb = Sandbox::new();
    sb.spawn_playing("c", slow_reply("claude done", 2500), &[]);
    sb.spawn_playing("x", slow_reply("codex done", 100), &["--provider", "codex"]);
    sb.spawn_playing(
        "g",
        slow_reply("gemini done", 4000),
        &["--provider", "gemini"],
    );
    for name in ["c", "x", "g"] {
        sb.umbel(["send", name, "go"]).success();
    }
    let any = sb.umbel(["wait", "c", "x", "g", "--any", "--timeout", "30s"]);
    any.stdout("x stop\n").success();
    // claude's and gemini's turns are still running: --all ends only after the last of them.
    let all = sb
        .umbel(["wait", "c", "x", "g", "--all", "--json", "--timeout", "30s"])
        .success()
        .json();
    assert_eq!(all["mode"], "all", "{all}");
    let outcomes: Vec<(&str, &str)> = all["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .map(|o| (o["name"].as_str().unwrap(), o["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(outcomes, [("c", "stop"), ("x", "stop"), ("g", "stop")]);
    for name in ["c", "g"] {
        let status = sb.umbel(["status", name, "--json"]).json();
        assert!(status.get("turnEndedAt").is_some(), "{name}: {status}");
    }
}

#[test]
fn wait_over_several_workers_takes_positions_and_reports_the_worst_outcome() {
    let sb = Sandbox::new();
    sb.spawn_playing("ok", sim::reply("fine"), &[]);
    sb.spawn_playing("bad", sim::crash("bye", 3), &[]);
    let ok = sb.umbel(["send", "ok", "go"]).success().line();
    let bad = sb.umbel(["send", "bad", "go"]).success().line();
    let all = sb
        .umbel(["wait", &format!("ok@{ok}"), &format!("bad@{bad}"), "--all"])
        .status(125);
    let out = all.stdout();
    assert!(
        out.contains("ok stop\n") && out.contains("bad dead\n"),
        "{out}"
    );
    // A position past a turn's end waits for a newer one: nothing comes, so the timeout.
    let past = sb.umbel(["status", "ok", "--json"]).json()["position"].clone();
    let waited = sb
        .umbel([
            "wait",
            &format!("ok@{past}"),
            "--any",
            "--timeout",
            "1s",
            "--json",
        ])
        .status(124)
        .json();
    assert_eq!(waited["outcomes"][0]["outcome"], "timeout", "{waited}");
}

#[test]
fn wait_over_several_workers_refuses_what_only_one_can_do() {
    let sb = Sandbox::new();
    sb.spawn_playing("a", sim::reply("x"), &[]);
    sb.spawn_playing("b", sim::reply("y"), &[]);
    sb.umbel(["wait", "a", "b"])
        .stderr_has("say `--any`")
        .status(2);
    sb.umbel(["wait", "a", "b", "--any", "--accept", "true"])
        .stderr_has("guardrails")
        .status(2);
    sb.umbel(["wait", "a", "b", "--all", "--since", "3"])
        .stderr_has("NAME@POS")
        .status(2);
    sb.umbel(["wait", "a", "a@x", "--all"])
        .stderr_has("`a@x`")
        .status(2);
}

/// `umbel events -f --json …` writing into files, for a test to read while it runs.
struct Stream {
    child: Child,
    out: PathBuf,
    err: PathBuf,
}

impl Stream {
    fn start(sb: &Sandbox, args: &[&str], tag: &str) -> Stream {
        let out = sb.root.join(format!("{tag}.out"));
        let err = sb.root.join(format!("{tag}.err"));
        let mut cmd = sb.process(&[&["events", "-f", "--json"], args].concat());
        cmd.stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
            .stderr(Stdio::from(std::fs::File::create(&err).unwrap()));
        let child = cmd.spawn().expect("start events -f");
        Stream { child, out, err }
    }

    fn lines(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.out).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err).unwrap_or_default()
    }

    /// Waits until at least `n` events are out (and a moment more, for a doubled one to show).
    #[track_caller]
    fn wait_for(&self, n: usize) -> Vec<Value> {
        let reached = eventually(Duration::from_secs(20), || self.lines().len() >= n);
        std::thread::sleep(Duration::from_millis(400));
        let lines = self.lines();
        assert!(reached, "{} of {n} events: {lines:#?}", lines.len());
        lines
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The state changes a claude worker's log holds, as `(event, position)`, derived line by line
/// from `umbel logs --json` and the hook payloads: what `events` must print, each once.
fn expected_from_log(sb: &Sandbox, name: &str) -> Vec<(String, u64)> {
    let log = sb.umbel(["logs", name, "--json"]).success().stdout();
    let mut expected: Vec<(String, u64)> = Vec::new();
    let mut last = String::new();
    for line in log.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        let position = line["position"].as_u64().unwrap() + 1;
        let payload = |field: &str| -> Option<String> {
            let file = sb
                .session_dir(name)
                .join("events")
                .join(line["payload"].as_str()?);
            let value: Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
            value[field].as_str().map(str::to_string)
        };
        let event = match line["event"].as_str().unwrap() {
            "SessionStart" => "ready",
            "UserPromptSubmit" => "submitted",
            "Stop" => "turn-ended",
            "PermissionRequest" => "needs-input",
            "Notification"
                if payload("notification_type").as_deref() == Some("permission_prompt") =>
            {
                "needs-input"
            }
            "PreToolUse" | "PostToolUse" if last == "needs-input" => {
                last = "working".into();
                continue;
            }
            "Exit" => "dead",
            _ => continue,
        };
        if event == last && ["ready", "needs-input", "dead"].contains(&event) {
            continue;
        }
        last = event.to_string();
        expected.push((event.to_string(), position));
    }
    expected
}

fn of_worker<'a>(lines: &'a [Value], name: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["worker"] == name).collect()
}

#[test]
fn events_follow_prints_every_state_change_of_ten_workers_once_in_order() {
    let sb = Sandbox::new();
    let names: Vec<String> = (0..10).map(|i| format!("w{i}")).collect();
    for name in &names[..5] {
        sb.spawn_playing(
            name,
            sim::reply(&format!("{name} says hi\nsecond line")),
            &[],
        );
    }
    let stream = Stream::start(&sb, &[], "all");
    // Workers spawned while it follows.
    for name in &names[5..9] {
        sb.spawn_playing(name, sim::reply(&format!("{name} says hi")), &[]);
    }
    let ask = json!({"turns": [{"reply": "I will run it.", "end": {"permission": {
        "tool": "Bash", "input": {"command": "echo hi"}, "output": "hi"}}}]});
    sb.spawn_playing("w9", ask, &[]);
    for name in &names[..9] {
        sb.umbel(["send", name, "hello"]).success();
    }
    sb.umbel(["send", "w9", "run it"]).success();
    for name in &names[..9] {
        sb.umbel(["wait", name]).success();
    }
    sb.umbel(["wait", "w9"]).status(126);
    sb.umbel(["kill", "w9"]).success();

    let expected: BTreeMap<&str, Vec<(String, u64)>> = names
        .iter()
        .map(|n| (n.as_str(), expected_from_log(&sb, n)))
        .collect();
    // Each worker's log events, plus its `spawned`, and w9's `killed`.
    let total = expected.values().map(|e| e.len() + 1).sum::<usize>() + 1;
    let lines = stream.wait_for(total);
    assert_eq!(lines.len(), total, "none missing, none doubled: {lines:#?}");
    for name in &names {
        let got = of_worker(&lines, name);
        assert_eq!(got[0]["event"], "spawned", "{name}: {got:#?}");
        let from_log: Vec<(String, u64)> = got
            .iter()
            .filter(|l| l["event"] != "spawned" && l["event"] != "killed")
            .map(|l| {
                (
                    l["event"].as_str().unwrap().to_string(),
                    l["position"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(from_log, expected[name.as_str()], "{name}");
        assert!(
            from_log.iter().any(|(e, _)| e == "turn-ended") || name == "w9",
            "{name}: {from_log:?}"
        );
    }
    let w3_end = of_worker(&lines, "w3")
        .into_iter()
        .find(|l| l["event"] == "turn-ended")
        .unwrap();
    assert_eq!(w3_end["outcome"], "stop");
    assert_eq!(w3_end["answer"], "w3 says hi", "the answer's first line");
    let w9 = of_worker(&lines, "w9");
    let asked = w9.iter().find(|l| l["event"] == "needs-input").unwrap();
    assert_eq!(asked["reason"], "permission", "{asked}");
    assert_eq!(w9.last().unwrap()["event"], "killed", "{w9:#?}");
    // Following, each worker's lines come in its own order (the fleet's as they are seen).
    for name in &names {
        let times: Vec<u64> = of_worker(&lines, name)
            .iter()
            .map(|l| l["at"].as_u64().unwrap())
            .collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{name}: {times:?}");
    }
    // The same history without -f, and only the workers named.
    let history = sb
        .umbel(["events", "--json", "w2", "w9"])
        .success()
        .stdout();
    let history: Vec<Value> = history
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        history.len(),
        expected["w2"].len() + expected["w9"].len() + 3
    );
    assert!(
        history
            .iter()
            .all(|l| l["worker"] == "w2" || l["worker"] == "w9")
    );
}

/// A script that records its stdin and environment, one file per call.
fn recorder(sb: &Sandbox, fails_on: &str) -> String {
    let dir = sb.root.join("calls");
    std::fs::create_dir_all(&dir).unwrap();
    format!(
        "f={dir}/$UMBEL_WORKER-$UMBEL_EVENT-$$; cat > \"$f.json\"; \
         printf '%s|%s|%s|%s\\n' \"$UMBEL_EVENT\" \"$UMBEL_WORKER\" \"$UMBEL_OUTCOME\" \"$UMBEL_REASON\" > \"$f.env\"; \
         [ \"$UMBEL_EVENT\" != {fails_on} ]",
        dir = dir.display()
    )
}

fn calls(dir: &Path) -> Vec<(Value, String)> {
    let mut calls = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") {
            let stdin = std::fs::read_to_string(&path).unwrap();
            let env = std::fs::read_to_string(path.with_extension("env")).unwrap_or_default();
            calls.push((serde_json::from_str(&stdin).unwrap(), env));
        }
    }
    calls
}

#[test]
fn events_exec_runs_the_command_once_per_event_with_the_event_on_stdin() {
    let sb = Sandbox::new();
    let command = recorder(&sb, "turn-ended");
    let stream = Stream::start(&sb, &["--exec", &command], "exec");
    sb.spawn_playing("a", sim::reply("alpha"), &[]);
    sb.spawn_playing("b", sim::reply("beta"), &["--provider", "codex"]);
    for name in ["a", "b"] {
        sb.turn(name, "go").success();
    }
    // spawned, ready, submitted, turn-ended each.
    let lines = stream.wait_for(8);
    let dir = sb.root.join("calls");
    assert!(
        eventually(Duration::from_secs(10), || calls(&dir).len() == lines.len()),
        "{} calls for {} events; stderr: {}",
        calls(&dir).len(),
        lines.len(),
        stream.stderr()
    );
    for (stdin, env) in calls(&dir) {
        assert!(
            lines.contains(&stdin),
            "stdin is one of the events: {stdin}"
        );
        let outcome = stdin["outcome"].as_str().unwrap_or("");
        let reason = stdin["reason"].as_str().unwrap_or("");
        let want = format!(
            "{}|{}|{outcome}|{reason}\n",
            stdin["event"].as_str().unwrap(),
            stdin["worker"].as_str().unwrap()
        );
        assert_eq!(env, want);
    }
    let failed = || stream.stderr().matches("turn-ended: exit status 1").count();
    assert!(
        eventually(Duration::from_secs(5), || failed() == 2),
        "each failing command is reported: {}",
        stream.stderr()
    );
    assert!(!stream.stderr().contains("skipped"), "{}", stream.stderr());
}

#[test]
fn a_slow_exec_command_is_ended_and_reported_and_never_holds_up_the_stream() {
    let sb = Sandbox::new();
    let slow = ["--exec", "sleep 5", "--exec-timeout", "1s"];
    let stream = Stream::start(&sb, &slow, "slow");
    let started = Instant::now();
    sb.spawn_playing("a", sim::reply("alpha"), &[]);
    sb.turn("a", "go").success();
    let lines = stream.wait_for(4);
    let events: Vec<&str> = lines.iter().map(|l| l["event"].as_str().unwrap()).collect();
    assert_eq!(events, ["spawned", "ready", "submitted", "turn-ended"]);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the stream went on while the commands ran one after another ({:?})",
        started.elapsed()
    );
    // One command at a time for the worker, each ended at the timeout: all four reported.
    let ended = || {
        stream
            .stderr()
            .matches("still running after 1s: ended")
            .count()
    };
    assert!(
        eventually(Duration::from_secs(15), || ended() == 4),
        "{}",
        stream.stderr()
    );
    for event in events {
        assert!(
            stream
                .stderr()
                .contains(&format!("--exec for `a` {event}:")),
            "{}",
            stream.stderr()
        );
    }
}

/// The threads of a process, from `/proc/PID/status`.
fn threads(pid: u32) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

/// `--exec` runs each worker's commands on a thread of its own, which ends once the worker's
/// events stop: a long-running stream over many short-lived workers (every `-p` is one) does
/// not keep a thread per name it ever saw.
#[test]
fn exec_threads_end_once_their_workers_events_stop() {
    let sb = Sandbox::new();
    let stream = Stream::start(&sb, &["--exec", "true"], "threads");
    let pid = stream.child.id();
    assert!(eventually(Duration::from_secs(10), || threads(pid) > 0));
    std::thread::sleep(Duration::from_millis(500));
    // Settled; one more is allowed for a helper thread started on the first event.
    let quiet = threads(pid) + 1;
    let names: Vec<String> = (0..12).map(|i| format!("t{i}")).collect();
    for name in &names {
        sb.spawn(name, &[]);
    }
    // spawned and ready for each: 24 events, each a command.
    stream.wait_for(24);
    assert!(
        eventually(Duration::from_secs(20), || threads(pid) <= quiet),
        "{} threads, {quiet} before the workers came",
        threads(pid)
    );
    // A worker heard from again gets a thread again, and its command runs.
    sb.turn("t3", "again").success();
    let lines = stream.wait_for(26);
    assert_eq!(lines.len(), 26, "{lines:#?}");
    assert_eq!(stream.stderr(), "");
}

/// Whether process `pid` is still there (and not a zombie).
fn alive_pid(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

/// Ctrl-C on `events -f --exec` ends the commands still running, as their timeout would: none
/// is left behind.
#[test]
fn ctrl_c_on_events_exec_ends_the_commands_it_started() {
    let sb = Sandbox::new();
    let pids = sb.root.join("pids");
    let command = format!("echo $$ >> {}; exec sleep 60", pids.display());
    let stream = sb
        .umbel(["events", "-f", "--exec", &command, "--exec-timeout", "5m"])
        .start();
    sb.spawn("c1", &[]);
    let started = || -> Vec<i32> {
        std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    };
    assert!(eventually(Duration::from_secs(20), || !started().is_empty()));
    let running = started();
    assert!(running.iter().all(|&p| alive_pid(p)), "{running:?}");
    stream.interrupt();
    stream.run();
    assert!(
        eventually(Duration::from_secs(5), || running
            .iter()
            .all(|&p| !alive_pid(p))),
        "left running: {:?}",
        running
            .iter()
            .filter(|&&p| alive_pid(p))
            .collect::<Vec<_>>()
    );
}

/// A worker purged and spawned again under its name while the stream is behind (stopped here,
/// as a loaded machine would hold it): the stream says the old one was killed, then every event
/// of the new one, from its log's first line — not from where the old log had been read to.
#[test]
fn a_worker_purged_and_recreated_while_the_stream_is_behind_loses_no_event() {
    let sb = Sandbox::new();
    sb.spawn_playing("r1", sim::reply("old"), &[]);
    for prompt in ["one", "two", "three"] {
        sb.turn("r1", prompt).success();
    }
    let stream = Stream::start(&sb, &[], "recreated");
    let before = stream.wait_for(1 + expected_from_log(&sb, "r1").len());
    let pid = rustix::process::Pid::from_raw(stream.child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).expect("SIGSTOP");
    sb.umbel(["kill", "r1", "--purge"]).success();
    sb.spawn_playing("r1", sim::reply("new"), &[]);
    sb.turn("r1", "fresh").success();
    let new_log = expected_from_log(&sb, "r1");
    rustix::process::kill_process(pid, rustix::process::Signal::CONT).expect("SIGCONT");
    let lines = stream.wait_for(before.len() + 2 + new_log.len());
    let after: Vec<(String, Option<u64>)> = lines[before.len()..]
        .iter()
        .map(|l| {
            (
                l["event"].as_str().unwrap().to_string(),
                l["position"].as_u64(),
            )
        })
        .collect();
    let mut expected = vec![("killed".to_string(), None), ("spawned".to_string(), None)];
    expected.extend(new_log.into_iter().map(|(e, p)| (e, Some(p))));
    assert_eq!(after, expected, "{lines:#?}");
}
