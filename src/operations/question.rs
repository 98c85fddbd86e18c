//! `answer`: pick a choice of the question a worker's model asked, through the same answering
//! as `approve` and `deny` (one lock, `--expect`, keys only on a screen that shows the dialog,
//! the CLI's own evidence after).

use super::Ctx;
use super::approve::{self, Answered, By, DEFAULT_CONFIRM, Request};
use super::wait::wait_guarded;
use super::worker::Worker;
use crate::core::approval_args::AnswerArgs;
use crate::core::duration::parse_or;
use crate::core::errors::Result;
use crate::core::providers::approval::Answer;
use crate::core::until::Until;

/// `answer NAME CHOICE [--expect ID] [--wait] [--timeout D]`.
pub fn answer(ctx: &Ctx, worker: &Worker, args: &AnswerArgs) -> Result<Answered> {
    let confirm = if args.wait {
        DEFAULT_CONFIRM
    } else {
        parse_or(args.timeout.as_deref(), "--timeout", DEFAULT_CONFIRM)?
    };
    let until = match args.wait {
        true => Some(Until::timeout(args.timeout.as_deref())?),
        false => None,
    };
    let request = Request {
        answer: Answer::Choose,
        choice: Some(args.choice.clone()),
        expect: args.expect.clone(),
        confirm,
        by: By::Caller,
    };
    let mut done = approve::answer(ctx, worker, &request)?;
    if let Some(until) = until.filter(|_| done.outcome.is_none()) {
        let outcome = wait_guarded(ctx, worker, Some(done.position), &until, None)?;
        done.outcome = Some(outcome);
        done.turn_ended = true;
    }
    Ok(done)
}
