//! `UMBEL_DEBUG_TIMING=1`: one line on stderr at each step of a spawn and a turn (`umbel: timing
//! +412.3 ms ready`), the time since the first step this process marked; the CLI's own hooks
//! are marked too, at the time each hook wrote its line (`hook SessionStart`), so a step log
//! tells the CLI's share of a `-p` from umbel's. For finding where a `-p` spends its time on the
//! real CLIs (docs/performance.md); silent and free without it.

use std::io::Write;
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// When the first step was marked (on both clocks), if timing is on.
fn start() -> Option<(Instant, SystemTime)> {
    static START: OnceLock<Option<(Instant, SystemTime)>> = OnceLock::new();
    *START.get_or_init(|| {
        std::env::var_os("UMBEL_DEBUG_TIMING")
            .is_some_and(|v| !v.is_empty() && v != "0")
            .then(|| (Instant::now(), SystemTime::now()))
    })
}

/// Whether timing is on (so a caller skips gathering what it would mark).
pub fn enabled() -> bool {
    start().is_some()
}

/// Notes that `step` is done (nothing unless `UMBEL_DEBUG_TIMING` is set).
pub fn mark(step: &str) {
    if let Some((start, _)) = start() {
        print(start.elapsed().as_secs_f64() * 1000.0, step);
    }
}

/// Notes that `step` happened at `at_ns` (nanoseconds since the Unix epoch: a hook's own time),
/// on the same scale as [`mark`]; before the first step it is negative.
pub fn mark_at(step: &str, at_ns: u128) {
    if let Some((_, wall)) = start() {
        let origin = wall.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        print((at_ns as f64 - origin as f64) / 1e6, step);
    }
}

/// Notes that `step` is done now on the wall clock (`umbel: timing @NS step`, nanoseconds since
/// the Unix epoch), for a bench to set against a moment on its own clock.
pub fn mark_wall(step: &str) {
    if start().is_some() {
        let ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let _ = writeln!(std::io::stderr(), "umbel: timing @{ns} {step}");
    }
}

fn print(ms: f64, step: &str) {
    let _ = writeln!(std::io::stderr(), "umbel: timing {ms:+.1} ms {step}");
}
