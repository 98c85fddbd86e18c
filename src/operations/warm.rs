//! Warm `-p` (`umbel -p --warm`, docs/print-mode.md#warm--p): after a `-p`, one worker is
//! started ahead, ready, for the next `-p` with the same launch (`spawn::launch_key`).
//!
//! - **claim**: the next `-p` takes the warm worker's marker with one rename; of two `-p`s
//!   racing for it one wins and the other starts cold. The worker never had a prompt, so the
//!   turn is a fresh conversation, as on a cold worker.
//! - **refill**: the `-p` process prints its answer, starts `umbel warm-refill` detached and
//!   exits; the refill ends the `-p`'s worker and starts the next warm one (off the caller's
//!   path). One name per key, so racing refills leave one warm worker.
//! - **expire**: each warm worker gets a timer the tmux server runs (`umbel warm-expire`, a
//!   job of the server, not of any umbel the user runs): when its time is up and nobody took
//!   the marker, it ends the worker. A refill that died before marking its worker is ended by
//!   the same timer; `prune` ends one whose timer did not run (a tmux server restarted).

use super::Ctx;
use super::kill;
use super::spawn;
use super::worker::Worker;
use crate::adapters::host::now_ms;
use crate::core::args::SpawnArgs;
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::wait::Liveness;
use crate::core::warm::{EXPIRE_VERB, MARK_FILE, TAKEN_FILE, WarmMark, worker_name};
use crate::core::worker_env::shell_quote;
use std::path::Path;
use std::time::Duration;

/// How often an expiry timer looks whether its worker was taken or its time is up.
const EXPIRY_TICK: Duration = Duration::from_millis(250);

/// Claims the warm worker of `key`, when one is ready: takes its marker (the one atomic step
/// racing `-p`s and the expiry contend for), then checks its pane still lives. A claimed worker
/// found dead or not the one marked is removed, and `None` says: start cold.
pub fn claim(ctx: &Ctx, key: &str) -> Option<Worker> {
    let name = worker_name(key)?;
    if !ctx.state.take_warm(&name) {
        return None;
    }
    let mark: Option<WarmMark> = ctx.state.read_json(&name, TAKEN_FILE);
    let worker = Worker::load(ctx, name.as_str()).ok()?;
    let alive = ctx
        .tmux
        .pane(worker.session())
        .is_ok_and(|p| p.liveness == Liveness::Alive);
    let same = mark.is_some_and(|m| m.key == key && m.token == worker.meta.session_id);
    if alive && same {
        return Some(worker);
    }
    let _ = kill::kill_worker(ctx, &worker, true);
    None
}

/// What a refill does: end the `-p`'s own worker (`retire`), then start the warm worker for
/// `spawn_args` and hand it to the tmux server's expiry timer after `ttl`.
pub struct Refill<'a> {
    pub spawn_args: &'a SpawnArgs,
    pub retire: Option<&'a str>,
    pub ttl: Duration,
    /// The umbel binary the timer runs.
    pub umbel: &'a Path,
    /// When the `-p` handed over (ms since the epoch): a `kill --all` begun since ends the
    /// refill's work.
    pub after_ms: u64,
}

/// Runs a refill (in the detached `umbel warm-refill`). A key whose warm worker exists already
/// (another refill won the name) starts nothing.
pub fn refill(ctx: &Ctx, refill: &Refill) -> Result<()> {
    if let Some(worker) = refill.retire.and_then(|n| Worker::load(ctx, n).ok()) {
        kill::kill_worker(ctx, &worker, true)?;
    }
    let key = spawn::launch_key(ctx, refill.spawn_args)?;
    let name = worker_name(&key).ok_or_else(|| Error::usage("no warm worker name for the key"))?;
    let killed_all = || {
        ctx.state
            .kill_all_at()
            .is_some_and(|at| at >= refill.after_ms)
    };
    if ctx.state.has_folder(&name) || killed_all() {
        return Ok(());
    }
    let args = SpawnArgs {
        name: Some(name.to_string()),
        ..refill.spawn_args.clone()
    };
    let worker = match spawn::spawn(ctx, &args) {
        Ok(meta) => Worker::from_meta(meta)?,
        Err(Error::Exists { .. }) => return Ok(()),
        Err(e) => return Err(e),
    };
    let mark = WarmMark {
        key,
        token: worker.meta.session_id.clone(),
        ready_at: worker.meta.ready_at.unwrap_or_else(now_ms),
        ttl_ms: refill.ttl.as_millis() as u64,
    };
    // The timer before the marker: a worker no timer would end is never offered, and a refill
    // that dies between the two leaves a worker the timer ends.
    let marked = schedule_expiry(ctx, &name, &mark, refill.umbel)
        .and_then(|()| ctx.state.write_json(&name, MARK_FILE, Some(&mark)));
    if let Err(e) = marked {
        let _ = kill::kill_worker(ctx, &worker, true);
        return Err(e);
    }
    // A `kill --all` that began before its listing could see this worker: it is ended here.
    if killed_all() {
        kill::kill_worker(ctx, &worker, true)?;
    }
    Ok(())
}

/// Asks the tmux server to run `umbel warm-expire` for this worker, with what it needs to find
/// this state root.
fn schedule_expiry(ctx: &Ctx, name: &WorkerName, mark: &WarmMark, umbel: &Path) -> Result<()> {
    // The server's own environment may be another umbel's.
    let mut words = ctx.own_vars();
    words.extend([
        "exec".to_string(),
        shell_quote(&umbel.to_string_lossy()),
        EXPIRE_VERB.to_string(),
        name.to_string(),
        "--token".to_string(),
        shell_quote(&mark.token),
        "--at".to_string(),
        mark.expires_at().to_string(),
        "</dev/null >/dev/null 2>&1".to_string(),
    ]);
    ctx.tmux.run_in_background(&words.join(" "))
}

/// The expiry timer of one warm worker (`umbel warm-expire`, run by the tmux server): waits
/// until `at` (ms since the epoch), returning early once the worker was taken or is gone, then
/// ends it if nobody took it — or if its refill never marked it.
pub fn expire(ctx: &Ctx, name: &WorkerName, token: &str, at: u64) -> Result<()> {
    let ours = |file: &str| {
        ctx.state
            .read_json::<WarmMark>(name, file)
            .is_some_and(|m| m.token == token)
    };
    loop {
        if !ctx.state.has_folder(name) || ours(TAKEN_FILE) || ctx.cancelled() {
            return Ok(());
        }
        if now_ms() >= at {
            break;
        }
        std::thread::sleep(EXPIRY_TICK);
    }
    let worker = Worker::load(ctx, name.as_str())?;
    // Marker first, then the taken one: a claim renames one into the other, so both missing
    // means the refill never marked it.
    let unmarked = ctx.state.read_json::<WarmMark>(name, MARK_FILE).is_none()
        && ctx.state.read_json::<WarmMark>(name, TAKEN_FILE).is_none()
        && worker.meta.session_id == token;
    if (ours(MARK_FILE) && ctx.state.take_warm(name)) || unmarked {
        kill::kill_worker(ctx, &worker, true)?;
    }
    Ok(())
}

/// Ends the warm workers whose time is up though their timer did not end them (`prune`): the
/// names ended.
pub fn end_overdue(ctx: &Ctx) -> Result<Vec<String>> {
    let now = now_ms();
    let mut ended = Vec::new();
    for name in ctx.state.list()? {
        let overdue = ctx
            .state
            .warm_mark(&name)
            .is_some_and(|m| m.left_ms(now) == 0);
        if !overdue || !ctx.state.take_warm(&name) {
            continue;
        }
        if let Ok(worker) = Worker::load(ctx, name.as_str()) {
            kill::kill_worker(ctx, &worker, true)?;
            ended.push(name.to_string());
        }
    }
    Ok(ended)
}
