//! `read`: the answer of the worker's last finished turn, or the turns `--turn`, `--all` or
//! `--since-turn` select.

use super::Ctx;
use super::turns::{Selection, TurnText, read_turns, selection};
use super::worker::{Answer, Worker};
use crate::core::args::ReadArgs;
use crate::core::errors::Result;

/// What `read` found.
#[derive(Debug, Clone)]
pub enum Reading {
    /// No turn flag: the last finished turn's answer (hook payload first, then transcript).
    Last(Answer),
    /// The selected turns, from the transcript.
    Turns(Selection, Vec<TurnText>),
}

/// Reads the last turn's answer.
pub fn read(ctx: &Ctx, args: &ReadArgs) -> Result<Answer> {
    if let Some(at) = super::remote::find(ctx, &args.name)? {
        return super::remote::verbs::answer(ctx, &at);
    }
    Worker::load(ctx, &args.name)?.answer(ctx)
}

/// Reads what the flags ask for.
pub fn read_any(ctx: &Ctx, args: &ReadArgs) -> Result<Reading> {
    match selection(args)? {
        Some(selection) => Ok(Reading::Turns(
            selection,
            read_turns(ctx, &args.name, selection)?,
        )),
        None => read(ctx, args).map(Reading::Last),
    }
}
