//! Whether a parked or dead worker can be brought back on its conversation: its recorded
//! launch (what spawn started, what a resume starts again), and its transcript where it ran a
//! turn. Read by `park`/`resume`, and by the verbs that tell a user what to do with a dead
//! worker (`send`, `status`, `explain`): resume it rather than lose its conversation.

use super::Ctx;
use super::worker::{REACH, Worker};
use crate::adapters::host;
use crate::core::errors::{Error, Result};
use crate::core::providers::EventClass;
use crate::core::worker_env::EnvSpec;

/// The worker's file holding how its CLI was launched (mode 0600). It holds the `--env`
/// requests and the launch's own variables, never a value taken from umbel's environment: a
/// resume composes those again from the environment of the umbel that resumes, as spawn did,
/// so no inherited secret is ever written under the state root.
pub const LAUNCH_FILE: &str = "launch.json";

/// How spawn started the CLI: what a resume starts again.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Launch {
    /// The CLI's arguments (after the binary).
    pub args: Vec<String>,
    /// The worker's whole environment: composed when the CLI starts, never stored.
    #[serde(skip)]
    pub env: Vec<(String, String)>,
    /// The `--env` requests as given.
    #[serde(default)]
    pub requested: Vec<EnvSpec>,
    /// The variables the launch itself sets (the CLI's private config home, …).
    #[serde(default)]
    pub own: Vec<(String, String)>,
    /// The variables given with `--env`.
    #[serde(default)]
    pub given: Vec<String>,
}

/// The launch spawn recorded, or the refusal for a worker spawned by an older umbel (`then`:
/// what that means here).
pub(super) fn recorded_launch(ctx: &Ctx, worker: &Worker, then: &str) -> Result<Launch> {
    ctx.state
        .read_record(&worker.name, LAUNCH_FILE)?
        .ok_or_else(|| {
            refused(
                worker,
                &format!("has no recorded launch (spawned by an older umbel){then}"),
            )
        })
}

/// Whether a dead worker can be brought back: its launch was recorded and its conversation is
/// still there (a worker that never ran a turn has none to lose).
pub fn resumable(ctx: &Ctx, worker: &Worker) -> Result<()> {
    // First: a killed worker's launch is removed with its `--env` values.
    if let Some(dead) = ctx.state.read_dead(&worker.name)
        && dead.by.as_deref() == Some("kill")
    {
        return Err(refused(worker, "was ended by `umbel kill`"));
    }
    recorded_launch(ctx, worker, ": spawn it anew")?;
    conversation_kept(ctx, worker)
}

/// Whether the worker's conversation is still there to resume: a worker that ran a turn needs
/// its transcript (a parked one too: resumed without it, it would say `resumed` on an empty
/// conversation).
pub(super) fn conversation_kept(ctx: &Ctx, worker: &Worker) -> Result<()> {
    let had_turn = ctx
        .state
        .log_backwards(&worker.name)?
        .take(REACH)
        .any(|r| worker.provider().class_of(&r.kind, None) == EventClass::Submitted);
    match worker.transcript_path(ctx) {
        Some(path) if had_turn && !host::exists(&path) => Err(refused(
            worker,
            &format!(
                "cannot be resumed: its transcript {} is gone, and with it the conversation",
                path.display()
            ),
        )),
        _ => Ok(()),
    }
}

pub(super) fn refused(worker: &Worker, detail: &str) -> Error {
    Error::NotResumable {
        name: worker.name.to_string(),
        detail: detail.to_string(),
    }
}
