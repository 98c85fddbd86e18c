//! What each supervisor verb does on the command line: load the worker once, run the verb,
//! print its result (text, or JSON with `--json`) and give the exit status. `cli.rs` parses
//! and picks one of these.

use super::inspect::{print_actions, print_diff, print_last, print_turns};
use super::output::{explain_outcome, out_json, outln};
use super::status_view::{print_one, print_table, warn_problems};
use super::turn_line::turn_line_for;
use crate::core::args::{
    ActionsArgs, AttachArgs, CaptureArgs, DiffArgs, EventsArgs, ExplainArgs, InterruptArgs,
    KillArgs, LogsArgs, PruneArgs, ReadArgs, SendArgs, SpawnArgs, StatusArgs, WaitArgs,
};
use crate::core::budget_args::BudgetArgs;
use crate::core::errors::{Error, Result};
use crate::core::mode_args::ModeArgs;
use crate::core::model_args::ModelArgs;
use crate::operations::worker::Worker;
use crate::operations::{Ctx, attach, explain, inspect, kill, read, spawn, status, turn, turns};
use std::io::IsTerminal;

/// `spawn`: the new worker's name (or its meta as JSON).
pub fn spawn(ctx: &Ctx, args: &SpawnArgs, json: bool) -> Result<u8> {
    let meta = spawn::spawn(ctx, args)?;
    if json {
        out_json(&meta)
    } else {
        outln(&meta.name)
    }
    Ok(0)
}

/// `send`: the position to `wait --since` (JSON: the whole verdict).
pub fn send(ctx: &Ctx, args: &SendArgs, prompt: &[u8], json: bool) -> Result<u8> {
    let worker = Worker::load(ctx, &args.name)?;
    let queue = args.queue_limit()?;
    let sent = turn::submit_queued(ctx, &worker, prompt, &args.guard, queue)?;
    if json {
        out_json(&sent)
    } else {
        outln(&sent.position.to_string())
    }
    Ok(0)
}

/// `park`: `parked NAME` per worker parked now (`already parked NAME` for the others).
pub fn park(ctx: &Ctx, args: &crate::core::args::ParkArgs, json: bool) -> Result<u8> {
    let report = crate::operations::park::park(ctx, args)?;
    if json {
        out_json(&report);
    } else {
        for name in &report.parked {
            outln(&format!("parked {name}"));
        }
        for name in &report.already {
            outln(&format!("already parked {name}"));
        }
    }
    Ok(0)
}

/// `resume`: how long the CLI took to be ready again.
pub fn resume(ctx: &Ctx, args: &crate::core::args::ResumeArgs, json: bool) -> Result<u8> {
    let resumed = crate::operations::park::resume(ctx, args)?;
    if json {
        out_json(&resumed);
    } else {
        outln(&format!(
            "resumed {} in {} ms",
            args.name, resumed.resume_ms
        ));
    }
    Ok(0)
}

/// `interrupt`: the event position (and what happened, on stderr), or the JSON report.
pub fn interrupt(ctx: &Ctx, args: &InterruptArgs, json: bool) -> Result<u8> {
    let done = crate::operations::remote::anywhere::interrupt(ctx, args)?;
    if json {
        out_json(&done);
    } else {
        errln!("umbel: {}: {}", done.name, done.message);
        outln(&done.position.to_string());
    }
    Ok(0)
}

/// `mode`: the worker's mode and the modes its key cycles through, or the JSON report.
pub fn mode(ctx: &Ctx, args: &ModeArgs, json: bool) -> Result<u8> {
    let worker = Worker::load(ctx, &args.name)?;
    let report = crate::operations::mode::mode(ctx, &worker, args.mode.as_deref())?;
    if json {
        out_json(&report);
    } else {
        outln(&format!(
            "{}: {} (its key cycles {})",
            report.name,
            report.mode,
            report.modes.join(" → ")
        ));
    }
    Ok(0)
}

/// `model`: the worker's model and the models its CLI offers, or the JSON report.
pub fn model(ctx: &Ctx, args: &ModelArgs, json: bool) -> Result<u8> {
    let worker = Worker::load(ctx, &args.name)?;
    let report = crate::operations::model::model(ctx, &worker, args.model.as_deref())?;
    if json {
        out_json(&report);
    } else {
        outln(&crate::core::providers::model_switch::summary(&report));
    }
    Ok(0)
}

/// `budget`: the worker's limits and what it used, or the JSON report.
pub fn budget(ctx: &Ctx, args: &BudgetArgs, json: bool) -> Result<u8> {
    let report = match args.target()? {
        None => crate::operations::budget::fleet(ctx, &args.limits)?,
        Some(name) => {
            let worker = Worker::load(ctx, name)?;
            crate::operations::budget::budget(ctx, &worker, &args.limits)?
        }
    };
    if json {
        out_json(&report);
    } else {
        outln(&crate::operations::budget::summary(&report));
    }
    Ok(0)
}

/// `wait`: the outcome (and why, on stderr); the exit status says how the turn ended.
pub fn wait(ctx: &Ctx, args: &WaitArgs, json: bool) -> Result<u8> {
    if args.is_many() {
        return wait_many(ctx, args, json);
    }
    let mut line = turn_line_for(ctx, &args.name);
    let waited = Worker::load(ctx, &args.name).and_then(|worker| {
        let ctx = ctx.with_progress(line.sink());
        let until = args.until.parse()?;
        turn::await_end_as_asked(&ctx, &worker, args.since, &until, &args.guard)
    });
    line.clear();
    let outcome = waited?;
    if json {
        out_json(&outcome);
    } else {
        match &outcome.reason {
            Some(reason) => outln(&format!("{} {reason}", outcome.outcome.as_str())),
            None => outln(outcome.outcome.as_str()),
        }
        explain_outcome(&args.name, &outcome);
        if outcome.outcome == crate::core::outcome::OutcomeKind::Dead {
            let resumable = Worker::load(ctx, &args.name)
                .is_ok_and(|w| crate::operations::revival::resumable(ctx, &w).is_ok());
            let next = crate::core::errors::dead_next_step(&args.name, resumable);
            errln!("umbel: {next}");
        }
    }
    Ok(outcome.outcome.exit_code())
}

/// `wait NAME… --any | --all`: a line per worker whose wait ended (`NAME outcome [reason]`),
/// or the JSON report; the exit status is `--any`'s first outcome, `--all`'s worst.
fn wait_many(ctx: &Ctx, args: &WaitArgs, json: bool) -> Result<u8> {
    let waited = crate::operations::wait::many::wait_many(ctx, args)?;
    if json {
        out_json(&waited);
    } else {
        for named in &waited.outcomes {
            let outcome = &named.outcome;
            let reason = outcome.reason.as_deref().map(|r| format!(" {r}"));
            let kind = outcome.outcome.as_str();
            outln(&format!(
                "{} {kind}{}",
                named.name,
                reason.unwrap_or_default()
            ));
            explain_outcome(&named.name, outcome);
        }
    }
    Ok(waited.outcome().exit_code())
}

/// `read`: the last answer, or the turns asked for.
pub fn read(ctx: &Ctx, args: &ReadArgs, json: bool) -> Result<u8> {
    let worker = Worker::load(ctx, &args.name)?;
    match read::read_any(ctx, &worker, args)? {
        read::Reading::Last(answer) => print_last(&answer, json),
        read::Reading::Turns(selection, list) => print_turns(&list, selection, json),
    }
    Ok(0)
}

/// `actions`: the tools of a turn.
pub fn actions(ctx: &Ctx, args: &ActionsArgs, json: bool) -> Result<u8> {
    let worker = Worker::load(ctx, &args.name)?;
    print_actions(&turns::actions(ctx, &worker, args)?, json);
    Ok(0)
}

/// `diff`: two turns' answers, compared.
pub fn diff(ctx: &Ctx, args: &DiffArgs, json: bool) -> Result<u8> {
    if args.git {
        let found = crate::operations::remote::anywhere::git_diff(ctx, args)?;
        if json {
            super::output::out_json(&found);
        } else if found.patch.is_empty() {
            errln!(
                "umbel: no changes in {}'s worktree (branch {}) against {}",
                found.name,
                found.branch,
                crate::core::worktree::short(&found.base)
            );
        } else {
            super::output::out(&found.patch);
        }
        return Ok(0);
    }
    let worker = Worker::load(ctx, &args.name)?;
    print_diff(&turns::diff(ctx, &worker, args)?, json);
    Ok(0)
}

/// `attach`: returns only when it could not replace umbel with the tmux client.
pub fn attach(ctx: &Ctx, args: &AttachArgs) -> Result<u8> {
    let terminal = attach::Terminal {
        stdin: std::io::stdin().is_terminal(),
        stdout: std::io::stdout().is_terminal(),
    };
    Err(attach::attach(ctx, args, terminal))
}

/// `status` (one worker, or the table) and `ls` (always the table).
pub fn status(ctx: &Ctx, args: &StatusArgs, json: bool) -> Result<u8> {
    let list = status::status(ctx, args)?;
    warn_problems(&list);
    match (json, &args.name) {
        (true, Some(_)) => list.first().map(out_json).unwrap_or(()),
        (true, None) => out_json(&list),
        (false, Some(_)) => list.first().map(print_one).unwrap_or(()),
        (false, None) => print_table(&list),
    }
    Ok(0)
}

/// `kill`: one line per worker ended, or `{killed, purged}`.
pub fn kill(ctx: &Ctx, args: &KillArgs, json: bool) -> Result<u8> {
    let killed = kill::kill(ctx, args)?;
    for (name, problem) in &killed.warnings {
        errln!("umbel: warning: worker `{name}`: {problem}");
    }
    super::json_verbs::print_killed(killed.names, killed.kept, args.purge, json);
    Ok(0)
}

/// `capture`: the screen, or `{screen}`.
pub fn capture(ctx: &Ctx, args: &CaptureArgs, json: bool) -> Result<u8> {
    super::json_verbs::print_screen(inspect::capture(ctx, args)?, json);
    Ok(0)
}

/// `explain`: the evidence behind a worker's state (or a saved screen's reading).
pub fn explain(ctx: &Ctx, args: &ExplainArgs, json: bool) -> Result<u8> {
    super::explain::print(&explain::explain(ctx, args)?, json);
    Ok(0)
}

/// `logs`: the event log (a JSON object a line with `--json`), followed with `-f`.
pub fn logs(ctx: &Ctx, args: &LogsArgs, json: bool) -> Result<u8> {
    let mut position = 0;
    inspect::logs(ctx, args, |line| {
        super::json_verbs::print_log_line(position, line, json);
        position += 1;
    })?;
    Ok(0)
}

/// `events`: one line per state change (`<time> <worker> <event> …`, or JSON Lines), each
/// handed to `--exec` as well; problems of `--exec` go to stderr.
pub fn events(ctx: &Ctx, args: &EventsArgs, json: bool) -> Result<u8> {
    let report = std::sync::Arc::new(|line: String| errln!("umbel: {line}"));
    let exec = match &args.exec {
        Some(command) => Some(crate::operations::events::Exec::new(
            ctx,
            command,
            args.exec_timeout.as_deref(),
            report,
        )?),
        None => None,
    };
    let followed = crate::operations::events::events(ctx, args, |event| {
        if json {
            out_json(event);
        } else {
            outln(&format!("{} {}", utc_millis(event.at), event.describe()));
        }
        if let Some(exec) = &exec {
            exec.run(event);
        }
    });
    // The commands queued run to their end; after Ctrl-C (SIGTERM, SIGHUP) the running ones
    // are ended with umbel instead.
    if let Some(exec) = &exec {
        exec.finish();
    }
    followed?;
    Ok(0)
}

/// A time in ms since the epoch as `2026-12-04T21:00:00.123Z`.
fn utc_millis(ms: u64) -> String {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_millis(time).to_string()
}

/// `prune`: what was removed, and a warning for each worker skipped.
pub fn prune(ctx: &Ctx, args: &PruneArgs, json: bool) -> Result<u8> {
    let pruned = inspect::prune(ctx, args)?;
    for skipped in &pruned.skipped {
        errln!(
            "umbel: warning: worker `{}` skipped: {}",
            skipped.name,
            skipped.problem
        );
    }
    for orphan in &pruned.orphans {
        errln!(
            "umbel: warning: worker `{}` has no folder: {}",
            orphan.name,
            orphan.problem
        );
    }
    if json {
        out_json(&pruned);
    } else {
        pruned
            .removed
            .iter()
            .for_each(|n| outln(&format!("removed {n}")));
        errln!(
            "umbel: {} removed, {} kept",
            pruned.removed.len(),
            pruned.kept.len()
        );
    }
    Ok(0)
}

/// No verb and no `-p`: say what is missing.
pub fn nothing(prompt_given: bool) -> Result<u8> {
    Err(Error::usage(if prompt_given {
        "a prompt needs `-p` (print mode), e.g. `umbel -p \"…\"`; see `umbel --help`"
    } else {
        "nothing to do: use `umbel -p PROMPT` or a verb; see `umbel --help`"
    }))
}
