//! The keys of an interrupt and the log line that says it took, shared by `interrupt` and by a
//! wait whose worker's budget stops its turn (below both, so neither depends on the other).

use super::Ctx;
use super::worker::Worker;
use crate::adapters::host::now_ms;
use crate::core::errors::Result;
use crate::core::events::TURN_CLOSED_EVENT;
use crate::core::providers::EventClass;
use std::time::Duration;

/// Makes sure the log says the turn was interrupted: claude fires no hook for it (its
/// transcript says it), gemini and qwen only their turn-end hook, codex before 0.171 none;
/// `events` and a notifier would never hear it. umbel's `TurnClosed` line (read as interrupted
/// by every provider) says it, unless the CLI's own hook said it already. A hook that lands
/// after the line (codex's `Interrupt`, opencode's abort) says it again: `events` reports an
/// interrupt once however often the log says it. Whether it wrote the line.
pub(super) fn log_interrupted(ctx: &Ctx, worker: &Worker, position: usize) -> Result<bool> {
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
