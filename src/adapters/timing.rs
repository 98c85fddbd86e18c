//! `UMBEL_DEBUG_TIMING=1`: one line on stderr at each step of a spawn and a turn (`umbel: timing
//! +412.3 ms ready`), the time since the first step this process marked. For finding where a
//! `-p` spends its time on the real CLIs (docs/performance.md); silent and free without it.

use std::io::Write;
use std::sync::OnceLock;
use std::time::Instant;

/// When the first step was marked, if timing is on.
fn start() -> Option<Instant> {
    static START: OnceLock<Option<Instant>> = OnceLock::new();
    *START.get_or_init(|| {
        std::env::var_os("UMBEL_DEBUG_TIMING")
            .is_some_and(|v| !v.is_empty() && v != "0")
            .then(Instant::now)
    })
}

/// Notes that `step` is done (nothing unless `UMBEL_DEBUG_TIMING` is set).
pub fn mark(step: &str) {
    if let Some(start) = start() {
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let _ = writeln!(std::io::stderr(), "umbel: timing +{ms:.1} ms {step}");
    }
}
