//! `just bench park` (the fakes) and `just bench park-real` (the real CLIs, as `just bench
//! real` runs them): what parking a worker gives back and what it costs. Per CLI, [`RUNS`]
//! workers each run one turn, then are parked and resumed: the RSS of the worker's processes
//! before and after the park (every process carrying the sandbox's `UMBEL_STATE`, which is the
//! pane's process tree plus anything that outlived it; the RSS summed, so pages shared between
//! them count twice), `umbel resume` → ready (its own `resumeMs`, and the wall time of the
//! command), and a parked worker's bytes on disk (its umbel folder, and the CLI's transcript).

use crate::harness::{Sandbox, assert_success, stdout};
use crate::perf::Row;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// Workers per CLI (medians over these).
const RUNS: usize = 5;
const PROMPT: &str = "Say hi";

/// The samples of one CLI.
#[derive(Default)]
struct Samples {
    rss_before_kib: Vec<u64>,
    rss_after_kib: Vec<u64>,
    resume_ms: Vec<u64>,
    resume_wall: Vec<Duration>,
    folder_bytes: Vec<u64>,
    transcript_bytes: Vec<u64>,
}

/// The fakes: `just bench park`.
pub fn fake_figures() -> Vec<Row> {
    let sb = Sandbox::new();
    sb.scenario("hi", json!({ "default": { "reply": "Hi." } }));
    println!(
        "park on the fakes, {RUNS} workers each, load average {}:",
        crate::real_clis::load_average()
    );
    figures(&sb, "fake", &["claude", "codex", "gemini"])
}

/// The real CLIs (pinned releases against `fake-model`): `just bench park-real`.
pub fn real_figures() -> Vec<Row> {
    let Some(dir) = crate::real_clis::real_clis() else {
        return Vec::new();
    };
    let sb = crate::real::sandbox_with(&dir);
    sb.scenario("hi", json!({ "default": { "reply": "Hi." } }));
    println!(
        "park on the real CLIs ({}), {RUNS} workers each, load average {}:",
        dir.display(),
        crate::real_clis::load_average()
    );
    let rows = figures(&sb, "real", &["claude", "codex", "gemini"]);
    crate::real::reap(&sb.root);
    rows
}

fn figures(sb: &Sandbox, tier: &str, clis: &[&str]) -> Vec<Row> {
    let mut rows = Vec::new();
    for cli in clis {
        let mut s = Samples::default();
        for run in 0..RUNS {
            one_run(sb, cli, run, &mut s);
        }
        rows.extend(report(tier, cli, &mut s));
    }
    rows
}

/// Spawn, one turn, park (RSS before and after, bytes on disk), resume (timed), kill.
fn one_run(sb: &Sandbox, cli: &str, run: usize, s: &mut Samples) {
    let name = format!("park-{cli}{run}");
    assert_success(
        &sb.run(&["spawn", "--name", &name, "--provider", cli]),
        "spawn",
    );
    let sent = sb.run(&["send", &name, PROMPT]);
    assert_success(&sent, "send");
    let since = stdout(&sent).trim().to_string();
    assert_success(&sb.run(&["wait", &name, "--since", &since]), "wait");
    // The CLI settles after its turn (a real one writes its session files); then measure.
    std::thread::sleep(Duration::from_millis(1500));
    s.rss_before_kib.push(worker_rss_kib(sb));
    assert_success(&sb.run(&["park", &name]), "park");
    std::thread::sleep(Duration::from_millis(500));
    s.rss_after_kib.push(worker_rss_kib(sb));
    let status = json_of(&sb.run(&["status", &name, "--json"]));
    assert_eq!(status["state"], "parked", "{status}");
    s.folder_bytes.push(bytes_under(&sb.session_dir(&name)));
    // codex keeps its rollout inside its CODEX_HOME, under the worker's folder: counted there.
    s.transcript_bytes.push(
        status["transcriptPath"]
            .as_str()
            .filter(|p| !Path::new(p).starts_with(sb.session_dir(&name)))
            .map_or(0, |p| bytes_under(Path::new(p))),
    );
    let t = Instant::now();
    let resumed = sb.run(&["resume", &name, "--json"]);
    s.resume_wall.push(t.elapsed());
    assert_success(&resumed, "resume");
    s.resume_ms
        .push(json_of(&resumed)["resumeMs"].as_u64().unwrap_or(0));
    let _ = sb.run(&["kill", &name, "--purge"]);
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out)).unwrap_or(Value::Null)
}

/// Prints one CLI's figures and returns its summary rows.
fn report(tier: &str, cli: &str, s: &mut Samples) -> Vec<Row> {
    let before = median(&mut s.rss_before_kib);
    let after = median(&mut s.rss_after_kib);
    let resume = median(&mut s.resume_ms);
    s.resume_wall.sort();
    let wall = s.resume_wall[s.resume_wall.len() / 2];
    let folder = median(&mut s.folder_bytes);
    let transcript = median(&mut s.transcript_bytes);
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!("  {cli}:");
    println!(
        "    worker's processes after a turn: {:.1} MiB RSS; parked: {:.1} MiB (freed {:.1} MiB)",
        mib(before),
        mib(after),
        mib(before.saturating_sub(after))
    );
    println!(
        "    umbel resume → ready: median {resume} ms (the command: {:.0} ms)",
        wall.as_secs_f64() * 1000.0
    );
    println!(
        "    parked on disk: {:.1} KiB umbel folder + {:.1} KiB transcript",
        folder as f64 / 1024.0,
        transcript as f64 / 1024.0
    );
    vec![
        Row {
            figure: format!("{tier} {cli}: memory a park frees (process-tree RSS)"),
            value: format!("{:.1} → {:.1} MiB", mib(before), mib(after)),
            goal: "→ 0",
        },
        Row {
            figure: format!("{tier} {cli}: `umbel resume` → ready"),
            value: format!("{resume} ms"),
            goal: "-",
        },
        Row {
            figure: format!("{tier} {cli}: a parked worker on disk"),
            value: format!("{:.1} KiB", (folder + transcript) as f64 / 1024.0),
            goal: "-",
        },
    ]
}

fn median(v: &mut [u64]) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

/// The RSS of every live process carrying this sandbox's `UMBEL_STATE` (the workers' CLIs and
/// what they started; the tmux server does not carry it), in KiB.
fn worker_rss_kib(sb: &Sandbox) -> u64 {
    let marker = format!("UMBEL_STATE={}", sb.state.display());
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name() != me.as_str())
        .filter(|e| {
            std::fs::read(e.path().join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == marker.as_bytes()))
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter_map(|status| {
            let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .sum()
}

/// The bytes of the files at `path` (a file, or a folder and everything in it).
fn bytes_under(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| bytes_under(&e.path()))
        .sum()
}
