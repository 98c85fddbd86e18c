//! `UMBEL_DEBUG_PAUSE=<point>:<file>` (debug builds only): when umbel reaches the named point it
//! creates `<file>` and waits until the file is removed, so a test acts at the exact moment of a
//! race (between a `prune`'s listing and its sweep, say) instead of guessing it with a sleep.
//! The wait ends by itself after a minute, so a test that never releases it cannot hang umbel.
//! In a release build every call is empty.

/// Pauses at `point` when `UMBEL_DEBUG_PAUSE` names it (debug builds only).
pub fn at(point: &str) {
    #[cfg(debug_assertions)]
    if let Some(marker) = marker_for(point) {
        hold(&marker);
    }
    #[cfg(not(debug_assertions))]
    let _ = point;
}

/// The marker file `UMBEL_DEBUG_PAUSE` gives for `point`, when it names that point.
#[cfg(debug_assertions)]
fn marker_for(point: &str) -> Option<std::path::PathBuf> {
    parse(&std::env::var("UMBEL_DEBUG_PAUSE").ok()?, point)
}

/// The marker file of `spec` (`<point>:<file>`) when its point is `point`.
#[cfg_attr(not(debug_assertions), allow(dead_code))]
fn parse(spec: &str, point: &str) -> Option<std::path::PathBuf> {
    let (named, file) = spec.split_once(':')?;
    (named == point && !file.is_empty()).then(|| file.into())
}

/// Creates `marker` and waits (at most a minute) until it is gone.
#[cfg(debug_assertions)]
fn hold(marker: &std::path::Path) {
    use std::time::{Duration, Instant};
    if std::fs::write(marker, b"").is_err() {
        return;
    }
    let until = Instant::now() + Duration::from_secs(60);
    while marker.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_point_pauses_and_only_with_a_file() {
        let spec = "prune-listed:/tmp/m";
        assert_eq!(parse(spec, "prune-listed"), Some("/tmp/m".into()));
        assert_eq!(parse(spec, "prune"), None);
        assert_eq!(parse("prune-listed:", "prune-listed"), None);
        assert_eq!(parse("prune-listed", "prune-listed"), None);
    }
}
