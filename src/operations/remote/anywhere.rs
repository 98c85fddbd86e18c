//! The verbs a face names a worker for without knowing where it runs: a worker spawned with
//! `--host` goes through the umbel on its host, any other is loaded here. One place for that
//! choice, for the faces that take results back as values (MCP, `top`); `kill` and
//! `inspect`'s `capture`/`logs` make it themselves (routed here, they would close an import
//! circle: this module's parent is what `kill` routes a remote worker through).

use super::super::Ctx;
use super::super::approve::{self, Answered};
use super::super::interrupt::Interrupted;
use super::super::read::{self, Reading};
use super::super::turn;
use super::super::turns::{self, TurnActions, TurnDiff};
use super::super::worker::{Answer, Worker};
use super::{conversation, find, verbs};
use crate::adapters::host::current_dir_or_error;
use crate::core::approval_args::{AnswerArgs, ApproveArgs, DenyArgs};
use crate::core::args::{ActionsArgs, DiffArgs, GuardArgs, InterruptArgs, ReadArgs, WaitArgs};
use crate::core::budget_args::BudgetArgs;
use crate::core::errors::{Error, Result};
use crate::core::mode_args::ModeArgs;
use crate::core::model_args::ModelArgs;
use crate::core::outcome::Outcome;
use crate::core::providers::mode::ModeReport;
use crate::core::providers::model_switch::ModelReport;
use crate::core::send_verdict::Sent;
use crate::core::worktree::GitDiff;
use crate::operations::budget::BudgetReport;
use std::time::Duration;

/// Sends `prompt` (its guardrails armed; paths in them relative to this process's folder),
/// queued behind a running turn for at most `queue` when given;
/// the verdict (the event-log position it was sent at).
pub fn send(
    ctx: &Ctx,
    name: &str,
    prompt: &[u8],
    guard: &GuardArgs,
    queue: Option<Duration>,
) -> Result<Sent> {
    match find(ctx, name)? {
        Some(at) => verbs::send(ctx, &at, prompt, guard, queue, &current_dir_or_error()?),
        None => turn::submit_queued(ctx, &Worker::load(ctx, name)?, prompt, guard, queue),
    }
}

/// `wait` as `args` asks, enforcing its guardrails, else those the turn was sent with.
pub fn wait(ctx: &Ctx, args: &WaitArgs) -> Result<Outcome> {
    let until = args.until.parse()?;
    match find(ctx, &args.name)? {
        Some(at) => {
            let dir = current_dir_or_error()?;
            verbs::wait(ctx, &at, args.since, &until, &args.guard, &dir)
        }
        None => {
            let worker = Worker::load(ctx, &args.name)?;
            turn::await_end_as_asked(ctx, &worker, args.since, &until, &args.guard)
        }
    }
}

/// `read` as `args` asks.
pub fn reading(ctx: &Ctx, args: &ReadArgs) -> Result<Reading> {
    match find(ctx, &args.name)? {
        Some(at) => match turns::selection(args)? {
            Some(selection) => {
                conversation::turns(ctx, &at, selection).map(|t| Reading::Turns(selection, t))
            }
            None => verbs::answer(ctx, &at).map(Reading::Last),
        },
        None => read::read_any(ctx, &Worker::load(ctx, &args.name)?, args),
    }
}

/// The tools of the last turn, or of `args.turn`.
pub fn actions(ctx: &Ctx, args: &ActionsArgs) -> Result<TurnActions> {
    match find(ctx, &args.name)? {
        Some(at) => conversation::actions(ctx, &at, args),
        None => turns::actions(ctx, &Worker::load(ctx, &args.name)?, args),
    }
}

/// What changed between two turns' answers.
pub fn diff(ctx: &Ctx, args: &DiffArgs) -> Result<TurnDiff> {
    match find(ctx, &args.name)? {
        Some(at) => conversation::diff(ctx, &at, args),
        None => turns::diff(ctx, &Worker::load(ctx, &args.name)?, args),
    }
}

/// `diff --git`: the worktree's changes against its base (`args.stat`: `git diff --stat`); a
/// worker on another host has its worktree there, and the umbel there reads it.
pub fn git_diff(ctx: &Ctx, args: &DiffArgs) -> Result<GitDiff> {
    if let Some(at) = find(ctx, &args.name)? {
        return conversation::git_diff(ctx, &at, args.stat);
    }
    let worker = Worker::load(ctx, &args.name)?;
    let Some(wt) = &worker.meta.worktree else {
        return Err(Error::NoWorktree {
            name: args.name.clone(),
        });
    };
    super::super::worktree::diff(ctx, &worker.name, wt, args.stat)
}

/// Interrupts the running turn.
pub fn interrupt(ctx: &Ctx, args: &InterruptArgs) -> Result<Interrupted> {
    match find(ctx, &args.name)? {
        Some(at) => conversation::interrupt(ctx, &at, args),
        None => {
            let worker = Worker::load(ctx, &args.name)?;
            super::super::interrupt::interrupt(ctx, &worker, args.timeout.as_deref())
        }
    }
}

/// The worker's mode, switched first when `args.mode` names one.
pub fn mode(ctx: &Ctx, args: &ModeArgs) -> Result<ModeReport> {
    match find(ctx, &args.name)? {
        Some(at) => conversation::mode(ctx, &at, args),
        None => {
            let worker = Worker::load(ctx, &args.name)?;
            super::super::mode::mode(ctx, &worker, args.mode.as_deref())
        }
    }
}

/// The worker's model and the models its CLI offers, switched first when `args.model` names one.
pub fn model(ctx: &Ctx, args: &ModelArgs) -> Result<ModelReport> {
    match find(ctx, &args.name)? {
        Some(at) => conversation::model(ctx, &at, args),
        None => {
            let worker = Worker::load(ctx, &args.name)?;
            super::super::model::model(ctx, &worker, args.model.as_deref())
        }
    }
}

/// The worker's budget, its limits changed first when `args` sets any.
pub fn budget(ctx: &Ctx, args: &BudgetArgs) -> Result<BudgetReport> {
    let Some(name) = args.target()? else {
        return super::super::budget::fleet(ctx, &args.limits);
    };
    match find(ctx, name)? {
        Some(at) => conversation::budget(ctx, &at, args),
        None => {
            let worker = Worker::load(ctx, name)?;
            super::super::budget::budget(ctx, &worker, &args.limits)
        }
    }
}

/// Approves the tool the worker waits on.
pub fn approve(ctx: &Ctx, args: &ApproveArgs) -> Result<Answered> {
    match find(ctx, &args.name)? {
        Some(at) => conversation::approve(ctx, &at, args),
        None => approve::approve(ctx, &Worker::load(ctx, &args.name)?, args),
    }
}

/// Answers the question the worker's model asked.
pub fn answer(ctx: &Ctx, args: &AnswerArgs) -> Result<Answered> {
    match find(ctx, &args.name)? {
        Some(at) => conversation::answer(ctx, &at, args),
        None => super::super::question::answer(ctx, &Worker::load(ctx, &args.name)?, args),
    }
}

/// Denies the tool the worker waits on.
pub fn deny(ctx: &Ctx, args: &DenyArgs) -> Result<Answered> {
    match find(ctx, &args.name)? {
        Some(at) => conversation::deny(ctx, &at, args),
        None => approve::deny(ctx, &Worker::load(ctx, &args.name)?, args),
    }
}

/// The answer of the last finished turn.
pub fn last_answer(ctx: &Ctx, name: &str) -> Result<Answer> {
    match find(ctx, name)? {
        Some(at) => verbs::answer(ctx, &at),
        None => read::read(ctx, &Worker::load(ctx, name)?),
    }
}
