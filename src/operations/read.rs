//! `read`: the answer of the worker's last finished turn.

use super::Ctx;
use super::worker::{Answer, Worker};
use crate::core::args::ReadArgs;
use crate::core::errors::Result;

/// Reads the last turn's answer.
pub fn read(ctx: &Ctx, args: &ReadArgs) -> Result<Answer> {
    Worker::load(ctx, &args.name)?.answer(ctx)
}
