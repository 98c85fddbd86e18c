//! `umbel top` with 100 workers (mixed providers, one turn each, so every row has an answer and
//! tokens): how long a frame takes to draw, how long a look at the fleet takes (the first, and
//! one when nothing changed), the CPU of a live view left alone in a tmux pane, and what adding
//! up a long session's tokens costs a look.

use crate::harness::Sandbox;
use crate::perf::Row;
use crate::top_pane::TopPane;
use crate::{load, ms};
use std::time::{Duration, Instant};
use umbel::faces::top::model::View;
use umbel::faces::top::render::draw;
use umbel::operations::Ctx;
use umbel::operations::fleet::Fleet;

const WORKERS: usize = 100;

/// How long the live view is watched while nothing happens.
const IDLE: Duration = Duration::from_secs(10);

/// A claude transcript of about 20 MB: the recorded session repeated, each copy's message ids
/// its own.
fn long_session() -> String {
    let one = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/claude/claude-2.1.332-transcript-session1.jsonl"
    ))
    .expect("the recorded session");
    let copies = (20 * 1024 * 1024) / one.len() + 1;
    (0..copies)
        .map(|n| one.replace("\"msg_", &format!("\"msg_{n}_")))
        .collect()
}

/// The TOKENS/COST columns of a worker with a long session while its answer streams: a whole
/// re-read of the transcript (what a look did before) against adding the last 10 KB.
fn usage_figure() -> Row {
    use umbel::core::fleet::Usage;
    use umbel::core::providers::Provider;
    use umbel::core::usage_tally::UsageTally;
    let text = long_session();
    let cut = text[..text.len() - 10 * 1024].rfind('\n').expect("a line") + 1;
    let t = Instant::now();
    let whole = Usage::of_lines(Provider::Claude, text.lines());
    let reread = t.elapsed();
    let mut tally = UsageTally::new(Provider::Claude);
    tally.feed(&text.as_bytes()[..cut]);
    let t = Instant::now();
    tally.feed(&text.as_bytes()[cut..]);
    let added = tally.usage();
    let step = t.elapsed();
    assert_eq!(added.map(|u| u.tokens), whole.map(|u| u.tokens));
    println!(
        "  a {} MB claude session's usage: whole re-read {:.0} ms; adding its last {} KB {:.2} ms",
        text.len() / (1024 * 1024),
        ms(reread),
        (text.len() - cut) / 1024,
        ms(step),
    );
    Row {
        figure: "top: usage of a 20 MB session, a look while it grows".into(),
        value: format!("{:.2} ms (whole re-read {:.0} ms)", ms(step), ms(reread)),
        goal: "(no goal)",
    }
}

pub fn top_figures() -> Vec<Row> {
    let usage = usage_figure();
    let started = Instant::now();
    let sb = load::fleet(WORKERS, 1, 4);
    println!(
        "top: {WORKERS} workers ready in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let ctx = Ctx::from_env(sb.env()).expect("context");
    let mut fleet = Fleet::default();
    let t = Instant::now();
    let rows = fleet.look(&ctx).expect("look");
    let first_look = t.elapsed();
    assert_eq!(rows.len(), WORKERS);
    let looks: Vec<Duration> = (0..10)
        .map(|_| {
            let t = Instant::now();
            fleet.look(&ctx).expect("look");
            t.elapsed()
        })
        .collect();
    let mut view = View::new(true);
    view.set_rows(rows);
    view.now_ms = umbel::adapters::host::now_ms();
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 50)).expect("terminal");
    let draws: Vec<Duration> = (0..200)
        .map(|i| {
            // A moving selection and clock, so each frame differs from the last.
            view.move_selection(if i % 40 < 20 { 1 } else { -1 });
            view.now_ms += 1000;
            let t = Instant::now();
            terminal.draw(|f| draw(f, &mut view)).expect("draw");
            t.elapsed()
        })
        .collect();
    let (cpu_share, seen) = idle_cpu(&sb);
    let _ = sb.run(&["kill", "--all", "--purge"]);
    println!(
        "  draw a 200×50 frame: p50 {:.2} ms, p99 {:.2} ms; look at the fleet: first {:.0} ms, unchanged p50 {:.0} ms",
        ms(percentile(&draws, 50)),
        ms(percentile(&draws, 99)),
        ms(first_look),
        ms(percentile(&looks, 50)),
    );
    println!(
        "  live view left alone {} s in a tmux pane ({seen}): {:.2}% of a core",
        IDLE.as_secs(),
        cpu_share * 100.0
    );
    vec![
        usage,
        Row {
            figure: format!("top: redraw, {WORKERS} workers (p99)"),
            value: format!("{:.2} ms", ms(percentile(&draws, 99))),
            goal: "< 20 ms",
        },
        Row {
            figure: format!("top: a look at {WORKERS} workers (unchanged, p50)"),
            value: format!("{:.0} ms", ms(percentile(&looks, 50))),
            goal: "(no goal)",
        },
        Row {
            figure: format!("top: CPU of the idle view, {WORKERS} workers"),
            value: format!("{:.2}% of a core", cpu_share * 100.0),
            goal: "< 1%",
        },
    ]
}

/// The live view's CPU per second over [`IDLE`], once it shows the fleet.
fn idle_cpu(sb: &Sandbox) -> (f64, String) {
    let top = TopPane::start(sb);
    let screen = top.until("the fleet", |s| s.contains(&format!("{WORKERS} workers")));
    let title = screen.lines().next().unwrap_or("").to_string();
    // The first looks (answers and transcripts read once) are not idle.
    std::thread::sleep(Duration::from_secs(2));
    let pid = top.top_pid();
    let before = cpu_ticks(pid);
    let t = Instant::now();
    std::thread::sleep(IDLE);
    let used = (cpu_ticks(pid) - before) as f64 / ticks_per_second();
    (used / t.elapsed().as_secs_f64(), title)
}

/// utime + stime of a process, in clock ticks.
pub fn cpu_ticks(pid: i32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    // After the command name's closing parenthesis: state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let field = |n: usize| fields[n - 3].parse::<u64>().unwrap_or(0);
    field(14) + field(15)
}

pub fn ticks_per_second() -> f64 {
    rustix::param::clock_ticks_per_second() as f64
}

fn percentile(samples: &[Duration], p: usize) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}
