//! `just bench events`: the fleet's event stream and `wait --any`.
//!
//! 1. End-of-turn hook fired → its `turn-ended` line read from `umbel events -f --json`: the
//!    hook's own timestamp (the log line's) to the moment the line arrived, over many turns.
//! 2. `wait --any` over 50 workers (49 in turns that never end): one worker's end-of-turn hook
//!    → the wait exited.
//! 3. The CPU of `umbel events -f` left alone with 100 workers.

use crate::harness::Sandbox;
use crate::perf::Row;
use crate::{load, ms};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const TURNS: usize = 60;
const ANY_WORKERS: usize = 50;
const ANY_ROUNDS: usize = 8;
const IDLE_WORKERS: usize = 100;
const IDLE: Duration = Duration::from_secs(10);

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_nanos()
}

/// The time (ns) of line `position - 1` of `name`'s event log.
fn hook_ns(sb: &Sandbox, name: &str, position: usize) -> u128 {
    let log = std::fs::read_to_string(sb.session_dir(name).join("events/log")).expect("log");
    let line = log.lines().nth(position - 1).expect("the line");
    line.split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("ns")
}

fn pct(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

/// Hook → `events -f` line.
fn hook_to_line() -> Row {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "s",
        json!({ "default": { "reply": "ok", "delay_ms": 100 } }),
    );
    sb.spawn("e", &["--env", &scenario]);
    let mut child = sb
        .process(&["events", "-f", "--json"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("events -f");
    let (tx, rx) = channel::<(u128, Value)>();
    let out = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let event: Value = serde_json::from_str(&line).expect("json");
            if tx.send((now_ns(), event)).is_err() {
                return;
            }
        }
    });
    let mut latencies = Vec::new();
    for i in 0..TURNS {
        let sent = sb.run(&["send", "e", &format!("turn {i}")]);
        assert!(sent.status.success(), "send");
        loop {
            let (arrived, event) = rx.recv_timeout(Duration::from_secs(30)).expect("an event");
            if event["event"] == "turn-ended" {
                let position = event["position"].as_u64().expect("position") as usize;
                let fired = hook_ns(&sb, "e", position);
                latencies.push(Duration::from_nanos(arrived.saturating_sub(fired) as u64));
                break;
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let (p50, p99) = (pct(&mut latencies, 0.5), pct(&mut latencies, 0.99));
    println!(
        "  end-of-turn hook → `events -f` line, {TURNS} turns: p50 {:.1} ms, p99 {:.1} ms",
        ms(p50),
        ms(p99)
    );
    Row {
        figure: "events: end-of-turn hook → event line printed".into(),
        value: format!("p50 {:.1} ms, p99 {:.1} ms", ms(p50), ms(p99)),
        goal: "p50 < 5 ms",
    }
}

/// `wait --any` over 50 workers: a turn's end → the wait exited.
fn wait_any() -> Row {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "s",
        json!({ "turns": [
            { "match": "never", "end": "wedge" },
            { "match": "quick", "reply": "ok", "delay_ms": 300 }
        ] }),
    );
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (sb, scenario) = (&sb, &scenario);
            scope.spawn(move || {
                for i in (t..ANY_WORKERS).step_by(4) {
                    sb.spawn(&format!("a{i}"), &["--env", scenario]);
                }
            });
        }
    });
    let mut targets: Vec<String> = Vec::new();
    for i in ANY_ROUNDS..ANY_WORKERS {
        let name = format!("a{i}");
        let pos = String::from_utf8_lossy(&sb.run(&["send", &name, "never"]).stdout)
            .trim()
            .to_string();
        targets.push(format!("{name}@{pos}"));
    }
    let mut latencies = Vec::new();
    for round in 0..ANY_ROUNDS {
        let name = format!("a{round}");
        let sent = sb.run(&["send", &name, "quick"]);
        let pos = String::from_utf8_lossy(&sent.stdout).trim().to_string();
        let mut args = vec!["wait".to_string(), "--any".into(), format!("{name}@{pos}")];
        args.extend(targets.iter().cloned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = sb.process(&args).output().expect("wait --any");
        let exited = now_ns();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{name} stop\n")
        );
        let status = sb.run(&["status", &name, "--json"]);
        let status: Value = serde_json::from_slice(&status.stdout).expect("status");
        let fired = hook_ns(
            &sb,
            &name,
            status["position"].as_u64().expect("position") as usize,
        );
        latencies.push(Duration::from_nanos(exited.saturating_sub(fired) as u64));
    }
    let _ = sb.run(&["kill", "--all", "--purge"]);
    let (p50, max) = (pct(&mut latencies, 0.5), pct(&mut latencies, 1.0));
    println!(
        "  `wait --any` over {ANY_WORKERS} workers, {ANY_ROUNDS} rounds: end-of-turn hook → exited p50 {:.1} ms, max {:.1} ms",
        ms(p50),
        ms(max)
    );
    Row {
        figure: format!("events: `wait --any` over {ANY_WORKERS} workers, hook → exited"),
        value: format!("p50 {:.1} ms, max {:.1} ms", ms(p50), ms(max)),
        goal: "(no goal)",
    }
}

/// `events -f`'s CPU with 100 workers and nothing happening.
fn idle_cpu() -> Row {
    let started = Instant::now();
    let sb = load::fleet(IDLE_WORKERS, 1, 4);
    println!(
        "  {IDLE_WORKERS} workers ready in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut child = sb
        .process(&["events", "-f"])
        .stdout(Stdio::null())
        .spawn()
        .expect("events -f");
    // Its first look reads every log once: not idle.
    std::thread::sleep(Duration::from_secs(3));
    let pid = child.id() as i32;
    let before = crate::top::cpu_ticks(pid);
    let t = Instant::now();
    std::thread::sleep(IDLE);
    let used = (crate::top::cpu_ticks(pid) - before) as f64 / crate::top::ticks_per_second();
    let share = used / t.elapsed().as_secs_f64();
    let _ = child.kill();
    let _ = child.wait();
    let _ = sb.run(&["kill", "--all", "--purge"]);
    println!(
        "  `events -f` left alone {} s with {IDLE_WORKERS} workers: {:.2}% of a core",
        IDLE.as_secs(),
        share * 100.0
    );
    Row {
        figure: format!("events: CPU of an idle `events -f`, {IDLE_WORKERS} workers"),
        value: format!("{:.2}% of a core", share * 100.0),
        goal: "< 1%",
    }
}

pub fn events_figures() -> Vec<Row> {
    println!("events:");
    vec![hook_to_line(), wait_any(), idle_cpu()]
}
