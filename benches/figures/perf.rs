//! The figures of docs/performance.md that the older parts of the bench did not print: the CPU a
//! waiting umbel burns, `-p` against print mode on a one-second turn, `read --all` on a 100 MB
//! transcript (throughput and peak memory), and the spawn rate. Each returns summary rows.

use crate::harness::{Sandbox, assert_success, fake};
use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::time::TimeValLike;
use serde_json::json;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One line of the summary table: the figure, what was measured, the goal.
pub struct Row {
    pub figure: String,
    pub value: String,
    pub goal: &'static str,
}

/// How long a waiter is watched while nothing happens.
const IDLE: Duration = Duration::from_secs(3);

/// What a measured command used, its waited-for children included.
pub(crate) struct Usage {
    /// User and system CPU.
    pub cpu: Duration,
    /// The peak resident set, KiB.
    pub max_rss_kib: i64,
}

/// Set (to the milliseconds after which to stop the command, or empty) when this bench binary
/// is started as a measuring parent by [`measured`].
const MEASURE: &str = "UMBEL_BENCH_MEASURE";

/// Runs `cmd` to its end (SIGTERM after `stop_after`) and returns its wall time and its own
/// resource usage, so the figures are the command's alone. Neither std nor rustix nor nix wraps
/// wait4(2) safely, so this bench binary runs again as the command's only parent
/// ([`measure_if_asked`]), whose getrusage(RUSAGE_CHILDREN) is then the command's. Its
/// environment is the variables `cmd` sets (the harness's commands start from an empty one).
pub(crate) fn measured(cmd: Command, stop_after: Option<Duration>) -> (Duration, Usage) {
    let mut parent = Command::new(std::env::current_exe().expect("the bench binary"));
    parent.env_clear();
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => parent.env(key, value),
            None => parent.env_remove(key),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        parent.current_dir(dir);
    }
    let stop_ms = stop_after.map_or(String::new(), |d| d.as_millis().to_string());
    let out = parent
        .env(MEASURE, stop_ms)
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("start the measuring parent");
    let text = String::from_utf8_lossy(&out.stdout);
    let numbers: Vec<u64> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        out.status.success() && numbers.len() == 3,
        "the measuring parent failed: {text}"
    );
    let usage = Usage {
        cpu: Duration::from_micros(numbers[1]),
        max_rss_kib: numbers[2] as i64,
    };
    (Duration::from_nanos(numbers[0]), usage)
}

/// The measuring parent's side of [`measured`]: when this binary was started as one, runs the
/// command its arguments name, stdio closed (SIGTERM after the time given), prints its wall
/// time (ns), CPU (µs) and peak RSS (KiB), and returns true (the caller then exits).
pub(crate) fn measure_if_asked() -> bool {
    let Some(stop_ms) = std::env::var_os(MEASURE) else {
        return false;
    };
    let stop_after = stop_ms.to_str().and_then(|ms| ms.parse().ok());
    let mut args = std::env::args_os().skip(1);
    let program = args.next().expect("the command to measure");
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .env_remove(MEASURE)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the measured command");
    if let Some(ms) = stop_after {
        std::thread::sleep(Duration::from_millis(ms));
        let pid = rustix::process::Pid::from_child(&child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    child.wait().expect("wait for the measured command");
    let wall = started.elapsed();
    // The one child this process ever had: its usage alone.
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let cpu = usage.user_time().num_microseconds() + usage.system_time().num_microseconds();
    println!("{} {cpu} {}", wall.as_nanos(), usage.max_rss());
    true
}

/// CPU per second of waiting, for `wait` (a turn that never ends, `--timeout 3s`) and for
/// `logs -f` (3 s, then SIGTERM).
pub fn idle_cpu(sb: &Sandbox, provider: &str) -> Vec<Row> {
    let wedge = sb.scenario("wedge", json!({ "default": { "end": "wedge" } }));
    sb.spawn("idle", &["--provider", provider, "--env", &wedge]);
    assert_success(&sb.run(&["send", "idle", "never ends"]), "send");
    let timeout = format!("{}s", IDLE.as_secs());
    let (wall, usage) = measured(sb.process(&["wait", "idle", "--timeout", &timeout]), None);
    let wait_share = usage.cpu.as_secs_f64() / wall.as_secs_f64();
    let (wall, usage) = measured(sb.process(&["logs", "idle", "-f"]), Some(IDLE));
    let logs_share = usage.cpu.as_secs_f64() / wall.as_secs_f64();
    let _ = sb.run(&["kill", "idle", "--purge"]);
    println!(
        "  CPU while waiting {} s on a turn that never ends: wait {:.2}% of a core, logs -f {:.2}% of a core",
        IDLE.as_secs(),
        wait_share * 100.0,
        logs_share * 100.0
    );
    vec![
        Row {
            figure: format!("{provider}: CPU of an idle `wait`"),
            value: format!("{:.2}% of a core", wait_share * 100.0),
            goal: "< 2%",
        },
        Row {
            figure: format!("{provider}: CPU of an idle `logs -f`"),
            value: format!("{:.2}% of a core", logs_share * 100.0),
            goal: "< 2%",
        },
    ]
}

/// The fake CLI's own print mode on "Say hello" with `scenario` (a path), in the sandbox's home
/// and project: the baseline `umbel -p` is compared with.
pub fn fake_print_mode(
    sb: &Sandbox,
    fake_bin: &str,
    print_args: &[&str],
    scenario: &str,
) -> Command {
    let mut cmd = Command::new(fake(fake_bin));
    cmd.args(print_args)
        .arg("Say hello")
        .env_clear()
        .env("HOME", &sb.home)
        .env("GEMINI_API_KEY", "fake-key")
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("UMBEL_SIM_SCENARIO", scenario)
        .current_dir(&sb.project)
        .stdin(Stdio::null());
    cmd
}

/// `umbel -p` ÷ the fake's own print mode on the same scripted one-second turn.
pub fn print_ratio_1s(
    sb: &Sandbox,
    provider: &str,
    fake_bin: &str,
    print_args: &[&str],
    runs: usize,
) -> Row {
    let scenario = sb.scenario(
        "second",
        json!({ "default": { "reply": "Hello.", "delay_ms": 1000 } }),
    );
    let path = scenario
        .trim_start_matches("UMBEL_SIM_SCENARIO=")
        .to_string();
    let median = |mut run: Box<dyn FnMut() -> Duration + '_>| {
        let mut samples: Vec<Duration> = (0..runs).map(|_| run()).collect();
        samples.sort();
        samples[samples.len() / 2]
    };
    let umbel = median(Box::new(|| {
        let t = Instant::now();
        let out = sb.run(&[
            "-p",
            "Say hello",
            "--provider",
            provider,
            "--env",
            &scenario,
        ]);
        assert_success(&out, "umbel -p");
        t.elapsed()
    }));
    let own = median(Box::new(|| {
        let t = Instant::now();
        let out = fake_print_mode(sb, fake_bin, print_args, &path)
            .output()
            .expect("the fake's print mode");
        assert_success(&out, "the fake's print mode");
        t.elapsed()
    }));
    let ratio = umbel.as_secs_f64() / own.as_secs_f64();
    println!(
        "  print mode on a 1 s turn, median of {runs}: umbel -p {:.0} ms, {fake_bin} {:.0} ms, ratio {ratio:.2}×",
        umbel.as_secs_f64() * 1000.0,
        own.as_secs_f64() * 1000.0
    );
    Row {
        figure: format!("{provider}: `-p` ÷ print mode, 1 s turn"),
        value: format!("{ratio:.2}×"),
        goal: "≤ 1.10×",
    }
}

/// `read --all` and `read --turn 1` on a claude transcript grown to 100 MB (the recorded session
/// repeated): throughput and the reader's peak RSS.
pub fn read_100mb(sb: &Sandbox) -> Vec<Row> {
    sb.spawn("big", &[]);
    assert_success(&sb.run(&["send", "big", "Say hello"]), "send");
    assert_success(&sb.run(&["wait", "big"]), "wait");
    let status = sb.run(&["status", "big", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).expect("status json");
    let status = if status.is_array() {
        status[0].clone()
    } else {
        status
    };
    let path = status["transcriptPath"]
        .as_str()
        .expect("a transcript path")
        .to_string();
    let session = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/claude/claude-2.1.332-transcript-session1.jsonl"
    ))
    .expect("fixture");
    // Written a session at a time: a measured child's peak RSS counts its parent's (this
    // process's) high-water mark at spawn, so the bench must never hold the 100 MB itself.
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("the transcript"));
    let mut written = 0;
    while written < 100 << 20 {
        std::io::Write::write_all(&mut file, session.as_bytes()).expect("write the transcript");
        written += session.len();
    }
    std::io::Write::flush(&mut file).expect("write the transcript");
    let mb = written as f64 / 1e6;
    let mut rows = Vec::new();
    // `--all` reads the whole file: a throughput. `--turn 1` stops after the first turn (a unit
    // test counts its bytes): its time and memory, not a rate over bytes it never read.
    for (what, args, whole) in [
        ("read --all", &["read", "big", "--all", "--json"][..], true),
        ("read --turn 1", &["read", "big", "--turn", "1"][..], false),
    ] {
        let (wall, usage) = measured(sb.process(args), None);
        let rate = mb / wall.as_secs_f64();
        let peak = usage.max_rss_kib as f64 / 1024.0;
        let ms = wall.as_secs_f64() * 1000.0;
        println!("  {what} on a {mb:.0} MB transcript: {ms:.0} ms, peak RSS {peak:.1} MiB");
        rows.push(Row {
            figure: format!("`{what}`, 100 MB transcript"),
            value: if whole {
                format!("{rate:.0} MB/s, {peak:.1} MiB peak")
            } else {
                format!("{ms:.0} ms, {peak:.1} MiB peak")
            },
            goal: if whole {
                "≥ 300 MB/s, < 32 MiB"
            } else {
                "stops early, < 32 MiB"
            },
        });
    }
    // As a user times it: process start to exit, every byte of the output read through a pipe.
    for (what, args) in [
        ("read --all", &["read", "big", "--all"][..]),
        ("read --all --json", &["read", "big", "--all", "--json"][..]),
    ] {
        let started = Instant::now();
        let out = sb.process(args).output().expect("umbel read");
        let wall = started.elapsed();
        assert_success(&out, what);
        let rate = mb / wall.as_secs_f64();
        let (ms, kib) = (wall.as_secs_f64() * 1000.0, out.stdout.len() / 1024);
        println!(
            "  {what}, its {kib} KiB of output read through a pipe: {ms:.0} ms, {rate:.0} MB/s"
        );
        rows.push(Row {
            figure: format!("`{what}`, 100 MB, output piped (outside)"),
            value: format!("{rate:.0} MB/s"),
            goal: "≥ 300 MB/s",
        });
    }
    let _ = sb.run(&["kill", "big", "--purge"]);
    rows
}

/// `status`, `ls` and `wait` on a worker whose event log has grown to 100 MB (finished turns of
/// hook lines before its real last turn): wall time (median of 5, the first run apart: it
/// writes the log's line-count checkpoint) and peak RSS. They read the log from its end.
pub fn status_biglog(sb: &Sandbox) -> Vec<Row> {
    sb.spawn("big", &[]);
    assert_success(&sb.run(&["send", "big", "Say hello"]), "send");
    assert_success(&sb.run(&["wait", "big"]), "wait");
    let log = sb.session_dir("big").join("events").join("log");
    let last = std::fs::read(&log).expect("the log");
    let turn: String = [
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PreToolUse",
        "PostToolUse",
        "Notification",
        "Stop",
    ]
    .iter()
    .enumerate()
    .map(|(i, kind)| format!("179640568027282{i:04} {kind} -\n"))
    .collect();
    // Written a turn at a time, never held whole (see read_100mb on the parent's RSS).
    let mut file = std::io::BufWriter::new(std::fs::File::create(&log).expect("the log"));
    let mut written = 0;
    while written < 100 << 20 {
        std::io::Write::write_all(&mut file, turn.as_bytes()).expect("write the log");
        written += turn.len();
    }
    std::io::Write::write_all(&mut file, &last).expect("write the log");
    std::io::Write::flush(&mut file).expect("write the log");
    drop(file);
    let mb = written as f64 / 1e6;
    let mut rows = Vec::new();
    for (what, args) in [
        ("status", &["status", "big", "--json"][..]),
        ("ls", &["ls", "--json"][..]),
        ("wait", &["wait", "big"][..]),
    ] {
        let (first, _) = measured(sb.process(args), None);
        let mut runs: Vec<(Duration, f64)> = (0..5)
            .map(|_| {
                let (wall, usage) = measured(sb.process(args), None);
                (wall, usage.max_rss_kib as f64 / 1024.0)
            })
            .collect();
        runs.sort_by_key(|r| r.0);
        let (median, _) = runs[runs.len() / 2];
        let peak = runs.iter().map(|r| r.1).fold(0.0, f64::max);
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "  {what} on a {mb:.0} MB event log: {:.1} ms (median of 5; the first run, counting the log, {:.1} ms), peak RSS {peak:.1} MiB",
            ms(median),
            ms(first)
        );
        rows.push(Row {
            figure: format!("`{what}`, 100 MB event log"),
            value: format!("{:.1} ms, {peak:.1} MiB peak", ms(median)),
            goal: "< 50 ms, < 32 MiB",
        });
    }
    let _ = sb.run(&["kill", "big", "--purge"]);
    rows
}

/// 100 sequential spawns of fake claude (ready each time), then one `kill --all`.
pub fn spawn_rate(sb: &Sandbox) -> Row {
    let started = Instant::now();
    for i in 0..100 {
        assert_success(&sb.run(&["spawn", "--name", &format!("s{i}")]), "spawn");
    }
    let took = started.elapsed();
    let _ = sb.run(&["kill", "--all", "--purge"]);
    println!(
        "spawn: 100 sequential spawns in {:.2} s ({:.0} ms each)",
        took.as_secs_f64(),
        took.as_secs_f64() * 10.0
    );
    Row {
        figure: "100 sequential spawns (claude)".into(),
        value: format!("{:.2} s", took.as_secs_f64()),
        goal: "< 3 s",
    }
}

/// Prints the rows as one table.
pub fn print_summary(rows: &[Row]) {
    let width = rows
        .iter()
        .map(|r| r.figure.chars().count())
        .max()
        .unwrap_or(0);
    let value_width = rows
        .iter()
        .map(|r| r.value.chars().count())
        .max()
        .unwrap_or(0);
    println!("\nsummary:");
    println!("  {:width$}  {:value_width$}  goal", "figure", "measured");
    for row in rows {
        println!(
            "  {:width$}  {:value_width$}  {}",
            row.figure, row.value, row.goal
        );
    }
}

/// Runs per figure of warm `-p` (medians over these, interleaved).
const WARM_RUNS: usize = 5;

/// The session id of `provider`'s warm worker `ls --json` lists once one other than `previous`
/// is ready (a refill runs after each warm `-p`), waited for off the clock.
pub fn await_warm(sb: &Sandbox, provider: &str, previous: Option<&str>) -> String {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(120) {
        let out = sb.run(&["ls", "--json"]);
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let found = rows.iter().find_map(|w| {
            let id = w["sessionId"].as_str()?;
            let fits = !w["warm"].is_null() && w["provider"] == provider && Some(id) != previous;
            fits.then(|| id.to_string())
        });
        if let Some(id) = found {
            return id;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no warm worker became ready within 2 minutes");
}

/// Warm `umbel -p` (a worker an earlier `-p --warm` left) against a cold one and the fake's
/// own print mode, the three interleaved, median of [`WARM_RUNS`].
pub fn warm_print(sb: &Sandbox, provider: &str, fake_bin: &str, print_args: &[&str]) -> Row {
    let scenario = sb.scenario("warm", json!({ "default": { "reply": "Hello." } }));
    let path = scenario
        .trim_start_matches("UMBEL_SIM_SCENARIO=")
        .to_string();
    let print = |warm: bool| {
        let mut args = vec![
            "-p",
            "Say hello",
            "--provider",
            provider,
            "--env",
            &scenario,
        ];
        if warm {
            args.push("--warm");
        }
        let t = Instant::now();
        assert_success(&sb.run(&args), "umbel -p");
        t.elapsed()
    };
    let (mut warm, mut cold, mut own) = (Vec::new(), Vec::new(), Vec::new());
    print(true);
    let mut ready = await_warm(sb, provider, None);
    for _ in 0..WARM_RUNS {
        warm.push(print(true));
        ready = await_warm(sb, provider, Some(&ready));
        cold.push(print(false));
        let t = Instant::now();
        let out = fake_print_mode(sb, fake_bin, print_args, &path)
            .output()
            .expect("the fake's print mode");
        assert_success(&out, "the fake's print mode");
        own.push(t.elapsed());
    }
    let _ = sb.run(&["kill", "--all", "--purge"]);
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1000.0
    };
    let (warm, cold, own) = (median(&mut warm), median(&mut cold), median(&mut own));
    println!(
        "  warm -p, median of {WARM_RUNS} interleaved: warm umbel -p {warm:.0} ms, cold umbel -p {cold:.0} ms, {fake_bin} {own:.0} ms"
    );
    Row {
        figure: format!("{provider}: warm `-p` ÷ print mode"),
        value: format!("{:.2}× ({warm:.0} ms ÷ {own:.0} ms)", warm / own.max(1e-9)),
        goal: "below cold `-p`",
    }
}
