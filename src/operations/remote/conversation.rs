//! The verbs that look at a remote worker's whole conversation (`read` with a turn selection,
//! `actions`, `diff`), end its turn (`interrupt`) or answer it (`approve`, `deny`, `answer`), run by the
//! umbel on its host, whose transcript and pane they are, and read back into the same values as
//! for a local worker.

use super::super::Ctx;
use super::super::approve::Answered;
use super::super::interrupt::Interrupted;
use super::super::turns::{Selection, TurnActions, TurnDiff};
use super::forward::Request;
use super::verbs::{call, read_back};
use crate::core::approval_args::{AnswerArgs, ApproveArgs, DenyArgs};
use crate::core::args::{ActionsArgs, DiffArgs, InterruptArgs};
use crate::core::budget_args::BudgetArgs;
use crate::core::errors::Result;
use crate::core::mode_args::ModeArgs;
use crate::core::model_args::ModelArgs;
use crate::core::providers::mode::ModeReport;
use crate::core::providers::model_switch::ModelReport;
use crate::core::remote::RemoteRecord;
use crate::core::turns::Turn;
use crate::operations::budget::BudgetReport;

/// `verb NAME --json FLAGS…` on the host, read back.
fn ask<T: serde::de::DeserializeOwned>(
    ctx: &Ctx,
    at: &RemoteRecord,
    verb: &str,
    flags: Vec<String>,
) -> Result<T> {
    let mut argv = vec![verb.to_string(), at.name.clone(), "--json".to_string()];
    argv.extend(flags);
    let request = Request {
        argv,
        ..Request::default()
    };
    read_back(&at.host, call(ctx, &at.host, request)?)
}

/// `--flag=N` for each numeric flag that is given.
fn numbers(flags: &[(&str, Option<usize>)]) -> Vec<String> {
    flags
        .iter()
        .filter_map(|(flag, n)| n.map(|n| format!("--{flag}={n}")))
        .collect()
}

/// `interrupt` (the running turn), on the host where its pane is.
pub fn interrupt(ctx: &Ctx, at: &RemoteRecord, args: &InterruptArgs) -> Result<Interrupted> {
    let flags = args.timeout.iter().map(|t| format!("--timeout={t}"));
    ask(ctx, at, "interrupt", flags.collect())
}

/// `mode` (shown, or switched to `args.mode`), on the host where its pane is.
pub fn mode(ctx: &Ctx, at: &RemoteRecord, args: &ModeArgs) -> Result<ModeReport> {
    let mode = args.mode.iter().flat_map(|m| ["--".to_string(), m.clone()]);
    ask(ctx, at, "mode", mode.collect())
}

/// `model` (shown, or switched to `args.model`), on the host where its pane is.
pub fn model(ctx: &Ctx, at: &RemoteRecord, args: &ModelArgs) -> Result<ModelReport> {
    let model = args
        .model
        .iter()
        .flat_map(|m| ["--".to_string(), m.clone()]);
    ask(ctx, at, "model", model.collect())
}

/// `budget` (shown, or its limits changed), on the host where its pane is.
pub fn budget(ctx: &Ctx, at: &RemoteRecord, args: &BudgetArgs) -> Result<BudgetReport> {
    let l = &args.limits;
    let flags = [
        ("max-tokens", l.max_tokens.map(|n| n.to_string())),
        ("max-budget-usd", l.max_budget_usd.map(|n| n.to_string())),
        ("max-prompts", l.max_prompts.map(|n| n.to_string())),
    ];
    let flags = flags
        .into_iter()
        .filter_map(|(f, v)| v.map(|v| format!("--{f}={v}")));
    ask(ctx, at, "budget", flags.collect())
}

/// `approve` (the tool the worker waits on), on the host where its pane is.
pub fn approve(ctx: &Ctx, at: &RemoteRecord, args: &ApproveArgs) -> Result<Answered> {
    let mut flags = texts(&[("expect", &args.expect), ("timeout", &args.timeout)]);
    flags.extend(args.always.then(|| "--always".to_string()));
    flags.extend(args.wait.then(|| "--wait".to_string()));
    ask(ctx, at, "approve", flags)
}

/// `answer` (the question the worker's model asked), on the host where its pane is.
pub fn answer(ctx: &Ctx, at: &RemoteRecord, args: &AnswerArgs) -> Result<Answered> {
    let mut flags = texts(&[("expect", &args.expect), ("timeout", &args.timeout)]);
    flags.extend(args.wait.then(|| "--wait".to_string()));
    flags.extend(["--".to_string(), args.choice.clone()]);
    ask(ctx, at, "answer", flags)
}

/// `deny` (the tool the worker waits on; the reason as the next prompt), on its host.
pub fn deny(ctx: &Ctx, at: &RemoteRecord, args: &DenyArgs) -> Result<Answered> {
    let flags = texts(&[
        ("reason", &args.reason),
        ("expect", &args.expect),
        ("timeout", &args.timeout),
    ]);
    ask(ctx, at, "deny", flags)
}

/// `--flag=TEXT` for each text flag that is given.
fn texts(flags: &[(&str, &Option<String>)]) -> Vec<String> {
    flags
        .iter()
        .filter_map(|(flag, text)| text.as_ref().map(|t| format!("--{flag}={t}")))
        .collect()
}

/// `actions` (the last turn's tools, or `turn`'s).
pub fn actions(ctx: &Ctx, at: &RemoteRecord, args: &ActionsArgs) -> Result<TurnActions> {
    ask(ctx, at, "actions", numbers(&[("turn", args.turn)]))
}

/// `diff` (two turns' answers).
pub fn diff(ctx: &Ctx, at: &RemoteRecord, args: &DiffArgs) -> Result<TurnDiff> {
    let flags = numbers(&[("from", args.from), ("to", args.to)]);
    ask(ctx, at, "diff", flags)
}

/// `diff --git` (`--stat`): the worktree's changes, read on the host where the worktree is.
pub fn git_diff(
    ctx: &Ctx,
    at: &RemoteRecord,
    stat: bool,
) -> Result<crate::core::worktree::GitDiff> {
    let mut flags = vec!["--git".to_string()];
    if stat {
        flags.push("--stat".to_string());
    }
    ask(ctx, at, "diff", flags)
}

/// `read` with a turn selection: one turn (one object there), every turn or those after one
/// (a list).
pub fn turns(ctx: &Ctx, at: &RemoteRecord, selection: Selection) -> Result<Vec<Turn>> {
    match selection {
        Selection::One(n) => {
            ask(ctx, at, "read", numbers(&[("turn", Some(n))])).map(|one| vec![one])
        }
        Selection::All => ask(ctx, at, "read", vec!["--all".into()]),
        Selection::Since(n) => ask(ctx, at, "read", numbers(&[("since-turn", Some(n))])),
    }
}
