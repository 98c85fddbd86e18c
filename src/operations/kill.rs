//! `kill`: end a worker's whole process group (SIGTERM, then SIGKILL after a grace) and its
//! tmux session. The folder stays as a
//! tombstone with the last screen as evidence, unless `--purge` removes it.

use super::Ctx;
use super::worker::Worker;
use crate::adapters::host::now_ms;
use crate::adapters::process::{end_group, kill_group};
use crate::adapters::state::DeadRecord;
use crate::adapters::tmux::Pane;
use crate::core::args::KillArgs;
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::wait::Liveness;
use crate::core::worktree::WorktreeMeta;
use std::time::Duration;

/// How long a worker's processes have to exit on SIGTERM (saving their session) before
/// SIGKILL ends what is left.
const TERM_GRACE: Duration = Duration::from_secs(3);

/// What `kill` ended, and what it could not do for an ended worker (a warning each: the worker
/// itself is gone, so the kill succeeded).
#[derive(Debug, Default)]
pub struct Killed {
    pub names: Vec<String>,
    /// With `--purge`: the ones whose folder was kept (their worktree holds work; a warning
    /// says why).
    pub kept: Vec<String>,
    /// A worker's name and what went wrong (its tombstone could not be written).
    pub warnings: Vec<(String, String)>,
}

/// Kills the named worker (or all) and says which.
pub fn kill(ctx: &Ctx, args: &KillArgs) -> Result<Killed> {
    if let Some(at) = args
        .name
        .as_deref()
        .map(|n| super::remote::find(ctx, n))
        .transpose()?
        .flatten()
    {
        super::remote::verbs::kill(ctx, &at, args.purge, args.discard)?;
        return Ok(Killed {
            names: vec![at.name],
            ..Killed::default()
        });
    }
    let names = match (&args.name, args.all) {
        (_, true) => {
            // Before the listing: a warm refill still starting sees it and starts nothing.
            ctx.state.mark_kill_all(crate::adapters::host::now_ms())?;
            let mut names = ctx.state.list()?;
            names.extend(orphans(ctx)?);
            names
        }
        (Some(raw), false) => vec![WorkerName::parse(raw)?],
        (None, false) => return Err(Error::usage("name a worker to kill, or pass --all")),
    };
    let mut killed = Killed::default();
    for name in names {
        let mut worktree = None;
        let session = match Worker::load(ctx, name.as_str()) {
            Ok(w) => {
                worktree = w.meta.worktree.clone();
                w.session().to_string()
            }
            // A folder without meta.json (a spawn that died half-way), or with one umbel cannot
            // read: the session is named after the worker, so it can still be ended.
            Err(Error::NotFound { .. }) if ctx.state.session_dir(&name).is_dir() => {
                name.tmux_session()
            }
            Err(Error::Corrupt { .. }) => name.tmux_session(),
            // No folder at all (deleted by hand, under a wait): its session, if this root's
            // launch started it, is still ours to end.
            Err(Error::NotFound { .. }) if orphans(ctx)?.contains(&name) => name.tmux_session(),
            // `--all`: gone since the listing (a failed spawn removed itself, a prune): skip it.
            Err(Error::NotFound { .. }) if args.all => continue,
            Err(e) => return Err(e),
        };
        let purge = args.purge.then_some(Purging {
            worktree: worktree.as_ref(),
            discard: args.discard,
        });
        if let Some(problem) = end(ctx, &name, &session, purge, Ending::Graceful)? {
            killed.warnings.push((name.to_string(), problem));
        }
        if args.purge && ctx.state.has_folder(&name) {
            killed.kept.push(name.to_string());
        }
        killed.names.push(name.to_string());
    }
    Ok(killed)
}

/// Workers whose tmux session still runs on umbel's socket though their folder is gone: the
/// sessions this state root's `launch.sh` started (its command names the worker's events folder
/// here, so another root sharing the socket is never counted), sorted by name.
pub fn orphans(ctx: &Ctx) -> Result<Vec<WorkerName>> {
    let mut names: Vec<WorkerName> = ctx
        .tmux
        .start_commands()?
        .into_iter()
        .filter_map(|(session, command)| {
            let name = WorkerName::parse(session.strip_prefix("umbel-")?).ok()?;
            let events = ctx.state.events_dir(&name);
            let ours = command.contains(events.to_string_lossy().as_ref());
            (ours && !ctx.state.has_folder(&name)).then_some(name)
        })
        .collect();
    names.sort();
    Ok(names)
}

/// What `--purge` removes besides the worker's folder.
#[derive(Debug, Clone, Copy)]
struct Purging<'a> {
    /// The worker's worktree, removed with its branch when the rule allows.
    worktree: Option<&'a WorktreeMeta>,
    /// Remove them whatever they hold (`--discard`).
    discard: bool,
}

/// How a worker's processes are ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// SIGTERM, [`TERM_GRACE`] to save their session, then SIGKILL (`kill`, `prune`).
    Graceful,
    /// SIGKILL at once, no tombstone screen: a `-p` worker, whose answer was read and whose
    /// folder goes next. A CLI's exit on SIGTERM (claude's session-end hooks) took 0.2–0.5 s
    /// that `-p` spent before it exited.
    AtOnce,
}

/// Ends a worker the caller already loaded (`prune`); when purging, what was kept and why (its
/// worktree holds unmerged work), if anything.
pub fn kill_worker(ctx: &Ctx, worker: &Worker, purge: bool) -> Result<Option<String>> {
    let purge = purge.then_some(Purging {
        worktree: worker.meta.worktree.as_ref(),
        discard: false,
    });
    end(ctx, &worker.name, worker.session(), purge, Ending::Graceful)
}

/// Ends `-p`'s own worker once its answer is out: its processes killed at once, its folder
/// removed (a worktree with edits kept, as `kill --purge` keeps it: what was kept is returned).
pub fn discard_print_worker(ctx: &Ctx, worker: &Worker) -> Result<Option<String>> {
    let purge = Some(Purging {
        worktree: worker.meta.worktree.as_ref(),
        discard: false,
    });
    end(ctx, &worker.name, worker.session(), purge, Ending::AtOnce)
}

/// Ends a session nobody will use (a spawn that failed after starting its CLI): its processes
/// as `kill` ends them (a child ignoring the pane's hangup included), then the session.
pub fn abandon(ctx: &Ctx, session: &str) {
    let _ = match ctx.tmux.pane(session) {
        Ok(pane) => stop(ctx, session, &pane, Ending::Graceful),
        Err(_) => ctx.tmux.kill_session(session),
    };
}

/// Ends the processes of `pane` (its whole group, SIGTERM then SIGKILL) while it lives, then
/// its session.
fn stop(ctx: &Ctx, session: &str, pane: &Pane, ending: Ending) -> Result<()> {
    if let (Liveness::Alive, Some(pid)) = (&pane.liveness, pane.pid) {
        match ending {
            Ending::Graceful => end_group(pid, TERM_GRACE),
            Ending::AtOnce => kill_group(pid),
        };
    }
    ctx.tmux.kill_session(session)
}

/// The tombstone of a worker `end` kept: how it ended (by `kill` when it was `alive`), its exit
/// and last screen. A killed worker is never resumed, so the launch kept for that goes, and with
/// it the literal `--env K=V` values it holds. What could not be done, said.
fn leave_tombstone(
    ctx: &Ctx,
    name: &WorkerName,
    alive: bool,
    screen: Option<String>,
) -> Option<String> {
    let mut record = ctx.state.read_dead(name).unwrap_or(DeadRecord {
        at: now_ms(),
        by: None,
        exit: None,
        screen: None,
    });
    if record.by.is_none() && alive {
        record.by = Some("kill".into());
        record.at = now_ms();
    }
    record.exit = record.exit.or_else(|| ctx.state.read_exit(name));
    record.screen = record.screen.or(screen);
    let mut problems = Vec::new();
    if let Err(e) = ctx.state.write_dead(name, &record) {
        problems.push(format!(
            "killed, but its tombstone (the last screen, `events/dead`) could not be written: {e}"
        ));
    }
    if let Err(e) = ctx
        .state
        .write_json::<()>(name, super::revival::LAUNCH_FILE, None)
    {
        problems.push(format!(
            "killed, but its launch file (which holds its `--env` values) could not be removed: {e}"
        ));
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

/// Ends the worker's processes and session, then purges its folder (and its worktree, when the
/// rule allows) or leaves a tombstone. A tombstone that cannot be written (a read-only or full
/// state root) does not undo the kill, nor does a worktree kept for its work: each is returned
/// as the problem to warn about (a kept worktree keeps the folder, as a tombstone, too).
fn end(
    ctx: &Ctx,
    name: &WorkerName,
    session: &str,
    purge: Option<Purging>,
    ending: Ending,
) -> Result<Option<String>> {
    // A warm worker being ended is no longer offered to a `-p`.
    ctx.state.take_warm(name);
    let pane = ctx.tmux.pane(session)?;
    let screen = match pane.liveness {
        Liveness::Gone => None,
        _ if ending == Ending::AtOnce => None,
        _ => ctx.tmux.capture(session, true).ok(),
    };
    if pane.liveness == Liveness::Alive && ctx.state.read_dead(name).is_none() {
        // Said before the CLI ends: a sender queued on it then reads "killed", not a pane gone
        // (nor, mid-purge, a worker to resume). The full tombstone follows.
        let early = DeadRecord {
            at: now_ms(),
            by: Some("kill".into()),
            exit: None,
            screen: None,
        };
        let _ = ctx.state.write_dead(name, &early);
    }
    stop(ctx, session, &pane, ending)?;
    let mut kept = None;
    if let Some(Purging {
        worktree: Some(wt),
        discard,
    }) = purge
    {
        kept = super::worktree::purge(ctx, name.as_str(), wt, discard)?;
    }
    if purge.is_some() && kept.is_none() {
        // What it used stays counted in the shared budgets it was under.
        super::budget_pool::retire_named(ctx, name)?;
        ctx.state.remove_session(name)?;
    } else if let Some(problem) =
        leave_tombstone(ctx, name, pane.liveness == Liveness::Alive, screen)
    {
        return Ok(Some(problem));
    }
    Ok(kept)
}
