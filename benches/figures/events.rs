//! `just bench events`: the fleet's event stream and `wait --any`.
//!
//! 1. End-of-turn hook fired → its `turn-ended` line read from `umbel events -f --json`: the
//!    hook's own timestamp (the log line's) to the moment the line arrived, over many turns.
//! 2. `wait --any` over 50 workers (49 in turns that never end): one worker's end-of-turn hook
//!    → the wait exited.
//! 3. The CPU of `umbel events -f` left alone with 100 workers, and of `umbel mcp` with a
//!    resource subscription on each of them.
//! 4. End-of-turn hook fired → `notifications/resources/updated` received by an MCP client
//!    subscribed to the worker's answer.

use crate::harness::Sandbox;
use crate::perf::Row;
use crate::{load, ms};
use rmcp::model::SubscribeRequestParams;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const TURNS: usize = 60;
const ANY_WORKERS: usize = 50;
const ANY_ROUNDS: usize = 8;
const IDLE_WORKERS: usize = 100;
const IDLE: Duration = Duration::from_secs(10);

pub fn now_ns() -> u128 {
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

/// The time (ns) of the last `Stop` line of `name`'s event log (claude's end of turn).
pub fn last_stop_ns(sb: &Sandbox, name: &str) -> u128 {
    let log = std::fs::read_to_string(sb.session_dir(name).join("events/log")).expect("log");
    log.lines()
        .filter(|l| l.split(' ').nth(1) == Some("Stop"))
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .next_back()
        .expect("a Stop line")
}

pub fn pct(samples: &mut [Duration], p: f64) -> Duration {
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

/// Hook → `notifications/resources/updated` at a client subscribed to the worker's answer.
fn hook_to_notification() -> Row {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "s",
        json!({ "default": { "reply": "ok", "delay_ms": 100 } }),
    );
    sb.spawn("n", &["--env", &scenario]);
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let uri = "umbel://workers/n/answer";
    let mut latencies = Vec::new();
    runtime.block_on(async {
        let mcp = crate::mcp_client::Mcp::start(&sb).await;
        #[allow(deprecated)] // resources/subscribe: the protocol rmcp's client speaks
        let subscribed = mcp.client.subscribe(SubscribeRequestParams::new(uri)).await;
        subscribed.expect("resources/subscribe");
        for i in 0..TURNS {
            let heard = || mcp.resources.lock().expect("lock").clone();
            let before = heard().len();
            let sent = tokio::task::block_in_place(|| sb.run(&["send", "n", &format!("turn {i}")]));
            assert!(sent.status.success(), "send");
            let deadline = Instant::now() + Duration::from_secs(30);
            let arrived = loop {
                if let Some((_, at)) = heard().into_iter().skip(before).find(|(u, _)| u == uri) {
                    break at;
                }
                assert!(Instant::now() < deadline, "no notification: {:?}", heard());
                tokio::time::sleep(Duration::from_millis(2)).await;
            };
            let arrived = arrived
                .duration_since(UNIX_EPOCH)
                .expect("clock")
                .as_nanos();
            let fired = last_stop_ns(&sb, "n");
            latencies.push(Duration::from_nanos(arrived.saturating_sub(fired) as u64));
        }
        let _ = mcp.client.cancel().await;
    });
    let _ = sb.run(&["kill", "--all", "--purge"]);
    let (p50, p99) = (pct(&mut latencies, 0.5), pct(&mut latencies, 0.99));
    println!(
        "  end-of-turn hook → MCP resources/updated received, {TURNS} turns: p50 {:.1} ms, p99 {:.1} ms",
        ms(p50),
        ms(p99)
    );
    Row {
        figure: "events: end-of-turn hook → MCP notification received".into(),
        value: format!("p50 {:.1} ms, p99 {:.1} ms", ms(p50), ms(p99)),
        goal: "(no goal)",
    }
}

/// `wait --any` over 50 workers: a turn's end → the wait exited.
fn wait_any() -> Vec<Row> {
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
    // The same wait over the wedged workers alone, left to time out: what it costs meanwhile.
    let mut args = vec!["wait", "--any", "--timeout", "5s"];
    args.extend(targets.iter().map(String::as_str));
    let (wall, usage) = crate::perf::measured(sb.process(&args), None);
    let busy = usage.cpu.as_secs_f64() / wall.as_secs_f64();
    let _ = sb.run(&["kill", "--all", "--purge"]);
    let (p50, max) = (pct(&mut latencies, 0.5), pct(&mut latencies, 1.0));
    println!(
        "  `wait --any` over {} workers whose turns never end, {:.1} s: {:.1}% of a core",
        targets.len(),
        wall.as_secs_f64(),
        busy * 100.0
    );
    println!(
        "  `wait --any` over {ANY_WORKERS} workers, {ANY_ROUNDS} rounds: end-of-turn hook → exited p50 {:.1} ms, max {:.1} ms",
        ms(p50),
        ms(max)
    );
    vec![
        Row {
            figure: format!("events: `wait --any` over {ANY_WORKERS} workers, hook → exited"),
            value: format!("p50 {:.1} ms, max {:.1} ms", ms(p50), ms(max)),
            goal: "(no goal)",
        },
        Row {
            figure: format!(
                "events: CPU of `wait --any` over {} workers in endless turns",
                targets.len()
            ),
            value: format!("{:.1}% of a core", busy * 100.0),
            goal: "(no goal)",
        },
    ]
}

/// The share of a core process `pid` uses over [`IDLE`], after a settling pause.
fn idle_share(pid: i32) -> f64 {
    // Its first look reads every log once: not idle.
    std::thread::sleep(Duration::from_secs(3));
    let before = crate::top::cpu_ticks(pid);
    let t = Instant::now();
    std::thread::sleep(IDLE);
    let used = (crate::top::cpu_ticks(pid) - before) as f64 / crate::top::ticks_per_second();
    used / t.elapsed().as_secs_f64()
}

/// `umbel mcp` with a legacy session subscribed to every worker's status, left alone.
fn idle_mcp(sb: &Sandbox) -> f64 {
    let mut child = sb
        .process(&["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("umbel mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = vec![
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},
            "clientInfo":{"name":"bench","version":"0"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":1,"method":"resources/list"}),
    ];
    for i in 0..IDLE_WORKERS {
        lines.push(
            json!({"jsonrpc":"2.0","id":i + 2,"method":"resources/subscribe",
            "params":{"uri":format!("umbel://workers/w{i}")}}),
        );
    }
    for line in lines {
        writeln!(stdin, "{line}").expect("write to umbel mcp");
    }
    let share = idle_share(child.id() as i32);
    drop(stdin);
    let _ = child.wait();
    share
}

/// `events -f`'s CPU with 100 workers and nothing happening.
fn idle_cpu() -> Vec<Row> {
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
    let share = idle_share(child.id() as i32);
    let _ = child.kill();
    let _ = child.wait();
    let mcp = idle_mcp(&sb);
    let _ = sb.run(&["kill", "--all", "--purge"]);
    println!(
        "  `events -f` left alone {} s with {IDLE_WORKERS} workers: {:.2}% of a core",
        IDLE.as_secs(),
        share * 100.0
    );
    println!(
        "  `umbel mcp` subscribed to {IDLE_WORKERS} workers, left alone {} s: {:.2}% of a core",
        IDLE.as_secs(),
        mcp * 100.0
    );
    vec![
        Row {
            figure: format!("events: CPU of an idle `events -f`, {IDLE_WORKERS} workers"),
            value: format!("{:.2}% of a core", share * 100.0),
            goal: "< 1%",
        },
        Row {
            figure: format!(
                "events: CPU of an idle `umbel mcp` subscribed to {IDLE_WORKERS} workers"
            ),
            value: format!("{:.2}% of a core", mcp * 100.0),
            goal: "< 1%",
        },
    ]
}

pub fn events_figures() -> Vec<Row> {
    println!("events:");
    let mut rows = vec![hook_to_line(), hook_to_notification()];
    rows.extend(wait_any());
    rows.extend(idle_cpu());
    rows
}
