//! `--idle-timeout`: when did anything about the worker last move? Three signals, any of which
//! resets the clock: the event log grew, the screen changed, the transcript grew. A busy CLI's
//! status line (spinner glyph, elapsed seconds, "esc to interrupt") changes every second even
//! when the CLI is wedged, so those lines do not count as movement.

use super::super::Ctx;
use super::super::worker::Worker;
use crate::adapters::files;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::time::Instant;

/// The last observed state of the three signals.
pub struct Activity {
    pub last_change: Instant,
    log_len: usize,
    screen: u64,
    transcript: Option<(PathBuf, u64)>,
}

impl Activity {
    pub fn new() -> Self {
        Activity {
            last_change: Instant::now(),
            log_len: 0,
            screen: 0,
            transcript: None,
        }
    }

    /// Looks at the worker once; returns how long nothing has moved.
    pub fn observe(&mut self, ctx: &Ctx, worker: &Worker, log_len: usize) -> std::time::Duration {
        let mut changed = log_len != self.log_len;
        self.log_len = log_len;
        if let Ok(screen) = ctx.tmux.capture(worker.session(), false) {
            let mut hasher = DefaultHasher::new();
            still_part(&screen).hash(&mut hasher);
            let hash = hasher.finish();
            changed |= hash != self.screen;
            self.screen = hash;
        }
        if let Some(path) = worker.transcript_path(ctx) {
            let len = files::len(&path);
            changed |= self
                .transcript
                .as_ref()
                .is_none_or(|(p, l)| *p != path || *l != len);
            self.transcript = Some((path, len));
        }
        if changed {
            self.last_change = Instant::now();
        }
        self.last_change.elapsed()
    }
}

/// The screen without the lines a busy CLI redraws on its own.
fn still_part(screen: &str) -> String {
    screen
        .lines()
        .filter(|l| !(l.contains("esc to interrupt") || l.contains("esc to cancel")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spinner_lines_do_not_count_as_movement() {
        let a = "❯ go\n\n✻ Vibing… (3s · esc to interrupt)\n";
        let b = "❯ go\n\n✶ Vibing… (4s · esc to interrupt)\n";
        assert_eq!(still_part(a), still_part(b));
        assert_ne!(still_part(a), still_part("❯ go\n● Hello\n"));
        assert_eq!(still_part(" ⠋ Thinking... (esc to cancel, 7s)"), "");
    }
}
