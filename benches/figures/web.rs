//! `just bench web`: `umbel serve` with 100 workers.
//!
//! 1. Page load, server time: `GET /` (the fleet page) and `GET /w/NAME` (a worker page with
//!    its turns), request sent → response read from a client on the same machine.
//! 2. Event → browser update: an end-of-turn hook's own time → its SSE message read by a client
//!    of `/events` and the fragment the page script then fetches (`/w/NAME/live`) read.
//! 3. The CPU of `umbel serve` left alone with an event stream open (what a browser tab does).

use crate::events::{last_stop_ns, now_ns, pct};
use crate::harness::Sandbox;
use crate::perf::Row;
use crate::web_client::Server;
use crate::{load, ms};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const WORKERS: usize = 100;
const LOADS: usize = 30;
const TURNS: usize = 30;
const IDLE: Duration = Duration::from_secs(10);

/// Median and p90 of `LOADS` GETs of `path`.
fn page_load(server: &Server, path: &str) -> (Duration, Duration) {
    let mut took = Vec::new();
    for _ in 0..LOADS {
        let t = Instant::now();
        let reply = server.get(path);
        took.push(t.elapsed());
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    }
    (pct(&mut took, 0.5), pct(&mut took, 0.9))
}

/// An open `/events` stream: each message's arrival time, on a channel.
fn stream(server: &Server) -> std::sync::mpsc::Receiver<(u128, Value)> {
    let mut socket = TcpStream::connect(&server.addr).expect("connect");
    let request = format!(
        "GET /events HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\n\r\n",
        server.addr,
        server.cookie()
    );
    socket.write_all(request.as_bytes()).expect("write");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(socket).lines().map_while(Result::ok) {
            if let Some(data) = line.strip_prefix("data:") {
                let event: Value = serde_json::from_str(data.trim()).unwrap_or_default();
                if tx.send((now_ns(), event)).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

/// Hook → SSE message → the worker's fragment fetched.
fn event_to_update(sb: &Sandbox, server: &Server) -> (Duration, Duration) {
    let events = stream(server);
    std::thread::sleep(Duration::from_millis(300));
    let mut took = Vec::new();
    for i in 0..TURNS {
        assert!(
            sb.run(&["send", "e", &format!("turn {i}")])
                .status
                .success()
        );
        loop {
            let (_, event) = events
                .recv_timeout(Duration::from_secs(30))
                .expect("an event");
            if event["worker"] == "e" && event["event"] == "turn-ended" {
                break;
            }
        }
        let reply = server.get("/w/e/live");
        let updated = now_ns();
        assert!(reply.body.contains(&format!("turn {i}")), "{}", reply.body);
        let fired = last_stop_ns(sb, "e");
        took.push(Duration::from_nanos(updated.saturating_sub(fired) as u64));
    }
    (pct(&mut took, 0.5), pct(&mut took, 0.99))
}

/// The share of a core `umbel serve` uses over [`IDLE`] with an event stream open.
fn idle_share(server: &Server) -> f64 {
    let _events = stream(server);
    std::thread::sleep(Duration::from_secs(2));
    let pid = server.child.id() as i32;
    let before = crate::top::cpu_ticks(pid);
    let t = Instant::now();
    std::thread::sleep(IDLE);
    let used = (crate::top::cpu_ticks(pid) - before) as f64 / crate::top::ticks_per_second();
    used / t.elapsed().as_secs_f64()
}

pub fn figures() -> Vec<Row> {
    println!("web (`umbel serve`):");
    let started = Instant::now();
    let sb = load::fleet(WORKERS, 1, 4);
    let scenario = sb.scenario(
        "web",
        json!({ "default": { "reply": "ok", "delay_ms": 100 } }),
    );
    sb.spawn("e", &["--env", &scenario]);
    for i in 0..3 {
        assert!(
            sb.run(&["send", "e", &format!("warm {i}")])
                .status
                .success()
        );
        assert!(sb.run(&["wait", "e"]).status.success());
    }
    println!(
        "  {} workers ready in {:.1} s",
        WORKERS + 1,
        started.elapsed().as_secs_f64()
    );
    let server = Server::start(&sb);
    let (fleet, fleet90) = page_load(&server, "/");
    let (worker, worker90) = page_load(&server, "/w/e");
    println!(
        "  GET / with {} workers: median {:.1} ms, p90 {:.1} ms; GET /w/e: median {:.1} ms, p90 {:.1} ms",
        WORKERS + 1,
        ms(fleet),
        ms(fleet90),
        ms(worker),
        ms(worker90)
    );
    let (p50, p99) = event_to_update(&sb, &server);
    println!(
        "  end-of-turn hook → SSE message → /w/e/live read, {TURNS} turns: p50 {:.1} ms, p99 {:.1} ms",
        ms(p50),
        ms(p99)
    );
    let share = idle_share(&server);
    println!(
        "  `umbel serve` left alone {} s, an event stream open, {} workers: {:.2}% of a core",
        IDLE.as_secs(),
        WORKERS + 1,
        share * 100.0
    );
    let _ = server.stop();
    let _ = sb.run(&["kill", "--all", "--purge"]);
    vec![
        Row {
            figure: format!(
                "web: the fleet page with {} workers, server time (median)",
                WORKERS + 1
            ),
            value: format!("{:.1} ms (p90 {:.1} ms)", ms(fleet), ms(fleet90)),
            goal: "< 100 ms",
        },
        Row {
            figure: "web: end-of-turn hook → browser update (SSE + fragment)".into(),
            value: format!("p50 {:.1} ms, p99 {:.1} ms", ms(p50), ms(p99)),
            goal: "< 200 ms",
        },
        Row {
            figure: "web: CPU of an idle `umbel serve` with a page open".into(),
            value: format!("{:.2}% of a core", share * 100.0),
            goal: "< 1%",
        },
    ]
}
