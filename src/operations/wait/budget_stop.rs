//! A turn its worker's budget stopped: the wait pressed the CLI's interrupt keys when a token
//! or dollar limit was reached (`budget::Watch`), and reports the turn's end as `budget`.

use super::super::interrupt_keys::log_interrupted;
use super::super::worker::Worker;
use super::Ctx;
use crate::core::budget::Reached;
use crate::core::errors::Result;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::wait::end;

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
    log_interrupted(ctx, worker, from)?;
    super::super::budget::note_reached(ctx, worker, at)?;
    let position = end(&worker.events(ctx, outcome.position)?);
    let message = format!(
        "{at}: the turn was interrupted; `umbel read {name}` has what had streamed, `umbel budget {name} {} N` raises the limit",
        at.limit.flag(),
        name = worker.name,
    );
    let mut stop = Outcome::new(OutcomeKind::Budget, message, position);
    stop.reason = Some(at.limit.as_str().to_string());
    Ok(stop)
}
