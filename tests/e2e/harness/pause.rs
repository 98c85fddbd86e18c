//! A pause point of umbel (`UMBEL_DEBUG_PAUSE`, src/adapters/pause.rs) held by a test: the
//! command stops at the named point, the test does what the race needs, then releases it.

use super::{Sandbox, Test};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A pause point a test holds; released (the marker removed) when dropped.
pub struct Pause {
    point: &'static str,
    marker: PathBuf,
}

impl Pause {
    /// Pause point `point` in `sb` (the marker file lives in the sandbox).
    pub fn new(sb: &Sandbox, point: &'static str) -> Self {
        let marker = sb.root.join(format!("pause-{point}"));
        Pause { point, marker }
    }

    /// `test` with the pause set on it.
    pub fn on<'a>(&self, test: Test<'a>) -> Test<'a> {
        let spec = format!("{}:{}", self.point, self.marker.display());
        test.env("UMBEL_DEBUG_PAUSE", &spec)
    }

    /// Waits until the command stands at the point (at most a minute).
    pub fn reached(&self) {
        let until = Instant::now() + Duration::from_secs(60);
        while !self.marker.exists() {
            assert!(
                Instant::now() < until,
                "umbel never reached `{}`",
                self.point
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Lets the command go on.
    pub fn release(&self) {
        let _ = std::fs::remove_file(&self.marker);
    }
}

impl Drop for Pause {
    fn drop(&mut self) {
        self.release();
    }
}
