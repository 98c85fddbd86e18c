//! `interrupt`: ends the turn a worker is running the way a person would — the CLI's own
//! interrupt key (Esc on claude, codex and gemini) — and returns once the CLI reports the turn
//! interrupted; the worker stays alive for the next prompt. On a worker with no turn running it
//! presses nothing and says so.

use super::Ctx;
use super::wait::wait_guarded;
use super::worker::Worker;
use crate::adapters::host::now_ms;
use crate::core::duration::parse_or;
use crate::core::errors::{Error, Result};
use crate::core::events::TURN_CLOSED_EVENT;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::providers::EventClass;
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

/// Makes sure the log says the turn was interrupted: claude fires no hook for it (its
/// transcript says it), gemini and qwen only their turn-end hook, codex before 0.171 none;
/// `events` and a notifier would never hear it. umbel's `TurnClosed` line (read as interrupted
/// by every provider) says it, unless the CLI's own hook said it already. A hook that lands
/// after the line (codex's `Interrupt`, opencode's abort) says it again: `events` reports an
/// interrupt once however often the log says it. Whether it wrote the line.
fn log_interrupted(ctx: &Ctx, worker: &Worker, position: usize) -> Result<bool> {
    let interrupted = EventClass::TurnFailed {
        reason: "interrupted",
    };
    let said = worker
        .events(ctx, position)?
        .iter()
        .any(|e| e.record.index >= position && e.class == interrupted);
    if !said {
        let payload = serde_json::json!({"at": now_ms(), "evidence": "interrupt"});
        ctx.state
            .append_event(&worker.name, TURN_CLOSED_EVENT, &payload)?;
    }
    Ok(!said)
}

/// Presses `keys` one at a time, a moment apart: a TUI reading two Escs in one read may take
/// them for Alt-Esc (opencode interrupts on its second Esc).
pub(super) fn press_one_by_one(ctx: &Ctx, worker: &Worker, keys: &[&str]) -> Result<()> {
    for (i, key) in keys.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(KEY_GAP);
        }
        ctx.tmux.send_keys(worker.session(), &[key])?;
    }
    Ok(())
}

/// The pause between two keys of an interrupt.
const KEY_GAP: Duration = Duration::from_millis(150);

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
