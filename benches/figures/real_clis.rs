//! `just bench real`: the figures of docs/performance.md on the real CLIs — the offline tier's
//! pinned releases (`UMBEL_REAL_CLIS`, else installed by `scripts/realclis.sh`), signed in
//! against `fake-model` in the sandbox `tests/e2e/real.rs` prepares — instead of the fakes, which
//! start at once. Per CLI (all six; `just bench real NAME…` picks), [`RUNS`]
//! runs interleaved across them: spawn → ready, send → submit confirmed, end-of-turn hook →
//! `wait` returned, and `umbel -p "Say hi"` (cold) against the CLI's own print mode on the same
//! prompt, and warm `umbel -p --warm` (on the worker the
//! previous warm `-p` left; its refill is waited for off the clock); then one cold `-p` with
//! `UMBEL_DEBUG_TIMING=1`, step by step, and the first run a new user meets: `umbel -p` and the
//! CLI's own print mode, each the first thing run in a fresh HOME. Skipped, with a notice,
//! without node and npm.

use crate::harness::{Sandbox, assert_success, stdout};
use crate::ms;
use crate::perf::Row;
use serde_json::json;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs per figure and CLI (medians and p90 over these).
const RUNS: usize = 5;
const PROMPT: &str = "Say hi";
const CLIS: [&str; 6] = ["claude", "codex", "gemini", "qwen", "opencode", "copilot"];
/// Turns per spawned worker: the first send after a spawn meets a CLI still settling in (claude
/// takes its first paste ~0.4 s late), the later ones the CLI as a session runs it.
const TURNS: usize = 3;

/// The samples of one CLI.
#[derive(Default)]
struct Samples {
    spawn: Vec<Duration>,
    /// The first send after the spawn, and the later ones.
    send_first: Vec<Duration>,
    send: Vec<Duration>,
    hook_to_wait: Vec<Duration>,
    /// `umbel -p`: until its stdout ended (the answer is all out), and until it exited.
    print_answer: Vec<Duration>,
    print_exit: Vec<Duration>,
    own_print: Vec<Duration>,
    /// `umbel -p --warm` on the worker an earlier one left: until stdout ended, and exited.
    warm_answer: Vec<Duration>,
    warm_exit: Vec<Duration>,
    /// The session id of the warm worker ready for the next run.
    warm_ready: Option<String>,
}

/// The bench part; no rows when the real CLIs cannot be had. CLIs named among `only` (`just
/// bench real copilot`) are the only ones run.
pub fn figures(only: &[String]) -> Vec<Row> {
    let named: Vec<&str> = CLIS
        .iter()
        .copied()
        .filter(|c| only.iter().any(|o| o == c))
        .collect();
    let clis: &[&str] = if named.is_empty() { &CLIS } else { &named };
    let Some(dir) = real_clis() else {
        return Vec::new();
    };
    let sb = crate::real::sandbox_with(&dir);
    sb.scenario("hi", json!({ "default": { "reply": "Hi." } }));
    println!(
        "real CLIs ({}), {} build, {RUNS} interleaved runs each, load average {}:",
        dir.display(),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        load_average()
    );
    let mut samples: Vec<Samples> = clis.iter().map(|_| Samples::default()).collect();
    // The first warm worker of each CLI, left by a `-p --warm` before the runs.
    for (cli, s) in clis.iter().zip(samples.iter_mut()) {
        timed_print(&sb, cli, &[], true);
        s.warm_ready = Some(crate::perf::await_warm(&sb, cli, None));
    }
    for run in 0..RUNS {
        for (cli, s) in clis.iter().zip(samples.iter_mut()) {
            one_run(&sb, cli, run, s);
        }
    }
    let mut rows = Vec::new();
    let tally = umbel::adapters::send_tally::read(&sb.root.join("state"));
    for (cli, s) in clis.iter().zip(samples.iter_mut()) {
        rows.extend(report(&dir, cli, s));
        rows.push(enters(cli, &tally));
        steps(&sb, cli);
        rows.push(first_run(&dir, cli));
    }
    let _ = sb.run(&["kill", "--all", "--purge"]);
    crate::real::reap(&sb.root);
    rows
}

/// One run of every figure on `cli`.
fn one_run(sb: &Sandbox, cli: &str, run: usize, s: &mut Samples) {
    let name = format!("{cli}{run}");
    let t = Instant::now();
    assert_success(
        &sb.run(&["spawn", "--name", &name, "--provider", cli]),
        "spawn",
    );
    s.spawn.push(t.elapsed());
    let log = sb.session_dir(&name).join("events/log");
    for turn in 0..TURNS {
        let (send, hook_to_wait) = crate::timed_turn(sb, &name, &log, PROMPT);
        if turn == 0 {
            s.send_first.push(send);
        } else {
            s.send.push(send);
        }
        s.hook_to_wait.push(hook_to_wait);
    }
    let _ = sb.run(&["kill", &name, "--purge"]);
    let (answer, exit) = timed_print(sb, cli, &[], false);
    s.print_answer.push(answer);
    s.print_exit.push(exit);
    // Warm: the worker the previous warm `-p` left; the next one is waited for off the clock.
    let (answer, exit) = timed_print(sb, cli, &[], true);
    s.warm_answer.push(answer);
    s.warm_exit.push(exit);
    s.warm_ready = Some(crate::perf::await_warm(sb, cli, s.warm_ready.as_deref()));
    let t = Instant::now();
    let own = crate::real::print_mode(sb, cli, &[], PROMPT, "");
    s.own_print.push(t.elapsed());
    assert_success(&own, "the CLI's own print mode");
}

/// `umbel -p PROMPT` on `cli` (`--warm`: on the warm worker an earlier one left): the time
/// until its stdout ended, and until it exited.
fn timed_print(sb: &Sandbox, cli: &str, env: &[(&str, &str)], warm: bool) -> (Duration, Duration) {
    let mut args = vec!["-p", PROMPT, "--provider", cli];
    if warm {
        args.push("--warm");
    }
    let t = Instant::now();
    let mut child = sb
        .process(&args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("umbel -p");
    let mut answer = String::new();
    let _ = child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut answer);
    let answered = t.elapsed();
    let status = child.wait().expect("wait for umbel -p");
    let exited = t.elapsed();
    assert!(
        status.success() && !answer.trim().is_empty(),
        "umbel -p on {cli}: {status}, {answer:?}"
    );
    (answered, exited)
}

/// Prints one CLI's figures and returns its summary rows.
fn report(dir: &std::path::Path, cli: &str, s: &mut Samples) -> Vec<Row> {
    let (umbel, own) = (stats(&mut s.print_exit), stats(&mut s.own_print));
    let answer = stats(&mut s.print_answer);
    let warm = stats(&mut s.warm_exit);
    let warm_ratio = warm.0.as_secs_f64() / own.0.as_secs_f64().max(1e-9);
    let ratio = umbel.0.as_secs_f64() / own.0.as_secs_f64().max(1e-9);
    let send = stats(&mut s.send);
    println!("  {cli} {}:", version(dir, cli));
    for (what, v) in [
        ("spawn → ready", stats(&mut s.spawn)),
        (
            "send → submit confirmed, first after the spawn",
            stats(&mut s.send_first),
        ),
        ("send → submit confirmed, later turns", send),
        (
            "end-of-turn hook → wait returned",
            stats(&mut s.hook_to_wait),
        ),
        ("umbel -p, answer out (stdout ended)", answer),
        ("umbel -p, exited", umbel),
        (
            "warm umbel -p --warm, answer out",
            stats(&mut s.warm_answer),
        ),
        ("warm umbel -p --warm, exited", warm),
        ("the CLI's own print mode", own),
    ] {
        println!(
            "    {what}: median {:.0} ms, p90 {:.0} ms",
            ms(v.0),
            ms(v.1)
        );
    }
    println!(
        "    ratio umbel -p ÷ print mode (medians): {ratio:.2}× exited, {:.2}× answer out",
        answer.0.as_secs_f64() / own.0.as_secs_f64().max(1e-9)
    );
    println!("    ratio warm umbel -p ÷ print mode (medians): {warm_ratio:.2}× exited");
    vec![
        Row {
            figure: format!("real {cli}: `send` → submit confirmed, median (later turns)"),
            value: format!("{:.0} ms (p90 {:.0} ms)", ms(send.0), ms(send.1)),
            goal: "< 250 ms",
        },
        Row {
            figure: format!("real {cli}: warm `umbel -p` ÷ its own print mode"),
            value: format!(
                "{warm_ratio:.2}× ({:.2} s ÷ {:.2} s)",
                warm.0.as_secs_f64(),
                own.0.as_secs_f64()
            ),
            goal: "< 1×",
        },
        Row {
            figure: format!("real {cli}: cold `umbel -p` ÷ its own print mode"),
            value: format!(
                "{ratio:.2}× ({:.2} s ÷ {:.2} s)",
                umbel.0.as_secs_f64(),
                own.0.as_secs_f64()
            ),
            goal: match cli {
                "claude" => "≤ 1.7×",
                "codex" => "≤ 2.6×",
                _ => "≤ 1.3×",
            },
        },
    ]
}

/// The most Enters one of `cli`'s sends took in the whole run, from the state root's tally of
/// sends (every `send` and `-p` adds to it), with how many sends needed more than one.
fn enters(cli: &str, tally: &[umbel::core::send_tally::SendRecord]) -> Row {
    let sends: Vec<u32> = tally
        .iter()
        .filter(|r| r.provider == cli)
        .map(|r| r.enters)
        .collect();
    let most = sends.iter().copied().max().unwrap_or(0);
    let again = sends.iter().filter(|e| **e > 1).count();
    println!(
        "    Enters per send: at most {most} over {} sends ({again} took more than one)",
        sends.len()
    );
    Row {
        figure: format!(
            "real {cli}: most Enters one send took ({} sends)",
            sends.len()
        ),
        value: format!("{most} ({again} sends took more than one)"),
        goal: "≤ 2",
    }
}

/// The first run a new user meets: `umbel -p` as the first thing run in a fresh HOME (the CLI
/// signed in against fake-model, nothing else of it there yet), against the CLI's own print mode
/// as the first thing in another — one sample each, as a first run happens once per HOME.
fn first_run(dir: &std::path::Path, cli: &str) -> Row {
    let fresh = || {
        let sb = crate::real::sandbox_with(dir);
        sb.scenario("hi", json!({ "default": { "reply": "Hi." } }));
        sb
    };
    let ours = fresh();
    let (_, umbel) = timed_print(&ours, cli, &[], false);
    let _ = ours.run(&["kill", "--all", "--purge"]);
    crate::real::reap(&ours.root);
    let theirs = fresh();
    let t = Instant::now();
    let own_out = crate::real::print_mode(&theirs, cli, &[], PROMPT, "");
    let own = t.elapsed();
    assert_success(&own_out, "the CLI's own print mode, first run");
    crate::real::reap(&theirs.root);
    let ratio = umbel.as_secs_f64() / own.as_secs_f64().max(1e-9);
    println!(
        "    first run in a fresh HOME: umbel -p {:.0} ms, its own print mode {:.0} ms ({ratio:.2}×)",
        ms(umbel),
        ms(own)
    );
    Row {
        figure: format!("real {cli}: first `umbel -p` in a fresh HOME ÷ its own print mode's"),
        value: format!(
            "{ratio:.2}× ({:.2} s ÷ {:.2} s, one sample)",
            umbel.as_secs_f64(),
            own.as_secs_f64()
        ),
        goal: "—",
    }
}

/// One cold `-p` with `UMBEL_DEBUG_TIMING=1`: where its time goes, step by step.
fn steps(sb: &Sandbox, cli: &str) {
    let out = sb
        .process(&["-p", PROMPT, "--provider", cli])
        .env("UMBEL_DEBUG_TIMING", "1")
        .stdin(Stdio::null())
        .output()
        .expect("umbel -p");
    assert_success(&out, "umbel -p with timing");
    let text = String::from_utf8_lossy(&out.stderr);
    let mut marks: Vec<(f64, &str)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("umbel: timing "))
        .filter_map(|l| {
            let (ms, step) = l.split_once(" ms ")?;
            Some((ms.parse().ok()?, step))
        })
        .collect();
    marks.sort_by(|a, b| a.0.total_cmp(&b.0));
    let listed: Vec<String> = marks
        .iter()
        .map(|(ms, step)| format!("{ms:+.0} {step}"))
        .collect();
    println!("    a cold -p step by step (ms): {}", listed.join(", "));
    shares(&marks);
}

/// A cold `-p`'s time split into the CLI's own steps — its start (tmux session → ready), taking
/// the prompt (paste → its submit hook), the turn (submit hook → end hook) — and what is left,
/// umbel's own: how close a cold `-p` is to the floor the interactive TUI sets.
fn shares(marks: &[(f64, &str)]) {
    let at = |names: &[&str]| {
        marks
            .iter()
            .find(|(_, s)| names.contains(s))
            .map(|(ms, _)| *ms)
    };
    let (Some(session), Some(ready), Some(paste), Some(submit), Some(end), Some(printed)) = (
        at(&["tmux session started"]),
        at(&["ready"]),
        at(&["send: paste issued"]),
        at(&[
            "hook UserPromptSubmit",
            "hook BeforeAgent",
            "hook SessionCreated",
            "hook PromptTaken",
            "hook SessionBusy",
        ]),
        at(&["hook Stop", "hook AfterAgent", "hook SessionIdle"]),
        at(&["answer printed"]),
    ) else {
        return;
    };
    let cli = (ready - session) + (submit - paste) + (end - submit);
    println!(
        "    the CLI's own: start {:.0} ms, taking the prompt {:.0} ms, the turn {:.0} ms = {cli:.0} \
         of {printed:.0} ms; umbel's own: {:.0} ms",
        ready - session,
        submit - paste,
        end - submit,
        printed - cli
    );
}

/// Median and p90 (nearest rank) of `v`.
fn stats(v: &mut [Duration]) -> (Duration, Duration) {
    v.sort();
    let at = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.9))
}

/// The pinned CLIs' folder: `UMBEL_REAL_CLIS`, else what `scripts/realclis.sh` installs and
/// prints; `None` (after saying why) without node or npm.
pub fn real_clis() -> Option<PathBuf> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        println!("real: SKIPPED: node is not installed (the real CLIs run on node >= 20)");
        return None;
    }
    if let Some(dir) = std::env::var_os("UMBEL_REAL_CLIS") {
        return Some(PathBuf::from(dir));
    }
    let out = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/realclis.sh"))
        .env("UMBEL_BIN", assert_cmd::cargo::cargo_bin("umbel"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(Stdio::inherit())
        .output()
        .ok()?;
    if !out.status.success() {
        println!("real: SKIPPED: scripts/realclis.sh could not provide the real CLIs (see above)");
        return None;
    }
    Some(PathBuf::from(stdout(&out).trim()))
}

/// The pinned release of `cli`, from the install folder its link in `dir` points into
/// (`…/clis/claude-2.1.332/…`).
fn version(dir: &std::path::Path, cli: &str) -> String {
    let target = std::fs::canonicalize(dir.join(cli)).unwrap_or_default();
    target
        .components()
        .find_map(|c| {
            let c = c.as_os_str().to_string_lossy();
            c.strip_prefix(&format!("{cli}-")).map(str::to_string)
        })
        .unwrap_or_default()
}

/// The 1-minute load average the figures were measured under.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}
