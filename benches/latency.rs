//! `just bench`: umbel's speed figures, measured end to end on the fake CLIs, per provider.
//!
//! 1. Stop hook written → `umbel wait` returned: the hook's own timestamp (in the event log) to
//!    the moment the waiting process exited, over many turns (p50/p99).
//! 2. `umbel -p` wall time ÷ the fake's own print mode on the same scenario: what driving the
//!    interactive TUI costs over the CLI's print mode.
//! 3. Fleet: 50 workers of mixed providers × 3 turns, wall time, and the peak RSS of any umbel
//!    process involved.
//! 4. MCP: the idle `umbel mcp` server's RSS, and a tool call's latency against the same CLI verb.
//! 5. Workflow: a two-wave `umbel run` — how much its first wave overlaps, and what the runner
//!    adds over the steps' own critical path.
//! 6. Guardrails: a send+wait turn plain, with an `--accept` check that passes, and with one
//!    rejection (feedback sent, a second answer checked).
//! 7. Turns: parsing every turn (with its tool actions) of a long recorded-shape transcript, as
//!    `read --all`, `actions` and `diff` do.
//! 8. (figures/perf.rs) CPU of an idle `wait` and `logs -f`, `-p` on a one-second turn,
//!    `read --all` / `--turn 1` on a 100 MB transcript, 100 sequential spawns; then one summary
//!    table of every figure with its goal.
//!    `status`, `ls` and `wait` on a worker with a 100 MB event log (`status-biglog`).
//! 9. (figures/soak.rs) The soak: 50 mixed workers × 5 turns with `prune`, `status` and seeded
//!    `kill`s running alongside; lost and crossed turns, and processes left after `kill --all`.
//! 10. (figures/top.rs) `umbel top` with 100 workers: frame draw time, a look at the fleet, and
//!     the CPU of the live view left alone.
//! 11. (figures/remote.rs) Workers on other hosts through sshd: `ls` over 3 hosts × 20
//!     workers, with a hung host, and a remote end-of-turn hook → the local wait returned.
//! 12. `run --check` on workflows of 1 000 and 10 000 steps (ten workers, each step needing the
//!     one before and using its answer and the first step's): the time of each and their ratio
//!     (linear: about 10).
//! 13. (figures/real_clis.rs, only as `just bench real`) The same figures on the real CLIs
//!     (pinned releases against `fake-model`): spawn, send, hook → wait, `-p` against each
//!     CLI's own print mode, and where a cold `-p` spends its time.
//! 14. (figures/events.rs) The fleet's event stream: end-of-turn hook → `events -f` line,
//!     end-of-turn hook → MCP `resources/updated` received, `wait --any` over 50 workers (hook →
//!     exited, and its CPU), idle `events -f` and subscribed `umbel mcp` CPU with 100 workers.
//! 15. (figures/park.rs) Park: the memory a park frees (the worker's process-tree RSS before and
//!     after), `umbel resume` → ready, a parked worker's bytes on disk; `park` on the fakes,
//!     `park-real` (only when named) on the real CLIs.
//! 16. (figures/acp.rs) `umbel acp`: the CLI's transcript write → the editor's first message
//!     chunk, the last chunk → the prompt's `stopReason`, and an idle `umbel acp`'s CPU.
//! 17. (figures/loaded.rs, only as `just bench load`) The latency rows on the six fakes, idle
//!     and beside two busy processes the bench starts itself, side by side.
//!
//! 18. (figures/web.rs) `umbel serve` with 100 workers: page load (server time), end-of-turn
//!     hook → browser update (SSE message and the fragment fetched), idle CPU with a page open.
//!
//! Figures, not pass/fail: these machines are shared and noisy.

#[path = "../tests/e2e/acp.rs"]
#[allow(dead_code, unused_imports)]
mod acp;
#[path = "figures/acp.rs"]
mod acp_figures;
#[path = "figures/budget.rs"]
mod budget;
#[path = "figures/events.rs"]
mod events;
#[path = "../tests/e2e/harness/mod.rs"]
mod harness;
#[allow(dead_code)]
#[path = "../tests/e2e/remote/hosts.rs"]
mod hosts;
#[path = "../tests/e2e/load.rs"]
mod load;
#[path = "figures/loaded.rs"]
mod loaded;
#[allow(dead_code)]
#[path = "../tests/e2e/mcp/client.rs"]
mod mcp_client;
#[path = "figures/park.rs"]
mod park;
#[path = "figures/perf.rs"]
mod perf;
#[path = "../tests/e2e/real.rs"]
#[allow(dead_code)]
mod real;
#[path = "figures/real_clis.rs"]
mod real_clis;
#[path = "figures/remote.rs"]
mod remote;
#[path = "figures/soak.rs"]
mod soak;
#[path = "figures/top.rs"]
mod top;
#[allow(dead_code)]
#[path = "../tests/e2e/top_pane.rs"]
mod top_pane;
#[path = "figures/web.rs"]
mod web;
#[allow(dead_code)]
#[path = "../tests/e2e/web_client.rs"]
mod web_client;

use harness::{Sandbox, assert_success, stdout};
use serde_json::json;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const TURNS: usize = 60;
const PRINT_RUNS: usize = 10;

const PROVIDERS: [(&str, &str, &[&str]); 3] = [
    ("claude", "fake-claude", &["-p"]),
    ("codex", "fake-codex", &["exec", "--skip-git-repo-check"]),
    ("gemini", "fake-gemini", &["--skip-trust", "-p"]),
];

fn main() {
    // Started again by `perf::measured` as the parent of one measured command.
    if perf::measure_if_asked() {
        return;
    }
    // `cargo bench` passes `--bench`; a name filter picks providers.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    // First: its peak RSS is that of any child process so far (getrusage(RUSAGE_CHILDREN)),
    // and before the other parts the only children are the umbel CLI processes of the fleet.
    let mut rows = Vec::new();
    if only.is_empty() || only.iter().any(|o| o == "fleet") {
        let started = Instant::now();
        let sb = load::fleet(50, 3, 4);
        let wall = started.elapsed();
        let _ = sb.run(&["kill", "--all", "--purge"]);
        std::thread::sleep(Duration::from_millis(500));
        println!(
            "fleet: 50 mixed workers × 3 turns (spawn, send, wait, read) in {:.1} s; peak RSS of an umbel CLI process {} KiB; processes left after kill: {}",
            wall.as_secs_f64(),
            peak_child_rss_kib(),
            load::worker_processes(&sb).len()
        );
    }
    // `load` and `real` take the provider names for their own rows.
    let own_rows = only.iter().any(|o| o == "load" || o == "real");
    for (provider, fake_bin, print_args) in PROVIDERS {
        if own_rows || (!only.is_empty() && !only.iter().any(|o| o == provider)) {
            continue;
        }
        let sb = Sandbox::new();
        println!("{provider}:");
        rows.push(stop_to_wait(&sb, provider));
        print_overhead(&sb, provider, fake_bin, print_args);
        rows.push(perf::print_ratio_1s(
            &sb, provider, fake_bin, print_args, PRINT_RUNS,
        ));
        rows.extend(perf::idle_cpu(&sb, provider));
        rows.push(perf::warm_print(&sb, provider, fake_bin, print_args));
    }
    if only.is_empty() || only.iter().any(|o| o == "read") {
        rows.extend(perf::read_100mb(&Sandbox::new()));
    }
    if only.is_empty() || only.iter().any(|o| o == "status-biglog") {
        rows.extend(perf::status_biglog(&Sandbox::new()));
    }
    if only.is_empty() || only.iter().any(|o| o == "spawn") {
        rows.push(perf::spawn_rate(&Sandbox::new()));
    }
    if only.is_empty() || only.iter().any(|o| o == "top") {
        rows.extend(top::top_figures());
    }
    if only.is_empty() || only.iter().any(|o| o == "events") {
        rows.extend(events::events_figures());
    }
    if only.is_empty() || only.iter().any(|o| o == "soak") {
        rows.push(soak::soak());
    }
    if only.is_empty() || only.iter().any(|o| o == "workflow") {
        workflow_figures();
    }
    if only.is_empty() || only.iter().any(|o| o == "check") {
        check_figures();
    }
    if only.is_empty() || only.iter().any(|o| o == "mcp") {
        mcp_figures();
    }
    if only.is_empty() || only.iter().any(|o| o == "guard") {
        guard_figures();
    }
    if only.is_empty() || only.iter().any(|o| o == "turns") {
        turns_figures();
    }
    if only.is_empty() || only.iter().any(|o| o == "remote") {
        rows.extend(remote::figures());
    }
    if only.is_empty() || only.iter().any(|o| o == "acp") {
        rows.extend(acp_figures::figures());
    }
    if only.is_empty() || only.iter().any(|o| o == "budget") {
        rows.extend(budget::figures());
    }
    if only.is_empty() || only.iter().any(|o| o == "park") {
        rows.extend(park::fake_figures());
    }
    if only.is_empty() || only.iter().any(|o| o == "web") {
        rows.extend(web::figures());
    }
    // Only when asked for: minutes of turns, half of them beside busy processes.
    if only.iter().any(|o| o == "load") {
        rows.extend(loaded::figures(&only));
    }
    // Only when asked for: it needs the real CLIs (npm) and takes minutes.
    if only.iter().any(|o| o == "real") {
        rows.extend(real_clis::figures(&only));
    }
    if only.iter().any(|o| o == "park-real") {
        rows.extend(park::real_figures());
    }
    perf::print_summary(&rows);
}

fn mcp_figures() {
    let sb = Sandbox::new();
    sb.spawn("m", &[]);
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    runtime.block_on(async {
        let mcp = mcp_client::Mcp::start(&sb).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let rss = server_rss_kib(&sb).map_or("?".to_string(), |k| format!("{:.1} MB", k as f64 / 1024.0));
        let mut via_mcp = Vec::new();
        for _ in 0..PRINT_RUNS * 3 {
            let t = Instant::now();
            mcp.ok("umbel_status", serde_json::json!({ "name": "m" })).await;
            via_mcp.push(t.elapsed());
        }
        let mut via_cli = Vec::new();
        for _ in 0..PRINT_RUNS * 3 {
            let t = Instant::now();
            assert_success(&sb.run(&["status", "m", "--json"]), "status");
            via_cli.push(t.elapsed());
        }
        // The verb itself, called in this process: what the MCP layer adds is the difference.
        let ctx = umbel::operations::Ctx::from_env(sb.env()).expect("context");
        let args = umbel::core::args::StatusArgs {
            name: Some("m".into()),
        };
        let mut direct = Vec::new();
        for _ in 0..PRINT_RUNS * 3 {
            let t = Instant::now();
            umbel::operations::status::status(&ctx, &args).expect("status");
            direct.push(t.elapsed());
        }
        let in_process = mcp_client::Mcp::in_process(&sb).await;
        let mut via_pipe = Vec::new();
        for _ in 0..PRINT_RUNS * 3 {
            let t = Instant::now();
            in_process
                .ok("umbel_status", serde_json::json!({ "name": "m" }))
                .await;
            via_pipe.push(t.elapsed());
        }
        let median = |v: &mut Vec<Duration>| {
            v.sort();
            v[v.len() / 2]
        };
        let (m, c) = (median(&mut via_mcp), median(&mut via_cli));
        let (d, p) = (median(&mut direct), median(&mut via_pipe));
        println!(
            "mcp: idle server RSS {rss}; umbel_status median {:.1} ms over stdio vs `umbel status --json` {:.1} ms (a fresh process); the verb called directly {:.2} ms, through the MCP layer in-process {:.2} ms (the layer adds {:+.2} ms)",
            ms(m),
            ms(c),
            ms(d),
            ms(p),
            ms(p) - ms(d)
        );
    });
}

/// A two-wave workflow on the fakes: three 2-second steps (claude, codex, gemini) side by side,
/// then one step that needs all three. Parallelism = the steps' summed durations ÷ wall time;
/// runner overhead = wall time − the critical path (slowest first-wave step + the last step).
fn workflow_figures() {
    let sb = Sandbox::new();
    let slow = sb.scenario(
        "slow",
        json!({ "default": { "reply": "ok", "delay_ms": 2000 } }),
    );
    let slow = slow.trim_start_matches("UMBEL_SIM_SCENARIO=");
    let worker = |p: &str| format!("{{provider: {p}, env: {{UMBEL_SIM_SCENARIO: \"{slow}\"}}}}");
    let yaml = format!(
        "workers:\n  a: {}\n  b: {}\n  c: {}\n  d: {{}}\nsteps:\n  - {{id: a, worker: a, prompt: x}}\n  - {{id: b, worker: b, prompt: x}}\n  - {{id: c, worker: c, prompt: x}}\n  - {{id: d, worker: d, needs: [a, b, c], prompt: x}}\n",
        worker("claude"),
        worker("codex"),
        worker("gemini")
    );
    let file = sb.project.join("bench.yaml");
    std::fs::write(&file, yaml).expect("write workflow");
    let started = Instant::now();
    let out = sb
        .process(&["run", "--json", "-q", file.to_str().expect("utf-8 path")])
        .output()
        .expect("umbel run");
    let wall = started.elapsed();
    assert_success(&out, "umbel run");
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).expect("run record");
    let took = |id: &str| {
        let s = record["steps"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["id"] == id))
            .expect("step");
        Duration::from_millis(
            s["endedAt"].as_u64().unwrap_or(0) - s["startedAt"].as_u64().unwrap_or(0),
        )
    };
    let (a, b, c, d) = (took("a"), took("b"), took("c"), took("d"));
    let sum = a + b + c + d;
    let critical = a.max(b).max(c) + d;
    println!(
        "workflow: 3 parallel 2 s steps (claude, codex, gemini incl. spawn) + 1 dependent step: wall {:.2} s, steps summed {:.2} s, parallelism {:.2}×, runner overhead over the critical path {:.0} ms",
        wall.as_secs_f64(),
        sum.as_secs_f64(),
        sum.as_secs_f64() / wall.as_secs_f64(),
        ms(wall.saturating_sub(critical))
    );
}

/// `umbel run --check` on 1 000 and 10 000 steps: checking is linear in the steps, so the ratio
/// is about 10 (it was about 100: 0.28 s and 27.7 s).
fn check_figures() {
    let sb = Sandbox::new();
    let time = |steps: usize| {
        let mut yaml = String::from("workers:\n");
        for w in 0..10 {
            yaml.push_str(&format!("  w{w}: {{}}\n"));
        }
        yaml.push_str("steps:\n  - {id: s0, worker: w0, prompt: go}\n");
        for i in 1..steps {
            yaml.push_str(&format!(
                "  - {{id: s{i}, worker: w{}, needs: [s{}], prompt: \"{{{{steps.s{}.answer}}}} {{{{steps.s0.answer}}}}\"}}\n",
                i % 10,
                i - 1,
                i - 1
            ));
        }
        let file = sb.project.join(format!("check-{steps}.yaml"));
        std::fs::write(&file, yaml).expect("write workflow");
        let path = file.to_str().expect("utf-8 path").to_string();
        median(|| {
            let out = sb
                .process(&["run", "--check", &path])
                .output()
                .expect("umbel run --check");
            assert_success(&out, "umbel run --check");
        })
    };
    let (small, large) = (time(1_000), time(10_000));
    println!(
        "check: `run --check` on 1 000 steps {:.0} ms, on 10 000 steps {:.0} ms: ratio {:.1} (linear: about 10)",
        ms(small),
        ms(large),
        large.as_secs_f64() / small.as_secs_f64()
    );
}

/// VmRSS of this sandbox's `umbel mcp` process.
fn server_rss_kib(sb: &Sandbox) -> Option<u64> {
    let marker = format!("UMBEL_STATE={}", sb.state.display());
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
        let env = std::fs::read(e.path().join("environ")).ok()?;
        let is_server =
            cmd.ends_with(b"\0mcp\0") && env.split(|b| *b == 0).any(|v| v == marker.as_bytes());
        if !is_server {
            return None;
        }
        let status = std::fs::read_to_string(e.path().join("status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    })
}

/// The largest resident set any waited-for child reached (`ru_maxrss` of RUSAGE_CHILDREN). The
/// harness runs umbel directly, so this is umbel's (tmux and the fakes are not our children).
fn peak_child_rss_kib() -> i64 {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage")
        .max_rss()
}

/// One turn of worker `name` driven through `sb` (`send`, then `wait --since` in a fresh
/// process): the time from its end-of-turn hook (the timestamp in the event log `log`) to the
/// moment the wait returned.
pub(crate) fn turn_latency(
    sb: &Sandbox,
    name: &str,
    log: &std::path::Path,
    prompt: &str,
) -> Duration {
    timed_turn(sb, name, log, prompt).1
}

/// [`turn_latency`], with the `send`'s own wall time (paste to submit confirmed) first.
pub(crate) fn timed_turn(
    sb: &Sandbox,
    name: &str,
    log: &std::path::Path,
    prompt: &str,
) -> (Duration, Duration) {
    let send_started = Instant::now();
    let sent = sb.run(&["send", name, prompt]);
    let send_took = send_started.elapsed();
    assert_success(&sent, "send");
    let pos: usize = stdout(&sent).trim().parse().expect("position");
    let out = sb
        .process(&["wait", name, "--since", &pos.to_string()])
        .output()
        .expect("wait");
    let returned = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_nanos();
    assert_success(&out, "wait");
    let text = std::fs::read_to_string(log).expect("event log");
    let stop_ns: u128 = text
        .lines()
        .skip(pos)
        .find_map(|l| {
            let mut f = l.split(' ');
            let ns = f.next()?.parse().ok()?;
            // claude, codex, qwen, copilot; gemini; opencode's plugin.
            matches!(f.next()?, "Stop" | "AfterAgent" | "SessionIdle").then_some(ns)
        })
        .expect("an end-of-turn line after the send position");
    (
        send_took,
        Duration::from_nanos(returned.saturating_sub(stop_ns) as u64),
    )
}

fn stop_to_wait(sb: &Sandbox, provider: &str) -> perf::Row {
    let (_, latencies) = turn_samples(sb, provider);
    println!(
        "  end-of-turn hook → wait returned, {TURNS} turns: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(pct(&latencies, 0.50)),
        ms(pct(&latencies, 0.99)),
        ms(*latencies.last().expect("samples"))
    );
    perf::Row {
        figure: format!("{provider}: end-of-turn hook → wait returned"),
        value: format!(
            "p50 {:.1} ms, p99 {:.1} ms",
            ms(pct(&latencies, 0.50)),
            ms(pct(&latencies, 0.99))
        ),
        goal: "p50 < 5 ms, p99 < 20 ms",
    }
}

/// [`TURNS`] turns of a `bench` worker of `provider` spawned in `sb` (and purged after): the
/// sends' times (paste → submit confirmed) and end-of-turn hook → `wait` returned, each sorted.
pub(crate) fn turn_samples(sb: &Sandbox, provider: &str) -> (Vec<Duration>, Vec<Duration>) {
    // The reply comes 150 ms after the prompt, so `wait` is already blocking when Stop fires.
    let scenario = sb.scenario(
        "bench",
        json!({ "default": { "reply": "ok", "delay_ms": 150 } }),
    );
    sb.spawn("bench", &["--provider", provider, "--env", &scenario]);
    let log = sb.session_dir("bench").join("events/log");
    let (mut sends, mut waits): (Vec<_>, Vec<_>) = (0..TURNS)
        .map(|i| timed_turn(sb, "bench", &log, &format!("turn {i}")))
        .unzip();
    let _ = sb.run(&["kill", "bench", "--purge"]);
    sends.sort();
    waits.sort();
    (sends, waits)
}

/// The `p` percentile (0–1) of `sorted`.
pub(crate) fn pct(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn print_overhead(sb: &Sandbox, provider: &str, fake_bin: &str, print_args: &[&str]) {
    let scenario = sb.scenario("print", json!({ "default": { "reply": "Hello." } }));
    let env_arg = scenario.clone();
    let scenario_path = scenario
        .trim_start_matches("UMBEL_SIM_SCENARIO=")
        .to_string();
    let umbel = median(|| {
        let out = sb.run(&["-p", "Say hello", "--provider", provider, "--env", &env_arg]);
        assert_success(&out, "umbel -p");
    });
    let baseline = median(|| {
        let out = perf::fake_print_mode(sb, fake_bin, print_args, &scenario_path)
            .output()
            .expect("the fake's print mode");
        assert_success(&out, "the fake's print mode");
    });
    println!(
        "  print mode, median of {PRINT_RUNS}: umbel -p {:.0} ms, {fake_bin} {} {:.1} ms, ratio {:.1}×, overhead {:.0} ms",
        ms(umbel),
        print_args.join(" "),
        ms(baseline),
        umbel.as_secs_f64() / baseline.as_secs_f64().max(1e-9),
        ms(umbel.saturating_sub(baseline))
    );
}

fn guard_figures() {
    let sb = Sandbox::new();
    assert_success(&sb.run(&["spawn", "--name", "g"]), "spawn");
    let turn = |guard: &[&str]| {
        median(|| {
            let mut send = vec!["send", "g", "Say hello"];
            send.extend_from_slice(guard);
            assert_success(&sb.run(&send), "send");
            assert_success(&sb.run(&["wait", "g", "--timeout", "60s"]), "wait");
        })
    };
    let plain = turn(&[]);
    let accepted = turn(&["--accept", "true"]);
    // Rejects the first answer whatever it says, accepts the second.
    let retried = turn(&[
        "--accept-shell",
        "--accept",
        "test \"$UMBEL_ATTEMPT\" -ge 2",
    ]);
    println!(
        "guardrails, median of {PRINT_RUNS} send+wait turns (claude): plain {:.0} ms, --accept passing {:.0} ms (+{:.0} ms), one rejection and retry {:.0} ms (+{:.0} ms over passing)",
        ms(plain),
        ms(accepted),
        ms(accepted.saturating_sub(plain)),
        ms(retried),
        ms(retried.saturating_sub(accepted))
    );
    let _ = sb.run(&["kill", "--all", "--purge"]);
}

/// Every turn of each provider's recorded session repeated 200 times (claude: 1000 turns).
fn turns_figures() {
    use umbel::core::providers::Provider;
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
    for (provider, file) in [
        (
            Provider::Claude,
            "claude/claude-2.1.332-transcript-session1.jsonl",
        ),
        (
            Provider::Codex,
            "codex/codex-0.171.0-rollout-tui-session.jsonl",
        ),
        (Provider::Gemini, "gemini/gemini-0.61.0-chat-session.jsonl"),
    ] {
        let text = std::fs::read_to_string(format!("{data}{file}")).expect("fixture");
        let lines: Vec<String> = (0..200)
            .flat_map(|_| text.lines().map(str::to_string))
            .collect();
        let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        let mut count = 0;
        let took =
            median(|| count = umbel::core::turns::all_turns(provider.module(), &lines).len());
        println!(
            "turns: {provider}: {count} turns in {:.1} MiB parsed in {:.1} ms (median of {PRINT_RUNS})",
            bytes as f64 / (1024.0 * 1024.0),
            ms(took)
        );
    }
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
