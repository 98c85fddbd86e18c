//! `approvals`: every pending approval of the fleet, oldest first — the workers whose state is
//! needs-input with a tool waiting, each with the approval's id, tool, masked input and how long
//! it has waited. `-f` follows: a line when an approval is asked for, another when it is gone
//! (answered, by anyone or any rule, or the worker ended), woken by the fleet's files.

use super::Ctx;
use super::events::{fleet_dirs, follow_fleet};
use super::status::{Seen, look};
use crate::adapters::host::now_ms;
use crate::core::approvals::{PendingApproval, pending};
use crate::core::errors::Result;
use crate::core::name::WorkerName;
use crate::core::status::WorkerState;
use crate::core::wait::end;
use std::collections::BTreeMap;

/// Every pending approval on this machine, oldest first.
pub fn list(ctx: &Ctx) -> Result<Vec<PendingApproval>> {
    let panes = ctx.tmux.panes()?;
    let now = now_ms();
    let mut rows: Vec<PendingApproval> = ctx
        .state
        .list()?
        .iter()
        .filter_map(|name| look(ctx, name, &panes).ok())
        .filter_map(|seen| row_of(&seen, now))
        .collect();
    rows.sort_by(|a, b| (a.since, &a.name).cmp(&(b.since, &b.name)));
    Ok(rows)
}

/// The approval worker `name` waits on, if any: what [`list`] has of it, without looking at the
/// rest of the fleet (a worker it cannot look at has none, as in [`list`]).
pub fn of(ctx: &Ctx, name: &WorkerName) -> Result<Option<PendingApproval>> {
    let panes = ctx.tmux.panes()?;
    Ok(look(ctx, name, &panes)
        .ok()
        .and_then(|seen| row_of(&seen, now_ms())))
}

/// The approval a worker waits on, as a row.
fn row_of(seen: &Seen, now: u64) -> Option<PendingApproval> {
    if seen.state != WorkerState::NeedsInput {
        return None;
    }
    let asked = pending(&seen.events)?;
    let worker = &seen.worker;
    let pressable = worker.provider().question().is_some();
    Some(PendingApproval::new(
        worker.name.as_str(),
        (worker.meta.provider.as_str(), pressable),
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
/// `asked`, then each change, woken by the fleet's files as `events -f` is.
pub fn follow(ctx: &Ctx, mut emit: impl FnMut(&ApprovalChange)) -> Result<()> {
    let mut known: BTreeMap<(String, String), PendingApproval> = BTreeMap::new();
    let dirs = |_: &BTreeMap<_, _>| fleet_dirs(ctx, &ctx.state.folders().unwrap_or_default());
    follow_fleet(ctx, &mut known, dirs, |known| {
        let now: BTreeMap<_, _> = list(ctx)?
            .into_iter()
            .map(|row| ((row.name.clone(), row.id.clone()), row))
            .collect();
        for (key, row) in known.iter() {
            if !now.contains_key(key) {
                emit(&change("gone", row));
            }
        }
        for (key, row) in &now {
            if !known.contains_key(key) {
                emit(&change("asked", row));
            }
        }
        *known = now;
        Ok(())
    })
}

fn change(kind: &str, row: &PendingApproval) -> ApprovalChange {
    ApprovalChange {
        change: kind.to_string(),
        approval: row.clone(),
    }
}
