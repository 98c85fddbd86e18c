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
use crate::adapters::timing;
use crate::core::args::GuardArgs;
use crate::core::errors::Result;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::turn_progress::TurnPhase;
use crate::core::until::Until;
use std::time::Duration;

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
    pub until: &'a Until,
    /// Guardrails already prepared (so bad ones were refused before any worker existed).
    pub guard: Option<&'a Guard>,
    /// Wait this long for a running turn to end instead of refusing (a workflow step's busy
    /// worker); `None` refuses a busy worker.
    pub queue: Option<Duration>,
}

/// Runs one turn on `worker`: submit, wait (guarded), read.
pub fn turn(ctx: &Ctx, worker: &Worker, request: &TurnRequest) -> Result<TurnDone> {
    if let Some(sink) = &ctx.progress {
        sink.report(&TurnPhase::Submitting.into());
    }
    let guard = GuardArgs::default();
    let since = submit_queued(ctx, worker, request.prompt, &guard, request.queue)?.position;
    timing::mark("submit confirmed");
    let outcome = await_end(ctx, worker, Some(since), request.until, request.guard)?;
    timing::mark("turn ended");
    let ended = matches!(
        outcome.outcome,
        OutcomeKind::Stop | OutcomeKind::ProviderError
    );
    let answer = ended.then(|| worker.answer(ctx));
    timing::mark("answer read");
    mark_hooks(ctx, worker);
    Ok(TurnDone { outcome, answer })
}

/// With `UMBEL_DEBUG_TIMING`: each hook the CLI fired so far, at its own time, so the step log
/// shows what of a `-p` is the CLI's (its start, its submit, its turn) and what umbel's.
fn mark_hooks(ctx: &Ctx, worker: &Worker) {
    if !timing::enabled() {
        return;
    }
    for record in ctx.state.read_log(&worker.name).unwrap_or_default() {
        timing::mark_at(&format!("hook {}", record.kind), record.at_ns);
    }
}

/// The first stage: paste the prompt and confirm the CLI submitted it; its guardrails are left
/// for the [`await_end`] that follows. Returns the event-log position to wait from.
pub use super::send::send_turn as submit;
/// The first stage, queued behind a running turn when `queue` says how long it may wait.
pub use super::send_queue::submit as submit_queued;
/// The second stage as `umbel wait` and `umbel_wait` ask for it: the wait's own guardrail
/// flags, else those the turn was sent with.
pub use super::wait::wait as await_end_as_asked;
/// The second stage: wait from `since` until the turn ends as `until` says, enforcing `guard`.
pub use super::wait::wait_guarded as await_end;
