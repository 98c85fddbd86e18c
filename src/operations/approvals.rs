//! `approvals`: every pending approval of the fleet, oldest first — the workers whose state is
//! needs-input with a tool waiting, each with the approval's id, tool, masked input and how long
//! it has waited. `-f` follows: a line when an approval is asked for, another when it is gone
//! (answered, by anyone or any rule, or the worker ended), woken by the fleet's files.

use super::Ctx;
use super::status::{Seen, look_at};
use super::worker::Worker;
use crate::adapters::fleet_watch::FleetWatch;
use crate::adapters::host::now_ms;
use crate::core::approvals::{PendingApproval, pending};
use crate::core::errors::Result;
use crate::core::status::WorkerState;
use crate::core::wait::{Liveness, end};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

/// How often a follower with nothing to do looks at the Ctrl-C flag.
const CANCEL_CHECK: Duration = Duration::from_millis(250);

/// Every pending approval on this machine, oldest first.
pub fn list(ctx: &Ctx) -> Result<Vec<PendingApproval>> {
    let panes = ctx.tmux.panes()?;
    let now = now_ms();
    let mut rows = Vec::new();
    for name in ctx.state.list()? {
        let Ok(worker) = Worker::load(ctx, name.as_str()) else {
            continue;
        };
        let liveness = panes
            .get(worker.session())
            .map_or(Liveness::Gone, |p| p.liveness.clone());
        if liveness != Liveness::Alive {
            continue;
        }
        let Ok(seen) = look_at(ctx, worker, liveness) else {
            continue;
        };
        rows.extend(row_of(&seen, now));
    }
    rows.sort_by(|a, b| (a.since, &a.name).cmp(&(b.since, &b.name)));
    Ok(rows)
}

/// The approval a worker waits on, as a row.
fn row_of(seen: &Seen, now: u64) -> Option<PendingApproval> {
    if seen.state != WorkerState::NeedsInput {
        return None;
    }
    let asked = pending(&seen.events)?;
    let worker = &seen.worker;
    Some(PendingApproval::new(
        worker.name.as_str(),
        worker.meta.provider.as_str(),
        &asked,
        end(&seen.events),
        now,
    ))
}

/// A change `approvals -f` reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalChange {
    /// `asked` (a new pending approval) or `gone` (answered, or its worker ended).
    pub change: String,
    #[serde(flatten)]
    pub approval: PendingApproval,
}

/// Follows the fleet's approvals until Ctrl-C: `emit` gets the ones pending at the start as
/// `asked`, then each change.
pub fn follow(ctx: &Ctx, mut emit: impl FnMut(&ApprovalChange)) -> Result<()> {
    let (tx, wake) = channel();
    let mut watch = FleetWatch::new(move || {
        let _ = tx.send(());
    })?;
    let mut known: BTreeMap<(String, String), PendingApproval> = BTreeMap::new();
    loop {
        let dirs = dirs(ctx)?;
        watch.sync(&dirs);
        let now: BTreeMap<_, _> = list(ctx)?
            .into_iter()
            .map(|row| ((row.name.clone(), row.id.clone()), row))
            .collect();
        for (key, row) in &known {
            if !now.contains_key(key) {
                emit(&change("gone", row));
            }
        }
        for (key, row) in &now {
            if !known.contains_key(key) {
                emit(&change("asked", row));
            }
        }
        known = now;
        loop {
            if ctx.cancelled() {
                return Ok(());
            }
            match wake.recv_timeout(CANCEL_CHECK) {
                Ok(()) => break,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
        }
        while wake.try_recv().is_ok() {}
    }
}

fn change(kind: &str, row: &PendingApproval) -> ApprovalChange {
    ApprovalChange {
        change: kind.to_string(),
        approval: row.clone(),
    }
}

/// The folders whose changes may change the list: `sessions/`, each worker's and its events'.
fn dirs(ctx: &Ctx) -> Result<Vec<PathBuf>> {
    let mut dirs = vec![ctx.state.path().join("sessions")];
    for name in ctx.state.list()? {
        dirs.push(ctx.state.session_dir(&name));
        dirs.push(ctx.state.events_dir(&name));
    }
    Ok(dirs)
}
