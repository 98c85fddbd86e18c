//! The verbs a face names a worker for without knowing where it runs: a worker spawned with
//! `--host` goes through the umbel on its host, any other is loaded here. One place for that
//! choice, for the faces that take results back as values (MCP, `top`); `kill` makes it itself.

use super::super::Ctx;
use super::super::read::{self, Reading};
use super::super::turn;
use super::super::worker::{Answer, Worker};
use super::{find, verbs};
use crate::core::args::{GuardArgs, ReadArgs};
use crate::core::errors::Result;

/// Sends `prompt` (its guardrails armed); the event-log position it was sent at.
pub fn send(ctx: &Ctx, name: &str, prompt: &[u8], guard: &GuardArgs) -> Result<usize> {
    match find(ctx, name)? {
        Some(at) => verbs::send(ctx, &at, prompt, guard),
        None => turn::submit(ctx, &Worker::load(ctx, name)?, prompt, guard),
    }
}

/// `read` as `args` asks.
pub fn reading(ctx: &Ctx, args: &ReadArgs) -> Result<Reading> {
    match find(ctx, &args.name)? {
        Some(at) => verbs::reading(ctx, &at, args),
        None => read::read_any(ctx, &Worker::load(ctx, &args.name)?, args),
    }
}

/// The answer of the last finished turn.
pub fn last_answer(ctx: &Ctx, name: &str) -> Result<Answer> {
    match find(ctx, name)? {
        Some(at) => verbs::answer(ctx, &at),
        None => read::read(ctx, &Worker::load(ctx, name)?),
    }
}
