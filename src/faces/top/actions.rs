//! What `top`'s keys do to a worker — kill, answer its approval, its event log, attach — here
//! or on its host: a
//! worker spawned with `--host` is driven through the umbel there, as the verbs on the command
//! line drive it (send and read go through `operations::remote::anywhere`, as MCP's do).

use crate::adapters::ssh::Ssh;
use crate::core::approval_args::{ApproveArgs, DenyArgs};
use crate::core::args::{AttachArgs, KillArgs, LogsArgs, ParkArgs};
use crate::core::errors::Result;
use crate::core::remote::RemoteRecord;
use crate::operations::remote;
use crate::operations::{Ctx, attach, inspect, kill, park};

/// Ends the worker, here or on its host (its folder is kept, as `umbel kill NAME`).
pub fn kill_worker(ctx: &Ctx, name: &str) -> Result<()> {
    let args = KillArgs {
        name: Some(name.to_string()),
        ..KillArgs::default()
    };
    kill::kill(ctx, &args).map(|_| ())
}

/// Ends the worker's CLI and keeps its conversation, as `umbel park NAME`.
pub fn park_worker(ctx: &Ctx, name: &str) -> Result<()> {
    let args = ParkArgs {
        names: vec![name.to_string()],
        idle_for: None,
    };
    park::park(ctx, &args).map(|_| ())
}

/// Approves (`allow`) or denies the tool the worker waits on, for the approval `expect` the row
/// showed; the note says what was answered, or why not.
pub fn answer(ctx: &Ctx, name: &str, expect: Option<String>, allow: bool) -> String {
    let done = if allow {
        let args = ApproveArgs {
            name: name.to_string(),
            always: false,
            expect,
            wait: false,
            timeout: None,
        };
        remote::anywhere::approve(ctx, &args)
    } else {
        let args = DenyArgs {
            name: name.to_string(),
            reason: None,
            expect,
            timeout: None,
        };
        remote::anywhere::deny(ctx, &args)
    };
    match done {
        Ok(done) => format!("{name}: {}", done.message),
        Err(e) => format!("{name}: not answered: {e}"),
    }
}

/// Its event log, a line an event (a remote worker's is its host's: `inspect::logs` asks it).
pub fn log_lines(ctx: &Ctx, name: &str) -> Result<Vec<String>> {
    let args = LogsArgs {
        name: name.to_string(),
        follow: false,
    };
    let mut lines = Vec::new();
    inspect::logs(ctx, &args, |l| lines.push(l.to_string()))?;
    Ok(lines)
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
