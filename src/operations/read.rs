//! `read`: the answer of the worker's last finished turn, or the turns `--turn`, `--all` or
//! `--since-turn` select.

use super::Ctx;
use super::turns::{Selection, read_turns, selection};
use super::worker::{Answer, Worker};
use crate::core::args::ReadArgs;
use crate::core::errors::{Error, Result};
use crate::core::turns::Turn;

/// What `read` found.
#[derive(Debug, Clone)]
pub enum Reading {
    /// No turn flag: the last finished turn's answer (hook payload first, then transcript).
    Last(Answer),
    /// The selected turns, from the transcript.
    Turns(Selection, Vec<Turn>),
}

/// Reads the last turn's answer. The hooks may say the turn ended before the CLI has written
/// it to its transcript (copilot's log lags its end hook, seconds on a loaded machine): that
/// turn is waited for, as `read --all` does, before there is no answer to read.
pub fn read(ctx: &Ctx, worker: &Worker) -> Result<Answer> {
    match worker.answer(ctx) {
        Err(Error::NoAnswer { .. }) => {
            worker.await_recorded(ctx, &worker.recent_events(ctx)?);
            worker.answer(ctx)
        }
        answered => answered,
    }
}

/// Reads what the flags ask for (`args.name` is the worker's, already loaded).
pub fn read_any(ctx: &Ctx, worker: &Worker, args: &ReadArgs) -> Result<Reading> {
    match selection(args)? {
        Some(selection) => Ok(Reading::Turns(
            selection,
            read_turns(ctx, worker, selection)?,
        )),
        None => read(ctx, worker).map(Reading::Last),
    }
}
