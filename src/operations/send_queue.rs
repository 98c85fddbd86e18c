//! `send --queue`: a prompt for a worker whose turn is still running waits for that turn to end
//! and is delivered then. Queued senders to one worker take a ticket each
//! ([`crate::adapters::send_queue`]); the first in arrival order delivers (through the ordinary
//! [`send_turn`], under its `send.lock`) once the worker is ready, and only then leaves the queue,
//! so the next one sees the turn it started and waits for its end: one turn each, in order,
//! exactly once. The waiting is event-driven: the worker's events folder (a turn's end) and the
//! queue folder (a sender ahead leaving) wake it.
//!
//! Nothing is typed while a prompt waits: a worker that dies or stops for a person meanwhile
//! fails the send with that outcome's exit code, and a cancelled send (SIGINT, SIGTERM, a
//! cancelled MCP call) removes its ticket on the way out.

use super::Ctx;
use super::send::{Sent, check_prompt, dead, send_turn, state_now};
use super::worker::Worker;
use crate::adapters::send_queue::Ticket;
use crate::adapters::watch::FolderWatch;
use crate::core::args::GuardArgs;
use crate::core::errors::{Error, Result};
use crate::core::outcome::OutcomeKind;
use crate::core::send_verdict::Composer;
use crate::core::status::WorkerState;
use std::time::{Duration, Instant};

/// The slow timer under the folder watches: a missed wake-up costs at most this.
const RECHECK: Duration = Duration::from_millis(500);

/// Sends `prompt` now (`queue` = `None`), or once the running turn and the senders queued
/// before it are done, waiting at most `queue`. Returns the verdict (the position to wait from);
/// every failure says what it left in the composer ([`Error::SendFailed`]).
pub fn submit(
    ctx: &Ctx,
    worker: &Worker,
    prompt: &[u8],
    guard: &GuardArgs,
    queue: Option<Duration>,
) -> Result<Sent> {
    match queue {
        None => woken_then(ctx, worker, prompt, guard, None),
        Some(limit) => send_queued(ctx, worker, prompt, guard, limit),
    }
    .map_err(|e| e.after_send(Composer::Untouched))
}

/// A parked worker's CLI started again first (once, whoever else is sending), then the send.
/// A `park` at work holds the worker as a send does: the send waits for it, and goes on by
/// resuming what it parked — a queued send until its deadline (`until`), then [`Error::Busy`].
fn woken_then(
    ctx: &Ctx,
    worker: &Worker,
    prompt: &[u8],
    guard: &GuardArgs,
    until: Option<Instant>,
) -> Result<Sent> {
    let mut parking_seen = false;
    loop {
        let resumed = super::park::wake(ctx, worker, until)?;
        match send_turn(ctx, worker, prompt, guard) {
            Err(Error::Busy { .. })
                if !parking_seen && super::park::after_park(ctx, worker, until)? =>
            {
                parking_seen = true;
            }
            sent => return Ok(sent?.after_resume(resumed.map(|r| r.resume_ms))),
        }
    }
}

/// Waits for this sender's turn (see the module doc), then sends.
fn send_queued(
    ctx: &Ctx,
    worker: &Worker,
    prompt: &[u8],
    guard: &GuardArgs,
    limit: Duration,
) -> Result<Sent> {
    check_prompt(prompt)?;
    // Refused now, not waited on: a warm worker's turn never comes for another sender.
    super::send::refuse_warm(ctx, worker)?;
    let queued = Instant::now();
    let deadline = queued + limit;
    let ticket = Ticket::take(&ctx.state.session_dir(&worker.name).join("queue"))?;
    let watch = queue_watch(ctx, worker, &ticket)?;
    loop {
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        if is_head(worker, &ticket)? && free(ctx, worker)? {
            let queued_ms = u64::try_from(queued.elapsed().as_millis()).unwrap_or(u64::MAX);
            match woken_then(ctx, worker, prompt, guard, Some(deadline)) {
                // Another (unqueued) send took the worker first: wait for its turn too.
                Err(Error::Busy { .. }) => {}
                done => return done.map(|sent| Sent { queued_ms, ..sent }),
            }
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(not_delivered(
                worker,
                OutcomeKind::Timeout,
                format!(
                    "its turn did not come within {}s (`--queue-timeout`)",
                    limit.as_secs()
                ),
            ));
        }
        watch.wait((deadline - now).min(RECHECK));
    }
}

/// Whether the worker is ready for the next prompt; a dead worker or one waiting for a person
/// fails the queued send (nothing was typed).
fn free(ctx: &Ctx, worker: &Worker) -> Result<bool> {
    match state_now(ctx, worker)?.0 {
        // The send resumes it first (`park::wake`).
        WorkerState::Ready | WorkerState::Parked => Ok(true),
        WorkerState::Busy | WorkerState::Starting => Ok(false),
        WorkerState::Dead => Err(not_delivered(
            worker,
            OutcomeKind::Dead,
            dead(ctx, worker).to_string(),
        )),
        WorkerState::NeedsInput => Err(not_delivered(
            worker,
            OutcomeKind::Input,
            format!(
                "it is waiting for a person (see `umbel status {}`)",
                worker.name
            ),
        )),
    }
}

/// Whether this sender is first in the queue. A queue folder gone (the worker was `kill
/// --purge`d under it: nothing else removes it) fails the send as for a dead worker, saying
/// so, not as a file error.
fn is_head(worker: &Worker, ticket: &Ticket) -> Result<bool> {
    match ticket.is_head() {
        Err(_) if !ticket.dir().is_dir() => Err(purged(worker)),
        head => head,
    }
}

/// The watch a queued sender waits under: the worker's events and its queue. A folder removed
/// under it meanwhile (`kill --purge`) is said as that, not as a file error.
fn queue_watch(ctx: &Ctx, worker: &Worker, ticket: &Ticket) -> Result<FolderWatch> {
    FolderWatch::new(&ctx.state.events_dir(&worker.name))
        .and_then(|mut watch| watch.also(ticket.dir()).map(|()| watch))
        .map_err(|e| {
            if ticket.dir().is_dir() {
                e
            } else {
                purged(worker)
            }
        })
}

/// The queued send's failure when its worker was `kill --purge`d under it.
fn purged(worker: &Worker) -> Error {
    not_delivered(
        worker,
        OutcomeKind::Dead,
        format!(
            "worker `{}` was killed and its folder removed (`umbel kill --purge`)",
            worker.name
        ),
    )
}

fn not_delivered(worker: &Worker, outcome: OutcomeKind, detail: String) -> Error {
    Error::NotDelivered {
        name: worker.name.to_string(),
        outcome: outcome.as_str(),
        exit: outcome.exit_code(),
        detail,
    }
}
