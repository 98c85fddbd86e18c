//! Workers on other hosts (docs/remote.md), through the remote tier's sshd hosts: `ls` over
//! three hosts × 20 workers (warm connections), the same with one hung host added, and a
//! remote worker's end-of-turn hook → the local `umbel wait` returned.

use crate::harness::assert_success;
use crate::hosts::Net;
use crate::ms;
use crate::perf::Row;
use serde_json::json;
use std::time::{Duration, Instant};

const PER_HOST: usize = 20;
const LS_RUNS: usize = 15;
const TURNS: usize = 30;

/// The remote figures (nothing when this machine has no sshd).
pub fn figures() -> Vec<Row> {
    if !crate::hosts::sshd_available() {
        return Vec::new();
    }
    let mut net = Net::new(3);
    std::thread::scope(|scope| {
        for host in ["h1", "h2", "h3"] {
            let net = &net;
            scope.spawn(move || {
                let h = &net.host(host).sandbox;
                let project = h.project.to_string_lossy().into_owned();
                for n in 0..PER_HOST {
                    let name = format!("{host}-{n}");
                    let out = net
                        .local
                        .run(&["spawn", "--host", host, "--name", &name, "--cwd", &project]);
                    assert_success(&out, "remote spawn");
                }
            });
        }
    });
    let ls = || {
        let mut samples: Vec<Duration> = (0..LS_RUNS)
            .map(|_| {
                let t = Instant::now();
                assert_success(&net.local.run(&["ls", "--json"]), "ls");
                t.elapsed()
            })
            .collect();
        samples.sort();
        samples[samples.len() / 2]
    };
    let warm = ls();
    net.add_silent("hung");
    let ghost = json!({ "name": "ghost", "host": "hung", "createdAt": 1 });
    std::fs::write(net.local.state.join("remote/ghost.json"), ghost.to_string())
        .expect("ghost record");
    let t = Instant::now();
    assert_success(&net.local.run(&["ls", "--json"]), "ls");
    let hung = t.elapsed();
    let _ = std::fs::remove_file(net.local.state.join("remote/ghost.json"));
    println!(
        "remote: ls over 3 hosts × {PER_HOST} workers: median {:.0} ms ({LS_RUNS} runs); with a hung host added (bound 2 × the 2 s connect timeout): {:.2} s",
        ms(warm),
        hung.as_secs_f64()
    );
    let (p50, p99, there) = remote_wait(&net);
    println!(
        "remote: end-of-turn hook on the host → local wait returned, {TURNS} turns: p50 {p50:.1} ms, p99 {p99:.1} ms (the host's own wait, alternating turns: p50 {there:.1} ms)"
    );
    vec![
        Row {
            figure: format!("remote: ls over 3 hosts × {PER_HOST} workers"),
            value: format!("median {:.0} ms", ms(warm)),
            goal: "< 300 ms",
        },
        Row {
            figure: "remote: ls with one hung host".into(),
            value: format!("{:.2} s", hung.as_secs_f64()),
            goal: "≤ its bound (4 s here)",
        },
        Row {
            figure: "remote: end-of-turn hook → local wait returned".into(),
            value: format!("p50 {p50:.1} ms (host's own {there:.1}), p99 {p99:.1} ms"),
            goal: "p50 < 20 ms",
        },
    ]
}

/// p50 and p99 through ssh, and the p50 of the host's own wait on the same worker.
fn remote_wait(net: &Net) -> (f64, f64, f64) {
    let h = &net.host("h1").sandbox;
    let scenario = h.scenario(
        "bench",
        json!({ "default": { "reply": "ok", "delay_ms": 300 } }),
    );
    let project = h.project.to_string_lossy().into_owned();
    let out = net.local.run(&[
        "spawn", "--host", "h1", "--name", "rb", "--cwd", &project, "--env", &scenario,
    ]);
    assert_success(&out, "remote spawn");
    let log = h.session_dir("rb").join("events/log");
    let (mut latencies, mut baseline) = (Vec::new(), Vec::new());
    // Turns alternate between a wait from here (through ssh) and the host's own wait, so the
    // noise of this shared machine hits both alike.
    for i in 0..TURNS * 2 {
        let side = if i % 2 == 0 { &net.local } else { h };
        let took = crate::turn_latency(side, "rb", &log, &format!("turn {i}"));
        match i % 2 {
            0 => latencies.push(took),
            _ => baseline.push(took),
        }
    }
    let pct = |v: &mut Vec<Duration>, p: f64| {
        v.sort();
        ms(v[((v.len() as f64 - 1.0) * p).round() as usize])
    };
    let local = pct(&mut baseline, 0.5);
    (pct(&mut latencies, 0.5), pct(&mut latencies, 0.99), local)
}
