//! A turn its worker's budget stopped: the wait pressed the CLI's interrupt keys when a turn,
//! token or dollar limit was reached (`budget::Watch`), and reports the turn's end as `budget`. A
//! shared limit (the fleet's, a run's) reached stops every running turn of its workers: the
//! wait that saw it stops the others' too, each waited for side by side.

use super::super::interrupt_keys::{log_interrupted, press_one_by_one};
use super::super::worker::Worker;
use super::Ctx;
use crate::core::budget::Reached;
use crate::core::errors::Result;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::status::WorkerState;
use crate::core::until::Until;
use crate::core::wait::end;
use std::time::Duration;

/// How long another worker's CLI has to report its turn interrupted.
const STOP_PATIENCE: Duration = Duration::from_secs(15);

/// Stops the running turns of `others` for the shared limit `at`, side by side, each waited
/// for until its CLI reports it interrupted (so its log says so, as `umbel interrupt`'s does).
/// A worker not running a turn, or whose stop another process claimed, is left alone; one
/// that cannot be stopped (its tmux gone) is left to its next send's refusal.
pub(super) fn stop_others(ctx: &Ctx, others: &[Worker], at: &Reached) {
    std::thread::scope(|scope| {
        for other in others {
            scope.spawn(move || stop_other(ctx, other, at));
        }
    });
}

fn stop_other(ctx: &Ctx, other: &Worker, at: &Reached) -> Result<()> {
    let (state, _) = super::super::send::state_now(ctx, other)?;
    if state != WorkerState::Busy {
        return Ok(());
    }
    if !super::super::budget::claim_stop(ctx, other, at)? {
        return Ok(());
    }
    press_one_by_one(ctx, other, other.provider().interrupt_keys())?;
    let until = Until {
        timeout: STOP_PATIENCE,
        ..Until::default()
    };
    // The wait finds the claim at the turn's end and logs it as `budget`.
    super::wait_guarded(ctx, other, None, &until, None)?;
    Ok(())
}

/// The end of a turn whose budget had it interrupted: `budget`, naming the limit and what was
/// used, once the log says it was interrupted; a turn that ended by itself first keeps its own
/// outcome (its answer is whole; the next send is refused).
pub(super) fn stopped(
    ctx: &Ctx,
    worker: &Worker,
    at: &Reached,
    from: usize,
    outcome: Outcome,
) -> Result<Outcome> {
    if !(outcome.outcome == OutcomeKind::ProviderError
        && outcome.reason.as_deref() == Some("interrupted"))
    {
        return Ok(outcome);
    }
    budget_end(ctx, worker, at, from, "the turn was interrupted")
}

/// A turn that answered before the stop for its `--max-turns` landed (umbel sees a request
/// once its response is recorded, and a last response is recorded as the turn ends): `budget`
/// all the same, as `claude -p` reports a turn past its limit; its answer is whole.
pub(super) fn past_turn_limit(ctx: &Ctx, worker: &Worker, outcome: Outcome) -> Result<Outcome> {
    if outcome.outcome != OutcomeKind::Stop {
        return Ok(outcome);
    }
    let Some(at) = super::super::budget::turn_limit_passed(ctx, worker)? else {
        return Ok(outcome);
    };
    super::super::budget::note_reached(ctx, worker, &at)?;
    let how = "it answered before the stop landed";
    Ok(budget_outcome(
        worker,
        &at,
        how,
        "the answer",
        outcome.position,
    ))
}

/// The end of a turn past its budget that asked a person (to run a tool, a question): the
/// interrupt keys, pressed as it asked, closed the ask and the turn with it — a close no CLI
/// reports with a hook (claude says `Interrupted`, gemini `Request cancelled`, copilot
/// `Operation cancelled` on its screen), so the log is told here.
pub(super) fn stopped_at_ask(
    ctx: &Ctx,
    worker: &Worker,
    at: &Reached,
    from: usize,
) -> Result<Outcome> {
    budget_end(
        ctx,
        worker,
        at,
        from,
        "the turn was stopped at its ask, unanswered",
    )
}

/// `budget`, once the log says the turn was interrupted (from `from` on) and that the limit
/// was reached.
fn budget_end(ctx: &Ctx, worker: &Worker, at: &Reached, from: usize, how: &str) -> Result<Outcome> {
    log_interrupted(ctx, worker, from)?;
    super::super::budget::note_reached(ctx, worker, at)?;
    let position = end(&worker.events(ctx, from)?);
    Ok(budget_outcome(
        worker,
        at,
        how,
        "what had streamed",
        position,
    ))
}

/// The `budget` outcome for `at`: how the turn ended, what `umbel read` has of it, and how to
/// raise the limit.
fn budget_outcome(
    worker: &Worker,
    at: &Reached,
    how: &str,
    read: &str,
    position: usize,
) -> Outcome {
    let message = format!(
        "{at}: {how}; `umbel read {name}` has {read}, {}",
        at.raise_hint(worker.name.as_str()),
        name = worker.name,
    );
    let mut stop = Outcome::new(OutcomeKind::Budget, message, position);
    stop.reason = Some(at.limit.as_str().to_string());
    stop
}
