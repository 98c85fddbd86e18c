//! The soak of issue 15: 50 workers of all three providers (worker i runs provider i % 3) × 5
//! turns, driven by a few threads (spawn, send, wait, read), while other threads loop `prune`,
//! `status --json` / `ls --json`, and `kill NAME` a seeded subset of the workers mid-life. Every
//! answer must be exactly `Response to: <that worker's prompt>` (another one is a crossed turn, a
//! missing one a lost turn; a killed worker's remaining turns count as killed). Then `kill --all`,
//! and every process of the sandbox must be gone. A figure, not a test: it never panics on a lost
//! turn, it reports the numbers.

use crate::harness::{Sandbox, processes_under};
use crate::load::worker_processes;
use crate::perf::Row;
use serde_json::json;
use std::collections::HashSet;
use std::process::Output;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::time::{Duration, Instant};

const WORKERS: usize = 50;
const TURNS: usize = 5;
/// Threads driving the workers' turns.
const DRIVERS: usize = 5;
/// How many workers the killer ends, each after a seeded number of its turns.
const VICTIMS: usize = 8;
const SEED: u64 = 15;
/// Each fake answer waits this long first, so the turns of different workers overlap.
const DELAY_MS: u64 = 300;
/// How many failure messages are kept for the report.
const EVIDENCE: usize = 20;

/// A small linear congruential generator (Knuth's MMIX constants): seeded, so the victims and
/// the pacing of the side loops are the same on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// What the threads share: each worker's progress, who was killed, and the tallies.
#[derive(Default)]
struct Soak {
    /// Turns each worker has completed; `usize::MAX` once its driver has finished with it.
    progress: Vec<AtomicUsize>,
    spawned: Vec<AtomicBool>,
    /// Workers the killer chose, recorded *before* it runs `kill`: a failure of a worker in this
    /// set is the kill's doing.
    killed: Mutex<HashSet<usize>>,
    done: AtomicUsize,
    killed_turns: AtomicUsize,
    lost: AtomicUsize,
    crossed: AtomicUsize,
    /// Workers `prune` removed that the killer never touched (it took a live worker).
    pruned_live: AtomicUsize,
    side_runs: AtomicUsize,
    side_failures: AtomicUsize,
    evidence: Mutex<Vec<String>>,
    stop: AtomicBool,
}

impl Soak {
    fn new() -> Self {
        Soak {
            progress: (0..WORKERS).map(|_| AtomicUsize::new(0)).collect(),
            spawned: (0..WORKERS).map(|_| AtomicBool::new(false)).collect(),
            ..Soak::default()
        }
    }

    fn was_killed(&self, i: usize) -> bool {
        self.killed.lock().is_ok_and(|k| k.contains(&i))
    }

    fn note(&self, what: String) {
        if let Ok(mut e) = self.evidence.lock()
            && e.len() < EVIDENCE
        {
            e.push(what);
        }
    }

    /// Counts a failed step of worker `i`'s turn: killed (and the rest of its turns with it) or
    /// lost. Returns whether the worker is over.
    fn failed(&self, i: usize, turn: usize, what: &str, out: &Output) -> bool {
        if self.was_killed(i) {
            self.killed_turns.fetch_add(TURNS - turn, SeqCst);
            return true;
        }
        self.lost.fetch_add(1, SeqCst);
        self.note(format!("lost: w{i} turn {turn}: {what}: {}", said(out)));
        false
    }
}

impl Soak {
    /// Counts (and notes) the workers a `prune --json` removed that were never killed.
    fn pruned_live(&self, out: &Output) {
        let pruned: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let removed = pruned["removed"].as_array().cloned().unwrap_or_default();
        for name in removed.iter().filter_map(|n| n.as_str()) {
            let victim = name[1..].parse().is_ok_and(|i| self.was_killed(i));
            if !victim {
                self.pruned_live.fetch_add(1, SeqCst);
                self.note(format!("prune removed {name}, a worker nobody killed"));
            }
        }
    }
}

/// An umbel run's exit code and its stderr (or stdout), on one line.
fn said(out: &Output) -> String {
    let text = if out.stderr.is_empty() {
        &out.stdout
    } else {
        &out.stderr
    };
    format!(
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(text).trim().replace('\n', " | ")
    )
}

/// Runs the soak and returns its summary row.
pub fn soak() -> Row {
    let sb = Sandbox::new();
    let scenario = sb.scenario("soak", json!({ "default": { "delay_ms": DELAY_MS } }));
    let soak = Soak::new();
    let mut lcg = Lcg(SEED);
    let mut victims: Vec<(usize, usize)> = Vec::new();
    while victims.len() < VICTIMS {
        let i = lcg.below(WORKERS as u64) as usize;
        if victims.iter().all(|(v, _)| *v != i) {
            victims.push((i, 1 + lcg.below(TURNS as u64 - 2) as usize));
        }
    }
    let started = Instant::now();
    std::thread::scope(|scope| {
        let drivers: Vec<_> = (0..DRIVERS)
            .map(|t| {
                let (sb, soak, scenario) = (&sb, &soak, &scenario);
                scope.spawn(move || {
                    for i in (t..WORKERS).step_by(DRIVERS) {
                        drive(sb, soak, scenario, i);
                    }
                })
            })
            .collect();
        let (sb, s) = (&sb, &soak);
        scope.spawn(move || side_loop(sb, s, SEED + 1, &[&["prune", "--json"]]));
        scope
            .spawn(move || side_loop(sb, s, SEED + 2, &[&["status", "--json"], &["ls", "--json"]]));
        scope.spawn(move || killer(sb, s, &victims));
        for d in drivers {
            let _ = d.join();
        }
        soak.stop.store(true, SeqCst);
    });
    let wall = started.elapsed();
    // Every worker not killed must still be listed, and ready, before the fleet is killed.
    let survivors = missing_survivors(&sb, &soak);
    let kill_all = sb.run(&["kill", "--all"]);
    if !kill_all.status.success() {
        soak.note(format!("kill --all failed: {}", said(&kill_all)));
    }
    std::thread::sleep(Duration::from_secs(1));
    let by_state = worker_processes(&sb);
    let by_home = processes_under(&sb.root);
    let (done, killed_turns) = (soak.done.load(SeqCst), soak.killed_turns.load(SeqCst));
    let (lost, crossed) = (soak.lost.load(SeqCst), soak.crossed.load(SeqCst));
    let victims_killed = soak.killed.lock().map_or(0, |k| k.len());
    println!(
        "soak: {WORKERS} workers (claude, codex, gemini) × {TURNS} turns with prune, status/ls and {victims_killed} kills alongside, in {:.1} s: turns done {done}, killed {killed_turns}, lost {lost}, crossed {crossed}; side runs {} ({} failed); prune took {} workers nobody killed; survivors missing or not ready before kill --all: {survivors}; leftover processes after kill --all: {} carrying its UMBEL_STATE (or its tmux server), {} under its HOME",
        wall.as_secs_f64(),
        soak.side_runs.load(SeqCst),
        soak.side_failures.load(SeqCst),
        soak.pruned_live.load(SeqCst),
        by_state.len(),
        by_home.len()
    );
    for line in soak.evidence.lock().map(|e| e.clone()).unwrap_or_default() {
        println!("  {line}");
    }
    for process in &by_state {
        println!("  left: {process}");
    }
    let _ = sb.run(&["kill", "--all", "--purge"]);
    Row {
        figure: format!("soak: {WORKERS} mixed workers × {TURNS} turns, prune/status/kill"),
        value: format!(
            "{lost} lost, {crossed} crossed, {} left ({done} done, {killed_turns} killed, {:.0} s)",
            by_state.len().max(by_home.len()),
            wall.as_secs_f64()
        ),
        goal: "0 lost, 0 crossed, 0 left",
    }
}

/// Worker `i`'s life: spawn, then `TURNS` turns of send, wait, read.
fn drive(sb: &Sandbox, soak: &Soak, scenario: &str, i: usize) {
    let name = format!("w{i}");
    let provider = crate::harness::PROVIDERS[i % crate::harness::PROVIDERS.len()];
    let spawned = sb.run(&[
        "spawn",
        "--name",
        &name,
        "--provider",
        provider,
        "--env",
        scenario,
    ]);
    if !spawned.status.success() {
        // The killer only ends spawned workers: a failed spawn is never its doing.
        soak.lost.fetch_add(TURNS, SeqCst);
        soak.note(format!("lost: w{i} spawn: {}", said(&spawned)));
        soak.progress[i].store(usize::MAX, SeqCst);
        return;
    }
    soak.spawned[i].store(true, SeqCst);
    for turn in 0..TURNS {
        let prompt = format!("{name} ({provider}) turn {turn}");
        let sent = sb.run(&["send", &name, &prompt]);
        if !sent.status.success() {
            if soak.failed(i, turn, "send", &sent) {
                break;
            }
            continue;
        }
        let pos = String::from_utf8_lossy(&sent.stdout).trim().to_string();
        let waited = sb.run(&["wait", &name, "--since", &pos, "--timeout", "120s"]);
        if !waited.status.success() {
            if soak.failed(i, turn, "wait", &waited) {
                break;
            }
            continue;
        }
        let read = sb.run(&["read", &name]);
        if !read.status.success() {
            if soak.failed(i, turn, "read", &read) {
                break;
            }
            continue;
        }
        let answer = String::from_utf8_lossy(&read.stdout);
        if answer != format!("Response to: {prompt}\n") {
            if soak.was_killed(i) {
                soak.killed_turns.fetch_add(TURNS - turn, SeqCst);
                break;
            }
            soak.crossed.fetch_add(1, SeqCst);
            soak.note(format!("crossed: w{i} turn {turn}: read {answer:?}"));
            continue;
        }
        soak.done.fetch_add(1, SeqCst);
        soak.progress[i].store(turn + 1, SeqCst);
    }
    soak.progress[i].store(usize::MAX, SeqCst);
}

/// Runs one of `commands` (picked by the seeded generator) after a seeded pause of 50-300 ms,
/// until the drivers are done; each must exit 0 (and print JSON when asked to).
fn side_loop(sb: &Sandbox, soak: &Soak, seed: u64, commands: &[&[&str]]) {
    let mut lcg = Lcg(seed);
    while !soak.stop.load(SeqCst) {
        std::thread::sleep(Duration::from_millis(50 + lcg.below(250)));
        let args = commands[lcg.below(commands.len() as u64) as usize];
        let out = sb.run(args);
        soak.side_runs.fetch_add(1, SeqCst);
        let json_ok = !args.contains(&"--json")
            || serde_json::from_slice::<serde_json::Value>(&out.stdout).is_ok();
        if !out.status.success() || !json_ok {
            soak.side_failures.fetch_add(1, SeqCst);
            soak.note(format!("{} failed: {}", args.join(" "), said(&out)));
        } else if args[0] == "prune" {
            soak.pruned_live(&out);
        }
    }
}

/// Kills each victim once it has done its seeded number of turns (recording it as killed first).
fn killer(sb: &Sandbox, soak: &Soak, victims: &[(usize, usize)]) {
    let mut pending = victims.to_vec();
    while !pending.is_empty() && !soak.stop.load(SeqCst) {
        std::thread::sleep(Duration::from_millis(20));
        pending.retain(|&(i, after)| {
            let progress = soak.progress[i].load(SeqCst);
            if !soak.spawned[i].load(SeqCst) || progress < after {
                return true;
            }
            if progress == usize::MAX {
                // Its driver finished first (or its spawn failed): nothing left to kill mid-life.
                return false;
            }
            if let Ok(mut k) = soak.killed.lock() {
                k.insert(i);
            }
            let out = sb.run(&["kill", &format!("w{i}")]);
            soak.side_runs.fetch_add(1, SeqCst);
            if !out.status.success() {
                soak.side_failures.fetch_add(1, SeqCst);
                soak.note(format!("kill w{i} failed: {}", said(&out)));
            }
            false
        });
    }
}

/// How many workers that were spawned and never killed are missing from `ls --json` or not
/// `ready` there (a prune that took a live worker shows here).
fn missing_survivors(sb: &Sandbox, soak: &Soak) -> usize {
    let out = sb.run(&["ls", "--json"]);
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (0..WORKERS)
        .filter(|&i| soak.spawned[i].load(SeqCst) && !soak.was_killed(i))
        .filter(|i| {
            let name = format!("w{i}");
            let ready = listed
                .iter()
                .any(|w| w["name"] == name.as_str() && w["state"] == "ready");
            if !ready {
                soak.note(format!("{name} is not listed as ready before kill --all"));
            }
            !ready
        })
        .count()
}
