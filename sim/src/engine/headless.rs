//! A turn without a terminal: the print modes (`claude -p`, `codex exec`,
//! `gemini -p`) all play their one turn the same way.
//!
//! [`play`] ticks the turn at each deadline (sleeping in between) until it
//! ends, stopping on the first write error; a crash, a signal or a lost
//! session end the run there. [`settle`] waits out the records the CLI
//! writes late and checks the writes once more.

use std::time::{Duration, Instant};

use super::host::Host;
use super::timeline::{self, Late, Outcome, Timeline};

/// How a played turn left the run.
pub enum Played<D> {
    /// It answered (or failed with an API error): the rest of the run goes on.
    Done(D),
    /// The run is over with this exit status (crash, lost session).
    Over(i32),
}

/// Plays `turn` to its end; `each` sees the turn after every tick (to print
/// its events; an error from it ends the run), `sign_in` reports a lost
/// session and gives the exit status.
pub fn play<T: Timeline>(
    name: &str,
    turn: &mut T,
    sess: &mut T::Sess,
    mut each: impl FnMut(&mut T, &mut T::Sess) -> Result<(), String>,
    sign_in: impl FnOnce() -> i32,
) -> Result<Played<T::Done>, String>
where
    T::Sess: Host,
{
    let outcome = loop {
        let now = Instant::now();
        let outcome = timeline::tick(turn, sess, now);
        each(turn, sess)?;
        if let Some(o) = outcome {
            break o;
        }
        if let Some(err) = sess.take_fatal() {
            return Err(err);
        }
        let wait = turn
            .core_ref()
            .deadline()
            .map_or(Duration::from_secs(3600), |d| {
                d.saturating_duration_since(now)
            });
        std::thread::sleep(wait);
    };
    Ok(match outcome {
        Outcome::Done(done) => Played::Done(done),
        Outcome::Exit(n) => {
            eprintln!("{name}: simulated crash (exit status {n})");
            Played::Over(n)
        }
        Outcome::Signal(s) => crate::selfkill::kill_self(&s),
        // Mid-run loss of the session ends the run as a startup without one does.
        Outcome::SignIn => Played::Over(sign_in()),
    })
}

/// Writes the held-back records when due, then stops on any write error.
pub fn settle(sess: &mut impl Host, late: Option<Late>) -> Result<(), String> {
    if let Some(late) = late {
        std::thread::sleep(late.due.saturating_duration_since(Instant::now()));
        sess.write(&late.records);
    }
    match sess.take_fatal() {
        Some(err) => Err(err),
        None => Ok(()),
    }
}
