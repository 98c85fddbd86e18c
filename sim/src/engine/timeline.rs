//! The skeleton every fake's turn shares: delay → stream → end.
//!
//! A turn waits out `delay_ms` ([`Phase::Delay`]), streams its reply chunk
//! by chunk, `chunk_ms` apart ([`Phase::Stream`], paced by [`Pacer`]), and
//! then ends. [`Core`] holds that state and [`tick`] walks it for any
//! [`Timeline`]; what an ending, a dialog or a record looks like stays with
//! each CLI's `turn.rs`, behind the trait's hooks ([`super::menu`] has the
//! tool dialogs' keys).

use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::json::Obj;
use crate::scenario::{Chosen, End};

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

/// The state every fake's turn has: where it is, what it plays, what it has shown.
#[derive(Clone, Debug)]
pub struct Core {
    /// Current phase.
    pub phase: Phase,
    /// Real start time (for the busy indicator).
    pub started: Instant,
    /// Virtual start time (ms).
    pub start_ms: i64,
    /// Lines to add to the screen's history.
    pub commits: Vec<String>,
    /// The scenario turn being played.
    pub chosen: Chosen,
    /// The reply's chunks.
    pub pacer: Pacer,
    /// True once a tool call was answered (the text after it streams next).
    pub after_tool: bool,
}

impl Core {
    /// A turn playing `chosen`, streaming `chunks` once its delay is over.
    pub fn new(chosen: Chosen, chunks: Vec<String>, now: Instant, start_ms: i64) -> Core {
        Core {
            phase: Phase::Delay(now + Duration::from_millis(chosen.delay_ms)),
            started: now,
            start_ms,
            commits: Vec::new(),
            pacer: Pacer::new(chunks, chosen.chunk_ms),
            after_tool: false,
            chosen,
        }
    }

    /// When the turn should next be ticked (`None`: only keys move it on).
    pub fn deadline(&self) -> Option<Instant> {
        self.phase.deadline()
    }

    /// True while the busy indicator shows (not while a dialog is up).
    pub fn busy(&self) -> bool {
        self.phase.busy()
    }

    /// A tool call was answered: the text after it streams from `now`.
    pub fn resume(&mut self, now: Instant) {
        self.after_tool = true;
        self.pacer.restart(self.chosen.chunks());
        self.phase = Phase::Stream(now);
    }

    /// The late-write delay (`late_transcript_ms`), moving the virtual clock past it.
    pub fn late_ms(&self, clock: &mut Clock) -> Option<u64> {
        let ms = self.chosen.late_transcript_ms.filter(|ms| *ms > 0)?;
        clock.advance(ms);
        Some(ms)
    }
}

/// Holds `records` back `ms` (`Some`), or hands them to `write` now.
pub fn hold(
    ms: Option<u64>,
    now: Instant,
    records: Vec<Obj>,
    write: impl FnOnce(&[Obj]),
) -> Option<Late> {
    match ms {
        Some(ms) => Some(Late {
            due: now + Duration::from_millis(ms),
            records,
        }),
        None => {
            write(&records);
            None
        }
    }
}

/// How a turn ended; `D` is the provider's answer (hooks, records, text).
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<D> {
    /// Back to idle.
    Done(D),
    /// Exit with this status now (`crash`).
    Exit(i32),
    /// Kill the process with this signal now (`signal`).
    Signal(String),
    /// The session is lost: show the sign-in screen and stay there (`sign_in`).
    SignIn,
}

/// What a hook returns: `None` to let the skeleton go on, `Some(result)` to
/// stop the tick there with `result`.
pub type Step<O> = Option<Option<O>>;

/// One CLI's turn, as [`tick`] drives it.
pub trait Timeline {
    /// The session the turn writes through.
    type Sess;
    /// What a finished turn hands back.
    type Done;
    /// The shared state.
    fn core_ref(&self) -> &Core;
    /// The shared state, to change.
    fn core_mut(&mut self) -> &mut Core;
    /// The session's virtual clock.
    fn clock(sess: &mut Self::Sess) -> &mut Clock;
    /// Starts the turn: its opening records and hooks.
    fn start(&mut self, sess: &mut Self::Sess);
    /// The delay is over: an ending that comes before any text (API error, a tool call first).
    fn delay_over(&mut self, _sess: &mut Self::Sess, _now: Instant) -> Step<Outcome<Self::Done>> {
        None
    }
    /// The text starts streaming.
    fn text_starts(&mut self, _sess: &mut Self::Sess) {}
    /// A streamed chunk arrived.
    fn chunk(&mut self, chunk: String);
    /// Moves the rest of the streamed text into the history.
    fn commit_rest(&mut self);
    /// The text is done: an ending that comes instead of the answer (a tool call, a question).
    fn text_over(&mut self, _sess: &mut Self::Sess, _now: Instant) -> Step<Outcome<Self::Done>> {
        None
    }
    /// The answer is complete.
    fn finish(&mut self, sess: &mut Self::Sess, now: Instant) -> Outcome<Self::Done>;
}

/// Advances `turn` when its deadline has passed: delay, then chunks, then the ending.
pub fn tick<T: Timeline>(
    turn: &mut T,
    sess: &mut T::Sess,
    now: Instant,
) -> Option<Outcome<T::Done>> {
    match turn.core_mut().phase {
        Phase::Delay(t) if now >= t => {
            let ms = turn.core_mut().chosen.delay_ms;
            T::clock(sess).advance(ms);
            if let Some(stop) = turn.delay_over(sess, now) {
                return stop;
            }
            turn.text_starts(sess);
            turn.core_mut().phase = Phase::Stream(now);
            tick(turn, sess, now)
        }
        Phase::Stream(t) if now >= t => {
            let (chunk, due) = turn.core_mut().pacer.step(T::clock(sess), now);
            turn.chunk(chunk);
            if let Some(due) = due {
                turn.core_mut().phase = Phase::Stream(due);
                return None;
            }
            text_done(turn, sess, now)
        }
        _ => None,
    }
}

fn text_done<T: Timeline>(
    turn: &mut T,
    sess: &mut T::Sess,
    now: Instant,
) -> Option<Outcome<T::Done>> {
    if let Some(stop) = turn.text_over(sess, now) {
        return stop;
    }
    let after_tool = turn.core_ref().after_tool;
    let abrupt = match turn.core_mut().chosen.end.clone() {
        End::Permission(p) if p.then_wedge && after_tool => {
            turn.core_mut().phase = Phase::Wedged;
            return None;
        }
        End::Wedge => {
            turn.core_mut().phase = Phase::Wedged;
            return None;
        }
        End::Crash(n) => Outcome::Exit(n),
        End::Signal(s) => Outcome::Signal(s),
        End::SignIn => Outcome::SignIn,
        _ => return Some(turn.finish(sess, now)),
    };
    turn.commit_rest();
    Some(abrupt)
}

/// The [`Timeline`] accessors every fake's turn has alike: a `core` field,
/// a `Done` type beside it, and a session `$sess` with a `clock` field.
#[macro_export]
macro_rules! timeline_parts {
    ($sess:ty) => {
        type Sess = $sess;
        type Done = Done;

        fn core_ref(&self) -> &$crate::engine::timeline::Core {
            &self.core
        }

        fn core_mut(&mut self) -> &mut $crate::engine::timeline::Core {
            &mut self.core
        }

        fn clock(sess: &mut $sess) -> &mut $crate::clock::Clock {
            &mut sess.clock
        }
    };
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
