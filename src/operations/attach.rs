//! `attach`: a person takes over a worker's pane in this terminal, through `tmux attach` on
//! umbel's private socket (detach with the tmux prefix, `C-b d`, to come back).

use super::Ctx;
use super::worker::Worker;
use crate::core::args::AttachArgs;
use crate::core::errors::{Error, Result};
use crate::core::wait::Liveness;

/// Whether the caller's standard streams are terminals (the face finds out).
#[derive(Debug, Clone, Copy)]
pub struct Terminal {
    pub stdin: bool,
    pub stdout: bool,
}

/// Replaces this process with the tmux client; returns only with the reason it could not.
/// Refuses a worker without a live pane, and a caller without a terminal on both ends.
pub fn attach(ctx: &Ctx, args: &AttachArgs, terminal: Terminal) -> Error {
    match check(ctx, args, terminal) {
        Ok(worker) => ctx.tmux.exec_attach(worker.session()),
        Err(e) => e,
    }
}

/// Hands this terminal to the worker's pane until the person detaches, then returns (for a
/// face that comes back to its own view, `top`). Same refusals as [`attach`].
pub fn attach_and_return(ctx: &Ctx, args: &AttachArgs, terminal: Terminal) -> Result<()> {
    let worker = check(ctx, args, terminal)?;
    ctx.tmux.attach_until_detached(worker.session())
}

fn check(ctx: &Ctx, args: &AttachArgs, terminal: Terminal) -> Result<Worker> {
    let worker = Worker::load(ctx, &args.name)?;
    match worker.liveness(ctx)? {
        Liveness::Alive => {}
        Liveness::Dead(status) => {
            return Err(Error::Dead {
                name: worker.name.to_string(),
                detail: format!(
                    "its CLI {}; `umbel capture {}` shows its last screen",
                    status.describe(),
                    worker.name
                ),
                resumable: false,
            });
        }
        Liveness::Gone => {
            return Err(Error::Dead {
                name: worker.name.to_string(),
                detail: "it has no pane to attach to".into(),
                resumable: false,
            });
        }
    }
    needs_terminal(terminal, worker.name.as_str())?;
    Ok(worker)
}

/// Refuses to attach worker `name` for a caller without a terminal on both ends.
pub fn needs_terminal(terminal: Terminal, name: &str) -> Result<()> {
    let missing = match (terminal.stdin, terminal.stdout) {
        (true, true) => return Ok(()),
        (false, true) => "standard input is",
        (true, false) => "standard output is",
        (false, false) => "standard input and output are",
    };
    Err(Error::usage(format!(
        "`umbel attach` needs a terminal, but {missing} not one; use `umbel capture {name}` to look at the screen"
    )))
}
