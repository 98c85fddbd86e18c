//! What `top`'s keys do to a worker — send, kill, read its answer, its event log, attach —
//! here or on its host: a worker spawned with `--host` is driven through the umbel there, as
//! the verbs on the command line drive it.

use crate::adapters::ssh::{Ssh, Stdout};
use crate::core::args::{AttachArgs, GuardArgs, KillArgs, LogsArgs};
use crate::core::errors::Result;
use crate::core::remote::RemoteRecord;
use crate::operations::remote;
use crate::operations::remote::forward::Request;
use crate::operations::worker::{Answer, Worker};
use crate::operations::{Ctx, attach, inspect, kill, read, send};

/// Sends `prompt`; the position it was sent at.
pub fn send_prompt(ctx: &Ctx, name: &str, prompt: &str) -> Result<usize> {
    let guard = GuardArgs::default();
    match remote::find(ctx, name)? {
        Some(at) => remote::verbs::send(ctx, &at, prompt.as_bytes(), &guard),
        None => {
            let worker = Worker::load(ctx, name)?;
            send::send_turn(ctx, &worker, prompt.as_bytes(), &guard)
        }
    }
}

/// Ends the worker (its folder is kept, as `umbel kill NAME`).
pub fn kill_worker(ctx: &Ctx, name: &str) -> Result<()> {
    match remote::find(ctx, name)? {
        Some(at) => remote::verbs::kill(ctx, &at, false),
        None => {
            let args = KillArgs {
                name: Some(name.to_string()),
                ..KillArgs::default()
            };
            kill::kill(ctx, &args).map(|_| ())
        }
    }
}

/// The answer of its last finished turn.
pub fn last_answer(ctx: &Ctx, name: &str) -> Result<Answer> {
    match remote::find(ctx, name)? {
        Some(at) => remote::verbs::answer(ctx, &at),
        None => read::read(ctx, &Worker::load(ctx, name)?),
    }
}

/// Its event log, a line an event.
pub fn log_lines(ctx: &Ctx, name: &str) -> Result<Vec<String>> {
    let Some(at) = remote::find(ctx, name)? else {
        let args = LogsArgs {
            name: name.to_string(),
            follow: false,
        };
        let mut lines = Vec::new();
        inspect::logs(ctx, &args, |l| lines.push(l.to_string()))?;
        return Ok(lines);
    };
    let request = Request {
        argv: vec!["logs".into(), name.into()],
        ..Request::default()
    };
    let done = remote::forward(ctx, &at.host, request, Stdout::Capture)?;
    Ok(String::from_utf8_lossy(&done.stdout)
        .lines()
        .map(str::to_string)
        .collect())
}

/// Attaches this terminal to its pane until the user detaches.
pub fn attach_here(ctx: &Ctx, name: &str) -> Result<()> {
    let terminal = attach::Terminal {
        stdin: true,
        stdout: true,
    };
    match remote::find(ctx, name)? {
        Some(RemoteRecord { host, .. }) => {
            Ssh::from_env(ctx.state.path(), &ctx.env).attach(&host, name)?;
            Ok(())
        }
        None => {
            let args = AttachArgs {
                name: name.to_string(),
            };
            attach::attach_and_return(ctx, &args, terminal)
        }
    }
}
