//! Warm `-p` as the command line asks for it: `--warm`/`UMBEL_WARM=1` and the time a warm
//! worker waits (`--warm-ttl`/`UMBEL_WARM_TTL`), the claim before a turn, and the detached
//! `umbel warm-refill` started once the answer is out (operations/warm.rs does the work).

use super::{PrintArgs, print_spawn_args};
use crate::adapters::exec::{Program, start_detached};
use crate::core::duration::parse_or;
use crate::core::errors::{Error, Result};
use crate::core::warm::{DEFAULT_TTL, REFILL_VERB, enabled_by};
use crate::operations::Ctx;
use crate::operations::spawn::launch_key;
use crate::operations::warm::{self, Refill};
use crate::operations::worker::Worker;
use std::time::Duration;

/// Whether this `-p` is warm, and how long the worker it leaves waits: `None` when not asked
/// for, or when `UMBEL_WARM` is set but the run names its worker (`--name` keeps that one).
pub fn wanted(ctx: &Ctx, args: &PrintArgs) -> Result<Option<Duration>> {
    if !args.warm && !enabled_by(ctx.var("UMBEL_WARM")) {
        return Ok(None);
    }
    if args.spawn.name.is_some() {
        return match args.warm {
            true => Err(Error::usage(
                "`--warm` leaves a worker for the next unnamed `-p`; a `-p --name` worker is kept \
                 and reused anyway: drop one of them",
            )),
            false => Ok(None),
        };
    }
    if args.spawn.worktree.is_some() {
        // A warm worker is the next `-p`'s: its worktree would carry this run's edits into it.
        return match args.warm {
            true => Err(Error::usage(
                "`--warm` leaves the worker for the next `-p`, which would find this run's edits                  in its `--worktree`: drop one of them",
            )),
            false => Ok(None),
        };
    }
    let (text, what) = match &args.warm_ttl {
        Some(text) => (Some(text.as_str()), "--warm-ttl"),
        None => (ctx.var("UMBEL_WARM_TTL"), "UMBEL_WARM_TTL"),
    };
    let ttl = parse_or(text, what, DEFAULT_TTL)?;
    if ttl.is_zero() {
        return Err(Error::usage(format!(
            "{what} is 0: a warm worker must wait for some time (e.g. 10m)"
        )));
    }
    Ok(Some(ttl))
}

/// The warm worker left for this launch, taken for this `-p` (`None`: start cold).
pub fn claim(ctx: &Ctx, spawn_args: &crate::core::args::SpawnArgs) -> Result<Option<Worker>> {
    let key = launch_key(ctx, spawn_args)?;
    Ok(warm::claim(ctx, &key))
}

/// Starts `umbel warm-refill` detached, to end `worker` and start the next warm one from the
/// same arguments. `false` when it could not be started: the caller ends the worker itself.
pub fn hand_over(args: &PrintArgs, worker: &Worker, ttl: Duration) -> bool {
    let Ok(umbel) = std::env::current_exe() else {
        return false;
    };
    let mut argv = vec![
        umbel.to_string_lossy().into_owned(),
        REFILL_VERB.to_string(),
        "--retire".to_string(),
        worker.name.to_string(),
        "--ttl-ms".to_string(),
        ttl.as_millis().to_string(),
        "--after-ms".to_string(),
        crate::adapters::host::now_ms().to_string(),
        "--".to_string(),
    ];
    argv.extend(args.typed.iter().cloned());
    let program = Program {
        argv,
        dir: None,
        env: Vec::new(),
        clear_env: false,
    };
    start_detached(&program).is_ok()
}

/// `umbel warm-refill`: ends `retire` and starts the warm worker for `args` (the `-p`'s own
/// arguments, parsed again).
pub fn refill(
    ctx: &Ctx,
    args: &PrintArgs,
    (retire, after_ms): (Option<&str>, u64),
    ttl: Duration,
) -> Result<u8> {
    let umbel = std::env::current_exe()
        .map_err(|e| Error::io("cannot find umbel's own binary", "/proc/self/exe", e))?;
    let spawn_args = print_spawn_args(args)?;
    warm::refill(
        ctx,
        &Refill {
            spawn_args: &spawn_args,
            retire,
            ttl,
            umbel: &umbel,
            after_ms,
        },
    )?;
    Ok(0)
}
