//! `status`/`ls` and `approvals` over every host with remote workers: one `status --json` (or
//! `approvals --json`) per host, all hosts at once, each bounded; a host that does not answer in
//! time lists its workers as `unreachable` (or, for approvals, lists none) and holds up nothing
//! else.

use super::super::Ctx;
use super::super::status::status;
use super::forward::{Request, at_once, forward};
use super::records::{self, find};
use crate::adapters::ssh::{Ssh, Stdout};
use crate::core::approvals::PendingApproval;
use crate::core::args::StatusArgs;
use crate::core::errors::Result;
use crate::core::remote::RemoteRecord;
use crate::core::status::{ListedState, Unreadable, WorkerStatus};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The status rows of every remote worker (each with its `host`), hosts in name order.
pub fn remote_rows(ctx: &Ctx) -> Vec<Value> {
    let bound = host_bound(ctx);
    at_once(&by_host(ctx), |(host, workers)| {
        host_rows(ctx, host, workers, bound)
    })
    .into_iter()
    .flatten()
    .flatten()
    .collect()
}

/// The remote workers by host, hosts in name order.
fn by_host(ctx: &Ctx) -> Vec<(String, Vec<RemoteRecord>)> {
    let mut by_host: BTreeMap<String, Vec<RemoteRecord>> = BTreeMap::new();
    for record in records::list(ctx) {
        by_host.entry(record.host.clone()).or_default().push(record);
    }
    by_host.into_iter().collect()
}

/// Twice the connection bound: the connection, then the host's own verb.
fn host_bound(ctx: &Ctx) -> std::time::Duration {
    Ssh::from_env(ctx.state.path(), &ctx.env).connect_timeout() * 2
}

/// `approvals` over every host: this machine's pending approvals and each host's (for the
/// workers spawned there from here, each with its `host`), oldest first. A host that does not
/// answer in time adds none.
pub fn approvals_everywhere(ctx: &Ctx) -> Result<Vec<PendingApproval>> {
    let mut rows = super::super::approvals::list(ctx)?;
    let bound = host_bound(ctx);
    let remote = at_once(&by_host(ctx), |(host, workers)| {
        host_approvals(ctx, host, workers, bound)
    });
    rows.extend(remote.into_iter().flatten().flatten());
    rows.sort_by(|a, b| (a.since, &a.name).cmp(&(b.since, &b.name)));
    Ok(rows)
}

/// One host's pending approvals of `workers`, each with its `host`.
fn host_approvals(
    ctx: &Ctx,
    host: &str,
    workers: &[RemoteRecord],
    bound: std::time::Duration,
) -> Vec<PendingApproval> {
    let rows: Vec<PendingApproval> = host_list(ctx, host, "approvals", bound).unwrap_or_default();
    rows.into_iter()
        .filter(|row| row.host.is_none() && workers.iter().any(|w| w.name == row.name))
        .map(|row| PendingApproval {
            host: Some(host.to_string()),
            ..row
        })
        .collect()
}

/// `VERB --json` on `host`, bounded, read as the list it prints.
fn host_list<T: serde::de::DeserializeOwned>(
    ctx: &Ctx,
    host: &str,
    verb: &str,
    bound: std::time::Duration,
) -> Result<Vec<T>> {
    let request = Request {
        argv: vec![verb.into(), "--json".into()],
        bound: Some(bound),
        ..Request::default()
    };
    let done = forward(ctx, host, request, Stdout::Quiet)?;
    serde_json::from_slice(&done.stdout).map_err(|_| crate::core::errors::Error::RemoteUmbel {
        host: host.to_string(),
        detail: format!(
            "its `{verb} --json` answered {} with no list: {}",
            done.code,
            String::from_utf8_lossy(&done.stdout).trim()
        ),
    })
}

fn host_rows(
    ctx: &Ctx,
    host: &str,
    workers: &[RemoteRecord],
    bound: std::time::Duration,
) -> Vec<Value> {
    let listed = host_list::<Value>(ctx, host, "status", bound);
    workers
        .iter()
        .map(|record| {
            let mut row = match &listed {
                Ok(rows) => rows
                    .iter()
                    .find(|r| r["name"] == record.name.as_str())
                    .cloned()
                    .unwrap_or_else(|| {
                        missing(record, "the host has no worker of this name any more")
                    }),
                Err(e) => {
                    let mut row = missing(record, &e.to_string());
                    row["state"] = json!("unreachable");
                    row
                }
            };
            row["host"] = json!(host);
            row
        })
        .collect()
}

/// A row for a recorded worker the host did not list.
fn missing(record: &RemoteRecord, problem: &str) -> Value {
    json!({
        "name": record.name,
        "provider": "",
        "state": "gone",
        "problem": problem,
        "createdAt": record.created_at,
        "cwd": "",
        "position": 0,
        "sessionId": "",
    })
}

/// The remote workers as [`WorkerStatus`] rows (each with its `host`); a row its host
/// printed in a shape this umbel cannot read is kept as `corrupt`, with why.
pub fn remote_statuses(ctx: &Ctx) -> Vec<WorkerStatus> {
    remote_rows(ctx)
        .into_iter()
        .map(|row| serde_json::from_value(row.clone()).unwrap_or_else(|e| unreadable_row(&row, &e)))
        .collect()
}

fn unreadable_row(row: &Value, error: &serde_json::Error) -> WorkerStatus {
    let text = |key: &str| row[key].as_str().unwrap_or_default().to_string();
    WorkerStatus {
        host: row["host"].as_str().map(str::to_string),
        problem: Some(format!("its host's status of it cannot be read: {error}")),
        cwd: text("cwd"),
        created_at: row["createdAt"].as_u64().unwrap_or(0),
        ..WorkerStatus::bare(
            &text("name"),
            &text("provider"),
            ListedState::Unreadable(Unreadable::Corrupt),
        )
    }
}

/// `status` over every host, for the faces that take rows (MCP, `top`): this machine's
/// workers, then every host's; with a name, that worker wherever it runs.
pub fn status_everywhere(ctx: &Ctx, args: &StatusArgs) -> Result<Vec<WorkerStatus>> {
    if let Some(name) = &args.name
        && find(ctx, name)?.is_some()
    {
        let mut rows = remote_statuses(ctx);
        rows.retain(|row| &row.name == name);
        return Ok(rows);
    }
    let mut list = status(ctx, args)?;
    if args.name.is_none() {
        list.extend(remote_statuses(ctx));
    }
    Ok(list)
}
