//! `wait`: block until the worker's turn ends and say how. Event-driven: a watch on the worker's
//! `events/` folder wakes the loop the moment a hook writes, and a slow timer re-checks the
//! pane's liveness as a safety net. A hard deadline holds even if tmux stops answering.

use super::Ctx;
use super::worker::{Worker, now_ms};
use crate::adapters::state::DeadRecord;
use crate::adapters::watch::FolderWatch;
use crate::core::args::WaitArgs;
use crate::core::duration::parse_duration;
use crate::core::errors::{Error, Result};
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::wait::{Liveness, decide, default_since};
use std::time::{Duration, Instant};

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How often liveness is re-checked when no event arrives.
const LIVENESS_POLL: Duration = Duration::from_millis(250);
/// How long a stop is held for its answer to become readable.
const ANSWER_GRACE: Duration = Duration::from_secs(5);

/// Waits for the end of the worker's turn.
pub fn wait(ctx: &Ctx, args: &WaitArgs) -> Result<Outcome> {
    let worker = Worker::load(ctx, &args.name)?;
    let timeout = match &args.timeout {
        Some(text) => parse_duration(text, "--timeout")?,
        None => DEFAULT_TIMEOUT,
    };
    let deadline = Instant::now() + timeout;
    // Watch first, then read: an event landing in between still wakes the loop.
    let watch = FolderWatch::new(&ctx.state.events_dir(&worker.name))?;
    let mut since = args.since;
    let mut last_liveness_check: Option<Instant> = None;
    loop {
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        let records = worker.events(ctx, since.unwrap_or(0))?;
        let from = *since.get_or_insert_with(|| default_since(&records));
        let exit = ctx.state.read_exit(&worker.name);
        // Events first: a fired hook decides without asking tmux.
        if let Some(outcome) = decide(&records, from, &Liveness::Alive, exit.as_ref())
            && (outcome.outcome != OutcomeKind::Input || liveness_due(last_liveness_check))
        {
            return finish(ctx, &worker, outcome, deadline);
        }
        if liveness_due(last_liveness_check) {
            last_liveness_check = Some(Instant::now());
            let liveness = worker.liveness(ctx)?;
            if liveness != Liveness::Alive {
                // launch.sh records the exit (file, then log line) before the pane dies, so
                // read both again now that it has: tmux's own status is often empty.
                let records = worker.events(ctx, from)?;
                let exit = ctx.state.read_exit(&worker.name);
                if let Some(outcome) = decide(&records, from, &liveness, exit.as_ref()) {
                    return finish(ctx, &worker, outcome, deadline);
                }
            } else if let Some(outcome) = decide(&records, from, &liveness, exit.as_ref()) {
                return finish(ctx, &worker, outcome, deadline);
            }
        }
        let now = Instant::now();
        if now >= deadline {
            let mut outcome = Outcome::new(
                OutcomeKind::Timeout,
                format!(
                    "no end of turn within {}",
                    humantime::format_duration(timeout)
                ),
                records.len(),
            );
            outcome.screen = ctx.tmux.capture(worker.session(), false).ok();
            return Ok(outcome);
        }
        watch.wait((deadline - now).min(LIVENESS_POLL));
    }
}

fn liveness_due(last: Option<Instant>) -> bool {
    last.is_none_or(|t| t.elapsed() >= LIVENESS_POLL)
}

/// Adds evidence to an outcome: the last screen of a dead worker (kept on disk too), and for a
/// stop, holds until the answer is readable (bounded).
fn finish(ctx: &Ctx, worker: &Worker, mut outcome: Outcome, deadline: Instant) -> Result<Outcome> {
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
