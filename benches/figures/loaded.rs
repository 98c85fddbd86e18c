//! `just bench load`: the latency rows on every fake CLI twice — on the machine as it is, then
//! with two busy processes the bench starts (and stops) itself beside them — side by side: the
//! end-of-turn hook → `umbel wait` returned (p50/p99) and `send` → submit confirmed (median).
//! Goal under that load: hook → wait p50 < 10 ms, p99 < 40 ms.

use crate::harness::Sandbox;
use crate::perf::Row;
use crate::{TURNS, ms, pct};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How many busy processes make the load (the machines this runs on have two cores).
const HOGS: usize = 2;
/// The six fake CLIs.
const PROVIDERS: [&str; 6] = ["claude", "codex", "gemini", "qwen", "opencode", "copilot"];

/// One condition's figures for one provider.
struct Latency {
    p50: Duration,
    p99: Duration,
    send: Duration,
}

/// Busy processes (`sh` spinning), killed when dropped.
struct Hogs(Vec<Child>);

impl Hogs {
    fn start() -> Hogs {
        let spin = || {
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .spawn()
                .expect("start a busy process")
        };
        Hogs((0..HOGS).map(|_| spin()).collect())
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for hog in &mut self.0 {
            let _ = hog.kill();
            let _ = hog.wait();
        }
    }
}

/// The figures: per provider, idle then loaded, printed as they come and as summary rows.
pub fn figures(only: &[String]) -> Vec<Row> {
    let picked: Vec<&str> = PROVIDERS
        .into_iter()
        .filter(|p| only.iter().all(|o| o == "load") || only.iter().any(|o| o == p))
        .collect();
    println!("load: {TURNS} turns per CLI (fakes), idle, then beside {HOGS} busy processes");
    println!(
        "  load average at the start: {}",
        crate::real_clis::load_average()
    );
    let mut rows = Vec::new();
    for provider in picked {
        let idle = measure(provider);
        let hogs = Hogs::start();
        std::thread::sleep(Duration::from_millis(500));
        let loaded = measure(provider);
        let during = crate::real_clis::load_average();
        drop(hogs);
        println!(
            "  {provider}: hook → wait p50 {:.1} / {:.1} ms, p99 {:.1} / {:.1} ms; send median {:.0} / {:.0} ms (idle / loaded; load average {during})",
            ms(idle.p50),
            ms(loaded.p50),
            ms(idle.p99),
            ms(loaded.p99),
            ms(idle.send),
            ms(loaded.send)
        );
        rows.push(Row {
            figure: format!("{provider}: hook → wait, idle"),
            value: format!("p50 {:.1} ms, p99 {:.1} ms", ms(idle.p50), ms(idle.p99)),
            goal: "p50 < 5 ms, p99 < 20 ms",
        });
        rows.push(Row {
            figure: format!("{provider}: hook → wait, {HOGS} busy processes"),
            value: format!("p50 {:.1} ms, p99 {:.1} ms", ms(loaded.p50), ms(loaded.p99)),
            goal: "p50 < 10 ms, p99 < 40 ms",
        });
    }
    rows
}

/// The turns of [`crate::turn_samples`] on a fresh sandbox's worker of `provider`.
fn measure(provider: &str) -> Latency {
    let (sends, waits) = crate::turn_samples(&Sandbox::new(), provider);
    Latency {
        p50: pct(&waits, 0.50),
        p99: pct(&waits, 0.99),
        send: pct(&sends, 0.50),
    }
}
