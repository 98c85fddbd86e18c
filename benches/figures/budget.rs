//! `just bench budget`: what holding a worker to its budget costs, on fake-claude.
//!
//! 1. The CPU of a `wait` on a turn whose transcript grows — usage records appended 20 times a
//!    second for 10 s, none crossing — with a token limit (the wait wakes on each write and
//!    reads what was appended) and without one (it does not watch the transcript).
//! 2. A crossing write → the interrupt keys pressed: the bench appends the record that takes
//!    the worker past its limit at t0 (its wall clock), the wait marks the moment its keys
//!    went in (`UMBEL_DEBUG_TIMING`'s `@NS budget: interrupt keys pressed`); the median and
//!    worst over several turns.

use crate::harness::Sandbox;
use crate::perf::{Row, measured};
use serde_json::{Value, json};
use std::io::Write;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const WATCHED: Duration = Duration::from_secs(10);
const WRITES_PER_SECOND: u64 = 20;
const CROSSINGS: usize = 10;

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_nanos()
}

/// A claude assistant record carrying `input` input tokens, under its own message id.
fn usage_record(id: &str, input: u64) -> String {
    json!({
        "type": "assistant",
        "uuid": id,
        "message": {
            "id": id, "model": "claude-opus-5-5", "role": "assistant",
            "content": [{ "type": "text", "text": "…" }],
            "usage": { "input_tokens": input, "output_tokens": 1,
                       "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0 }
        }
    })
    .to_string()
}

fn append(path: &str, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("the transcript");
    writeln!(file, "{line}").expect("append");
}

/// A worker `name` running a turn that never ends; its transcript's path.
fn wedged(sb: &Sandbox, name: &str) -> String {
    let wedge = sb.scenario("wedge", json!({ "default": { "end": "wedge" } }));
    sb.spawn(name, &["--env", &wedge]);
    let sent = sb.run(&["send", name, "never ends"]);
    assert!(sent.status.success(), "send");
    let status: Value =
        serde_json::from_slice(&sb.run(&["status", name, "--json"]).stdout).expect("status");
    status["transcriptPath"]
        .as_str()
        .expect("a transcript")
        .to_string()
}

/// The CPU share of a `wait` while the transcript grows, with `limit` set or not.
fn watch_cpu(sb: &Sandbox, name: &str, limit: bool) -> f64 {
    let path = wedged(sb, name);
    if limit {
        let _ = sb.run(&["budget", name, "--max-tokens", "1000M"]);
    }
    let writer = {
        let path = path.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            let mut i = 0;
            while started.elapsed() < WATCHED {
                append(&path, &usage_record(&format!("msg_bench_{i}"), 10));
                i += 1;
                std::thread::sleep(Duration::from_millis(1000 / WRITES_PER_SECOND));
            }
        })
    };
    let timeout = format!("{}s", WATCHED.as_secs());
    let (wall, usage) = measured(sb.process(&["wait", name, "--timeout", &timeout]), None);
    let _ = writer.join();
    let _ = sb.run(&["kill", name, "--purge"]);
    usage.cpu.as_secs_f64() / wall.as_secs_f64()
}

/// Crossing write → keys pressed, once: a fresh wedged worker, its limit just above what it
/// used, the crossing record appended while its wait runs.
fn one_crossing(sb: &Sandbox, round: usize) -> Duration {
    let name = format!("x{round}");
    let path = wedged(sb, &name);
    let _ = sb.run(&["budget", &name, "--max-tokens", "1000000"]);
    let mut wait = sb.process(&["wait", &name, "--timeout", "30s"]);
    let child = wait
        .env("UMBEL_DEBUG_TIMING", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("wait");
    // The wait is watching once it has looked once; a moment is plenty.
    std::thread::sleep(Duration::from_millis(300));
    let t0 = now_ns();
    append(
        &path,
        &usage_record(&format!("msg_cross_{round}"), 2_000_000),
    );
    let out = child.wait_with_output().expect("wait ended");
    let err = String::from_utf8_lossy(&out.stderr);
    let pressed: u128 = err
        .lines()
        .find_map(|l| {
            let rest = l.strip_prefix("umbel: timing @")?;
            let (ns, step) = rest.split_once(' ')?;
            (step == "budget: interrupt keys pressed").then(|| ns.parse().ok())?
        })
        .unwrap_or_else(|| panic!("no keys pressed: {err}"));
    let _ = sb.run(&["kill", &name, "--purge"]);
    Duration::from_nanos(pressed.saturating_sub(t0) as u64)
}

pub fn figures() -> Vec<Row> {
    let sb = Sandbox::new();
    let watched = watch_cpu(&sb, "watched", true);
    let unwatched = watch_cpu(&sb, "unwatched", false);
    let mut latencies: Vec<Duration> = (0..CROSSINGS).map(|i| one_crossing(&sb, i)).collect();
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    let worst = latencies[latencies.len() - 1];
    println!(
        "budget (fake-claude): CPU of a wait while its transcript takes {WRITES_PER_SECOND} writes/s: {:.2}% of a core with a token limit, {:.2}% without; crossing write → interrupt keys: median {:.1} ms, worst {:.1} ms over {CROSSINGS}",
        watched * 100.0,
        unwatched * 100.0,
        crate::ms(median),
        crate::ms(worst),
    );
    vec![
        Row {
            figure: "budget: CPU of a wait watching usage (20 writes/s)".into(),
            value: format!(
                "{:.2}% of a core (without a limit {:.2}%)",
                watched * 100.0,
                unwatched * 100.0
            ),
            goal: "< 2%",
        },
        Row {
            figure: "budget: crossing write → interrupt keys (fake-claude)".into(),
            value: format!(
                "median {:.1} ms, worst {:.1} ms",
                crate::ms(median),
                crate::ms(worst)
            ),
            goal: "< 50 ms",
        },
    ]
}
