//! One turn, written once: submit a prompt to a loaded worker, wait for the turn to end (its
//! guardrails enforced), and read the answer. `-p` and workflow steps run [`turn`]; the CLI's
//! and MCP's `send` and `wait` run its two stages, [`submit`] and [`await_end`], on their own
//! (a protocol call each). Progress goes to `ctx.progress` as [`TurnProgress`]; the result is a
//! [`TurnDone`]: the faces render those two types.
//!
//! [`TurnProgress`]: crate::core::turn_progress::TurnProgress

use super::Ctx;
use super::guard::Guard;
use super::worker::{Answer, Worker};
use super::{send, wait};
use crate::core::args::{GuardArgs, WaitArgs, WaitUntil};
use crate::core::errors::Result;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::turn_progress::TurnPhase;

/// What one turn produced.
#[derive(Debug)]
pub struct TurnDone {
    /// How the wait ended.
    pub outcome: Outcome,
    /// The turn's answer when it ended (`stop` or `provider-error`), or why it could not be
    /// read; `None` when the turn did not end.
    pub answer: Option<Result<Answer>>,
}

impl TurnDone {
    /// The turn ended (`stop` or `provider-error`).
    pub fn ended(&self) -> bool {
        self.answer.is_some()
    }

    /// The answer, when the turn ended and it could be read.
    pub fn answer(&self) -> Option<&Answer> {
        self.answer.as_ref().and_then(|a| a.as_ref().ok())
    }
}

/// What a turn is asked to do.
pub struct TurnRequest<'a> {
    pub prompt: &'a [u8],
    /// When the turn counts as ended (and the wait's timeout).
    pub until: &'a WaitUntil,
    /// Guardrails already prepared (so bad ones were refused before any worker existed).
    pub guard: Option<&'a Guard>,
}

/// Runs one turn on `worker`: submit, wait (guarded), read.
pub fn turn(ctx: &Ctx, worker: &Worker, request: &TurnRequest) -> Result<TurnDone> {
    if let Some(sink) = &ctx.progress {
        sink.report(&TurnPhase::Submitting.into());
    }
    let since = submit(ctx, worker, request.prompt, &GuardArgs::default())?;
    let outcome = await_end(ctx, worker, Some(since), request.until, request.guard)?;
    let ended = matches!(
        outcome.outcome,
        OutcomeKind::Stop | OutcomeKind::ProviderError
    );
    let answer = ended.then(|| worker.answer(ctx));
    Ok(TurnDone { outcome, answer })
}

/// The first stage: paste the prompt and confirm the CLI submitted it; `guard` is left for the
/// [`await_end`] that follows. Returns the event-log position to wait from.
pub fn submit(ctx: &Ctx, worker: &Worker, prompt: &[u8], guard: &GuardArgs) -> Result<usize> {
    send::send_turn(ctx, worker, prompt, guard)
}

/// The second stage: wait from `since` until the turn ends as `until` says, enforcing `guard`.
pub fn await_end(
    ctx: &Ctx,
    worker: &Worker,
    since: Option<usize>,
    until: &WaitUntil,
    guard: Option<&Guard>,
) -> Result<Outcome> {
    wait::wait_guarded(ctx, worker, since, until, guard)
}

/// The second stage as `umbel wait` and `umbel_wait` ask for it: guardrails given with the
/// wait, else those the turn was sent with.
pub fn await_end_as_asked(ctx: &Ctx, worker: &Worker, args: &WaitArgs) -> Result<Outcome> {
    wait::wait(ctx, worker, args)
}
