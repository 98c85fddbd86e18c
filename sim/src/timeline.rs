//! The skeleton every fake's turn shares: delay → stream → end.
//!
//! A turn waits out `delay_ms` ([`Phase::Delay`]), streams its reply chunk
//! by chunk, `chunk_ms` apart ([`Phase::Stream`], paced by [`Pacer`]), and
//! then ends. What an ending, a dialog or a record looks like stays with
//! each CLI's `turn.rs`.

use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::json::Obj;

/// The end-of-turn hook (`Stop`, `StopFailure`, `Interrupt`, …) to fire once the screen is idle.
#[derive(Clone, Debug, PartialEq)]
pub struct EndHook {
    /// The hook event.
    pub event: &'static str,
    /// Its payload.
    pub payload: Obj,
}

/// Records the real CLIs write a little after their end-of-turn hook (`late_transcript_ms`).
#[derive(Clone, Debug, PartialEq)]
pub struct Late {
    /// When to write them.
    pub due: Instant,
    /// The records, already stamped.
    pub records: Vec<Obj>,
}

/// Where a turn is.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// Busy, nothing shown yet, until the instant.
    Delay(Instant),
    /// Streaming; next chunk at the instant.
    Stream(Instant),
    /// A tool dialog is up (Claude's permission dialog, cursor 0..=3;
    /// Codex's approval prompt and Gemini's confirmation, 0..=2).
    Dialog(usize),
    /// Busy forever.
    Wedged,
}

impl Phase {
    /// When the turn should next be ticked (`None`: only keys move it on).
    pub fn deadline(&self) -> Option<Instant> {
        match self {
            Phase::Delay(t) | Phase::Stream(t) => Some(*t),
            Phase::Dialog(_) | Phase::Wedged => None,
        }
    }

    /// True while the busy indicator shows (not while a dialog is up).
    pub fn busy(&self) -> bool {
        !matches!(self, Phase::Dialog(_))
    }
}

/// Hands out the reply's chunks, moving the virtual clock `chunk_ms` before
/// every chunk but the first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pacer {
    chunks: Vec<String>,
    next: usize,
    chunk_ms: u64,
}

impl Pacer {
    /// Paces `chunks`, `chunk_ms` apart.
    pub fn new(chunks: Vec<String>, chunk_ms: u64) -> Pacer {
        Pacer {
            chunks,
            next: 0,
            chunk_ms,
        }
    }

    /// Starts over with new chunks (a new answer block after a tool call).
    pub fn restart(&mut self, chunks: Vec<String>) {
        self.chunks = chunks;
        self.next = 0;
    }

    /// The next chunk (empty past the end), and when the one after it is
    /// due (`None`: that was the last).
    pub fn step(&mut self, clock: &mut Clock, now: Instant) -> (String, Option<Instant>) {
        let chunk = self.chunks.get(self.next).cloned().unwrap_or_default();
        if self.next > 0 {
            clock.advance(self.chunk_ms);
        }
        self.next += 1;
        let due =
            (self.next < self.chunks.len()).then(|| now + Duration::from_millis(self.chunk_ms));
        (chunk, due)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacer_advances_the_clock_between_chunks_only() {
        let mut clock = Clock::at_ms(0);
        let now = Instant::now();
        let mut p = Pacer::new(vec!["a ".into(), "b".into()], 50);
        assert_eq!(
            p.step(&mut clock, now),
            ("a ".to_string(), Some(now + Duration::from_millis(50)))
        );
        assert_eq!(clock.now_ms(), 0);
        assert_eq!(p.step(&mut clock, now), ("b".to_string(), None));
        assert_eq!(clock.now_ms(), 50);
    }
}
