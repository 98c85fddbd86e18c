//! `capture`, `logs` and `prune`: looking at workers and sweeping the dead ones. The screen is
//! for people only; nothing in umbel decides from it except the documented fallbacks.

use super::Ctx;
use super::worker::Worker;
use super::{kill, remote};
use crate::adapters::files;
use crate::adapters::host::now_ms;
use crate::adapters::tmux::Pane;
use crate::adapters::watch::FolderWatch;
use crate::core::args::{CaptureArgs, LogsArgs, PruneArgs};
use crate::core::duration::parse_or;
use crate::core::errors::{Error, Result};
use crate::core::events::EXIT_EVENT;
use crate::core::name::WorkerName;
use crate::core::wait::Liveness;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Duration;

/// The worker's screen; for a worker without a pane, the last screen kept as evidence. A
/// remote worker's is its host's (like `kill`, it looks for the record itself: routed in
/// `remote::anywhere`, it would close an import circle through `kill`).
pub fn capture(ctx: &Ctx, args: &CaptureArgs) -> Result<String> {
    if let Some(at) = remote::find(ctx, &args.name)? {
        return remote::inspect::capture(ctx, &at, args);
    }
    let worker = Worker::load(ctx, &args.name)?;
    if worker.liveness(ctx)? != Liveness::Gone {
        return ctx.tmux.capture(worker.session(), args.history);
    }
    ctx.state
        .read_dead(&worker.name)
        .and_then(|d| d.screen)
        .ok_or_else(|| Error::Dead {
            name: worker.name.to_string(),
            detail: "it has no pane and no screen was kept".into(),
            resumable: false,
        })
}

/// Prints the event log through `print`; with `follow`, keeps printing new lines until the
/// caller cancels. A remote worker's log is its host's, as it is now (the command line
/// forwards `logs -f` whole instead).
pub fn logs(ctx: &Ctx, args: &LogsArgs, mut print: impl FnMut(&str)) -> Result<()> {
    if let Some(at) = remote::find(ctx, &args.name)? {
        remote::inspect::logs(ctx, &at, args)?
            .iter()
            .for_each(|line| print(line));
        return Ok(());
    }
    let worker = Worker::load(ctx, &args.name)?;
    let path = ctx.state.events_dir(&worker.name).join("log");
    let watch = if args.follow {
        Some(FolderWatch::new(&ctx.state.events_dir(&worker.name))?)
    } else {
        None
    };
    // Bytes of whole lines printed so far: each look reads only what was appended since, and a
    // line being written is printed once it is whole (at the end without `-f`, as it is).
    let mut offset = 0u64;
    loop {
        let fresh = match files::read_from_checked(&path, offset) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io("cannot read", &path, e)),
        };
        let whole = match (&watch, fresh.iter().rposition(|b| *b == b'\n')) {
            (None, _) => fresh.len(),
            (Some(_), Some(at)) => at + 1,
            (Some(_), None) => 0,
        };
        // Lossy: a stray byte that is not UTF-8 shows as U+FFFD instead of failing the verb.
        for line in String::from_utf8_lossy(&fresh[..whole]).lines() {
            print(line);
        }
        offset += whole as u64;
        let Some(watch) = &watch else { return Ok(()) };
        if ctx.cancelled() {
            return Ok(());
        }
        watch.wait(Duration::from_millis(250));
    }
}

/// What `prune` did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Pruned {
    pub removed: Vec<String>,
    pub kept: Vec<String>,
    /// Workers left alone because umbel cannot read their files, or kept because their
    /// worktree holds uncommitted or unmerged work (a warning each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
    /// tmux sessions of this state root still running without a worker folder (deleted by
    /// hand): reported, never ended by `prune` (a warning each; `umbel kill NAME` ends one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orphans: Vec<Skipped>,
}

/// A worker `prune` did not judge, and why.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Skipped {
    pub name: String,
    pub problem: String,
}

/// When a worker died (ms since the epoch): the kill/wait record, else the launcher's `Exit`
/// line in the event log, else tmux's death time; a dead pane tmux has not dated yet counts as
/// dying now (tmux marks a pane dead before it records the status and time). A session that is
/// simply gone counts from its creation.
fn death_time(ctx: &Ctx, worker: &Worker, pane: Option<&Pane>) -> u64 {
    if let Some(dead) = ctx.state.read_dead(&worker.name) {
        return dead.at;
    }
    let exit_logged = ctx
        .state
        .log_backwards(&worker.name)
        .ok()
        .and_then(|mut log| {
            log.by_ref()
                .take(super::worker::REACH)
                .find(|r| r.kind == EXIT_EVENT)
                .map(|r| (r.at_ns / 1_000_000) as u64)
        });
    match (exit_logged, pane) {
        (Some(at), _) => at,
        (None, Some(p)) => p.died_at_ms.unwrap_or_else(now_ms),
        (None, None) => worker.meta.created_at,
    }
}

/// Purges every worker whose process has ended (at least `older_than` ago), but a parked one
/// (its conversation is kept). A worker whose spawn is still in progress has no live pane yet
/// and is kept.
pub fn prune(ctx: &Ctx, args: &PruneArgs) -> Result<Pruned> {
    let min_age = parse_or(args.older_than.as_deref(), "--older-than", Duration::ZERO)?;
    let panes = ctx.tmux.panes()?;
    crate::adapters::pause::at("prune-listed");
    let mut result = Pruned {
        removed: Vec::new(),
        kept: Vec::new(),
        skipped: Vec::new(),
        orphans: kill::orphans(ctx)?
            .into_iter()
            .map(|name| Skipped {
                problem: orphan_problem(ctx, &name),
                name: name.to_string(),
            })
            .collect(),
    };
    // A warm worker whose time is up but whose timer did not end it (a restarted tmux server).
    result.removed.extend(super::warm::end_overdue(ctx)?);
    for name in ctx.state.list()? {
        // Listed means meta.json exists, which a spawn writes only once it holds its lock: a
        // free lock here means that spawn is over.
        if ctx.state.spawning(&name) {
            result.kept.push(name.to_string());
            continue;
        }
        let Some(worker) = loaded(ctx, &name, &mut result.skipped)? else {
            continue;
        };
        // A parked worker has no live pane, but its conversation is all it is.
        if super::park::parked(ctx, &worker)? {
            result.skipped.push(Skipped {
                name: name.to_string(),
                problem: format!(
                    "it is parked (its conversation is kept): `umbel resume {name}` brings it back, `umbel kill {name} --purge` removes it"
                ),
            });
            continue;
        }
        if !dead_for(ctx, &worker, &panes, min_age)? {
            result.kept.push(name.to_string());
            continue;
        }
        match kill::kill_worker(ctx, &worker, true) {
            Ok(None) => result.removed.push(name.to_string()),
            // Its worktree holds work that exists nowhere else: kept, as `kill --purge` keeps it.
            Ok(Some(problem)) => result.skipped.push(Skipped {
                name: name.to_string(),
                problem,
            }),
            Err(Error::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    sweep_interrupted_spawns(ctx, &mut result.removed)?;
    Ok(result)
}

/// Removes the folders of spawns killed between their `mkdir` and their meta.json: nothing
/// lists such a folder, and it holds the name.
fn sweep_interrupted_spawns(ctx: &Ctx, removed: &mut Vec<String>) -> Result<()> {
    for name in ctx.state.interrupted_spawns(INTERRUPTED_SPAWN_QUIET)? {
        ctx.state.remove_session(&name)?;
        removed.push(name.to_string());
    }
    Ok(())
}

/// How long a folder without meta.json must be left alone before `prune` takes it for an
/// interrupted spawn's.
const INTERRUPTED_SPAWN_QUIET: Duration = Duration::from_secs(60);

/// The worker `name` as `prune` sweeps it: `None` when it is gone since the listing (a failed
/// spawn cleaned up after itself, another prune or `kill --purge`), or when its meta.json
/// cannot be read (whether it is dead cannot be told; it goes to `skipped` and the rest of the
/// fleet is still swept).
fn loaded(ctx: &Ctx, name: &WorkerName, skipped: &mut Vec<Skipped>) -> Result<Option<Worker>> {
    match Worker::load(ctx, name.as_str()) {
        Ok(worker) => Ok(Some(worker)),
        Err(e @ Error::Corrupt { .. }) => {
            skipped.push(Skipped {
                name: name.to_string(),
                problem: format!("{e}; `umbel kill {name}` ends it"),
            });
            Ok(None)
        }
        Err(Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// What `prune` and `doctor` say of a session left without its worker folder.
pub fn orphan_problem(ctx: &Ctx, name: &WorkerName) -> String {
    format!(
        "tmux session {} runs without its folder {}; `umbel kill {name}` ends it",
        name.tmux_session(),
        ctx.state.session_dir(name).display()
    )
}

/// Whether the worker's process has ended at least `min_age` ago.
fn dead_for(
    ctx: &Ctx,
    worker: &Worker,
    panes: &HashMap<String, Pane>,
    min_age: Duration,
) -> Result<bool> {
    let mut pane = panes.get(worker.session()).cloned();
    if pane.as_ref().is_none_or(|p| p.liveness != Liveness::Alive) {
        // The panes were listed before this worker's spawn may have ended (its lock is
        // free now): look again, or a worker that just started would be taken for dead.
        pane = Some(ctx.tmux.pane(worker.session())?);
    }
    let pane = pane.as_ref().filter(|p| p.liveness != Liveness::Gone);
    let alive = pane.is_some_and(|p| p.liveness == Liveness::Alive);
    let died_at = death_time(ctx, worker, pane);
    let old_enough = now_ms().saturating_sub(died_at) >= min_age.as_millis() as u64;
    Ok(!alive && old_enough)
}
