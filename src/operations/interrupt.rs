//! `interrupt`: ends the turn a worker is running the way a person would — the CLI's own
//! interrupt key (Esc on claude, codex and gemini) — and returns once the CLI reports the turn
//! interrupted; the worker stays alive for the next prompt. On a worker with no turn running it
//! presses nothing and says so.

use super::Ctx;
use super::interrupt_keys::{log_interrupted, press_one_by_one};
use super::wait::wait_guarded;
use super::worker::Worker;
use crate::core::duration::parse_or;
use crate::core::errors::{Error, Result};
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::status::WorkerState;
use crate::core::until::Until;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How long the CLI has to report the turn interrupted, by default.
pub const DEFAULT_INTERRUPT: Duration = Duration::from_secs(15);

/// What `interrupt` did.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Interrupted {
    /// The worker.
    pub name: String,
    /// Whether a running turn was interrupted (false: none was running, or it ended first).
    pub interrupted: bool,
    /// The event-log position after it: `wait --since` this for anything newer.
    pub position: usize,
    /// How the interrupted turn ended, as `wait` reports it (absent when no turn was running).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// What happened, in words.
    pub message: String,
}

/// Interrupts `worker`'s running turn (or one waiting for a person), waiting at most `timeout`
/// (default [`DEFAULT_INTERRUPT`]) for the CLI to report it.
pub fn interrupt(ctx: &Ctx, worker: &Worker, timeout: Option<&str>) -> Result<Interrupted> {
    let timeout = parse_or(timeout, "--timeout", DEFAULT_INTERRUPT)?;
    // The state a `send` would see (the same derivation, lost end hooks included).
    let (state, position) = super::send::state_now(ctx, worker)?;
    if state == WorkerState::Dead {
        return Err(Error::Dead {
            name: worker.name.to_string(),
            detail: "there is no turn to interrupt".into(),
            resumable: false,
        });
    }
    if !matches!(state, WorkerState::Busy | WorkerState::NeedsInput) {
        return Ok(Interrupted {
            name: worker.name.to_string(),
            interrupted: false,
            position,
            outcome: None,
            message: format!("no turn is running ({}): nothing pressed", state.as_str()),
        });
    }
    press_one_by_one(ctx, worker, worker.provider().interrupt_keys())?;
    let until = Until {
        timeout,
        ..Until::default()
    };
    // A turn waiting for a person already holds the event that says so: only what the key
    // brings counts. A running turn is waited from its start, as `wait` does.
    let since = (state == WorkerState::NeedsInput).then_some(position);
    let outcome = wait_guarded(ctx, worker, since, &until, None)?;
    let mut done = judge(worker, outcome, timeout)?;
    if done.interrupted && log_interrupted(ctx, worker, position)? {
        // `wait --since` the position given waits for what comes after the line.
        done.position = crate::core::wait::end(&worker.events(ctx, done.position)?);
    }
    Ok(done)
}

/// What the wait after the key says: interrupted, ended first, or not reported in time.
fn judge(worker: &Worker, outcome: Outcome, timeout: Duration) -> Result<Interrupted> {
    let name = worker.name.to_string();
    let (interrupted, message) = match (outcome.outcome, outcome.reason.as_deref()) {
        (OutcomeKind::ProviderError, Some("interrupted")) => {
            (true, "the turn was interrupted".to_string())
        }
        (OutcomeKind::Timeout, _) => {
            return Err(Error::NotInterrupted {
                name,
                detail: format!(
                    "the CLI did not report the turn interrupted within {}",
                    humantime::format_duration(timeout)
                ),
            });
        }
        (OutcomeKind::Dead, _) => {
            return Err(Error::Dead {
                name,
                detail: "its CLI ended while the turn was being interrupted".into(),
                resumable: false,
            });
        }
        (kind, reason) => (
            false,
            format!(
                "the turn ended before the interrupt took ({}{})",
                kind.as_str(),
                reason.map(|r| format!(" {r}")).unwrap_or_default()
            ),
        ),
    };
    Ok(Interrupted {
        name,
        interrupted,
        position: outcome.position,
        outcome: Some(outcome),
        message,
    })
}
