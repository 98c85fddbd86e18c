//! What a wait adds to an outcome before it returns it: the last screen of a dead worker (also
//! kept on disk), the transcript's reason for a failed turn, and, for a stop, a bounded hold
//! until the answer is readable. Also the transcript check for turns that end without a hook.

use super::super::Ctx;
use super::super::worker::Worker;
use crate::adapters::host::now_ms;
use crate::adapters::state::DeadRecord;
use crate::adapters::transcript::ReverseLines;
use crate::core::errors::Result;
use crate::core::outcome::{Outcome, OutcomeKind, retry_time};
use crate::core::providers::TranscriptTurn;
use crate::core::wait::ClassifiedEvent;
use std::time::{Duration, Instant};

/// How long a stop is held for its answer to become readable.
const ANSWER_GRACE: Duration = Duration::from_secs(5);

/// A turn some providers end without any hook (codex API errors and usage limits, claude's Esc):
/// the transcript says so. Only the turn this wait is about counts: its id, from the submit
/// hook, must match the transcript's last turn.
pub fn transcript_failure(
    ctx: &Ctx,
    worker: &Worker,
    records: &[ClassifiedEvent],
    from: usize,
) -> Option<Outcome> {
    let turn = worker
        .ended_in_transcript(ctx, records, from)
        .filter(|t| t.is_error)?;
    let reason = turn.error_reason.unwrap_or("api-error");
    let message = turn
        .answer
        .unwrap_or_else(|| "the provider failed the turn".into());
    let mut outcome = Outcome::new(
        OutcomeKind::ProviderError,
        message,
        crate::core::wait::end(records),
    )
    .with_reason(reason);
    if reason == "usage-limit" {
        outcome.retry_at = retry_time(&outcome.message);
    }
    Some(outcome)
}

/// The last turn of the transcript the newest hook payload points at.
pub fn last_transcript_turn(ctx: &Ctx, worker: &Worker) -> Option<TranscriptTurn> {
    let path = worker.transcript_path(ctx)?;
    Some(worker.provider().last_turn(&mut ReverseLines::open(&path)?))
}

/// Whether a turn its end hook called finished was in fact cancelled, as the transcript says
/// (gemini's `AfterAgent` after Esc; the chat's turn ends in `Request cancelled.`). The turn's
/// prompt record is written when it starts, so the transcript's last turn is this one.
fn cancelled(ctx: &Ctx, worker: &Worker) -> bool {
    worker.provider().end_hook_hides_cancel()
        && last_transcript_turn(ctx, worker).is_some_and(|t| t.interrupted())
}

/// Adds evidence to an outcome: the last screen of a dead worker (kept on disk too), and for a
/// stop, holds until the answer is readable (bounded).
pub fn finish(
    ctx: &Ctx,
    worker: &Worker,
    mut outcome: Outcome,
    deadline: Instant,
) -> Result<Outcome> {
    match outcome.outcome {
        OutcomeKind::Dead => {
            outcome.screen = ctx.tmux.capture(worker.session(), true).ok();
            if ctx.state.read_dead(&worker.name).is_none() {
                let record = DeadRecord {
                    at: now_ms(),
                    by: None,
                    exit: outcome.exit.clone(),
                    screen: outcome.screen.clone(),
                };
                ctx.state.write_dead(&worker.name, &record)?;
            }
        }
        OutcomeKind::ProviderError => {
            // The hook says the turn failed; the transcript says why (gemini's AfterAgent looks
            // the same for an API error and an Esc).
            if let Some(turn) = last_transcript_turn(ctx, worker).filter(|t| t.ended && t.is_error)
            {
                if let Some(reason) = turn.error_reason {
                    outcome.reason = Some(reason.to_string());
                }
                if let Some(text) = turn.answer {
                    outcome.message = text;
                }
            }
        }
        OutcomeKind::Stop if cancelled(ctx, worker) => {
            outcome = Outcome::new(
                OutcomeKind::ProviderError,
                "the turn was interrupted",
                outcome.position,
            )
            .with_reason("interrupted");
        }
        OutcomeKind::Stop => {
            let grace = Instant::now() + ANSWER_GRACE;
            while worker.answer(ctx).is_err() && Instant::now() < grace.min(deadline) {
                std::thread::sleep(Duration::from_millis(50));
            }
            if worker.answer(ctx).is_err() {
                outcome.message = "the turn ended, but its answer was not readable yet".into();
            }
        }
        _ => {}
    }
    Ok(outcome)
}
