//! `just bench`: umbel's speed figures, measured end to end on the fake claude.
//!
//! 1. Stop hook written → `umbel wait` returned: the hook's own timestamp (in the event log) to
//!    the moment the waiting process exited, over many turns (p50/p99).
//! 2. `umbel -p` wall time ÷ `fake-claude -p` wall time on the same scenario: what driving the
//!    interactive TUI costs over the CLI's own print mode.
//!
//! Figures, not pass/fail: these machines are shared and noisy.

#[path = "../tests/e2e/harness.rs"]
mod harness;

use harness::{Sandbox, assert_success, fake, stdout};
use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const TURNS: usize = 60;
const PRINT_RUNS: usize = 10;

fn main() {
    let sb = Sandbox::new();
    stop_to_wait(&sb);
    print_overhead(&sb);
}

fn stop_to_wait(sb: &Sandbox) {
    // The reply comes 150 ms after the prompt, so `wait` is already blocking when Stop fires.
    let scenario = sb.scenario(
        "bench",
        json!({ "default": { "reply": "ok", "delay_ms": 150 } }),
    );
    sb.spawn("bench", &["--env", &scenario]);
    let log = sb.session_dir("bench").join("events/log");
    let mut latencies = Vec::with_capacity(TURNS);
    for i in 0..TURNS {
        let sent = sb.run(&["send", "bench", &format!("turn {i}")]);
        assert_success(&sent, "send");
        let pos: usize = stdout(&sent).trim().parse().expect("position");
        let out = sb
            .process(&["wait", "bench", "--since", &pos.to_string()])
            .output()
            .expect("wait");
        let returned = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock")
            .as_nanos();
        assert_success(&out, "wait");
        let text = std::fs::read_to_string(&log).expect("event log");
        let stop_ns: u128 = text
            .lines()
            .skip(pos)
            .find_map(|l| {
                let mut f = l.split(' ');
                let ns = f.next()?.parse().ok()?;
                (f.next()? == "Stop").then_some(ns)
            })
            .expect("a Stop line after the send position");
        latencies.push(Duration::from_nanos(
            (returned.saturating_sub(stop_ns)) as u64,
        ));
    }
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "stop→wait latency over {TURNS} turns: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(pct(0.50)),
        ms(pct(0.99)),
        ms(*latencies.last().expect("samples"))
    );
}

fn print_overhead(sb: &Sandbox) {
    let scenario = sb.scenario("print", json!({ "default": { "reply": "Hello." } }));
    let env_arg = scenario.clone();
    let scenario_path = scenario
        .trim_start_matches("UMBEL_SIM_SCENARIO=")
        .to_string();
    let umbel = median(|| {
        let out = sb.run(&["-p", "Say hello", "--env", &env_arg]);
        assert_success(&out, "umbel -p");
    });
    let baseline = median(|| {
        let out = Command::new(fake("fake-claude"))
            .args(["-p", "Say hello"])
            .env_clear()
            .env("HOME", &sb.home)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("UMBEL_SIM_SCENARIO", &scenario_path)
            .current_dir(&sb.project)
            .output()
            .expect("fake-claude -p");
        assert_success(&out, "fake-claude -p");
    });
    println!(
        "print mode over {PRINT_RUNS} runs (median): umbel -p {:.0} ms, fake-claude -p {:.1} ms, ratio {:.1}×, overhead {:.0} ms",
        ms(umbel),
        ms(baseline),
        umbel.as_secs_f64() / baseline.as_secs_f64().max(1e-9),
        ms(umbel.saturating_sub(baseline))
    );
}

fn median(mut run: impl FnMut()) -> Duration {
    let mut samples: Vec<Duration> = (0..PRINT_RUNS)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed()
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
