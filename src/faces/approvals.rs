//! The approval verbs on the command line: `approve`, `deny`, `answer` (what was answered, on
//! stdout) and `approvals` (one line per pending approval, `-f` one per change).

use super::output::{explain_outcome, out_json, outln};
use crate::core::approval_args::{AnswerArgs, ApprovalsArgs, ApproveArgs, DenyArgs};
use crate::core::approvals::brief;
use crate::core::errors::Result;
use crate::operations::approve::Answered;
use crate::operations::worker::Worker;
use crate::operations::{Ctx, approvals};

/// `approve`: `approved TOOL INPUT` (and what followed, on stderr), or the JSON report; with
/// `--wait`, the turn's outcome line and exit code as `wait` prints them.
pub fn approve(ctx: &Ctx, args: &ApproveArgs, json: bool) -> Result<u8> {
    let done = crate::operations::remote::anywhere::approve(ctx, args)?;
    print(&done, json);
    Ok(exit_code(&done, args.wait))
}

/// With `--wait`, the turn's outcome code, as `wait` gives it; else 0.
fn exit_code(done: &Answered, waited: bool) -> u8 {
    match (&done.outcome, waited) {
        (Some(outcome), true) => outcome.outcome.exit_code(),
        _ => 0,
    }
}

/// `deny`: `denied TOOL INPUT`, or the JSON report.
pub fn deny(ctx: &Ctx, args: &DenyArgs, json: bool) -> Result<u8> {
    let done = crate::operations::remote::anywhere::deny(ctx, args)?;
    print(&done, json);
    Ok(0)
}

/// `answer`: `answered TOOL: CHOICE`, or the JSON report; with `--wait`, the turn's outcome
/// line and exit code as `wait` prints them.
pub fn answer(ctx: &Ctx, args: &AnswerArgs, json: bool) -> Result<u8> {
    let done = crate::operations::remote::anywhere::answer(ctx, args)?;
    print(&done, json);
    Ok(exit_code(&done, args.wait))
}

/// `rule-answer NAME` (started by a worker's permission hook, output unread): answers the
/// pending approval when one of the worker's rules decides it.
pub fn by_rules(ctx: &Ctx, name: &str, json: bool) -> Result<u8> {
    let worker = Worker::load(ctx, name)?;
    if let Some(done) = crate::operations::rule_answer::answer(ctx, &worker)? {
        print(&done, json);
    }
    Ok(0)
}

fn print(done: &Answered, json: bool) {
    if json {
        out_json(done);
        return;
    }
    let tool = done.tool.as_deref().unwrap_or("tool");
    let input = done.input.as_ref().map(brief).unwrap_or_default();
    match (&done.choice, done.answer.allows()) {
        (Some(choice), _) => outln(&format!("answered {tool}: {choice}")),
        (None, true) => outln(format!("approved {tool} {input}").trim_end()),
        (None, false) => outln(format!("denied {tool} {input}").trim_end()),
    }
    errln!("umbel: {}: {}", done.name, done.message);
    if let Some(outcome) = &done.outcome {
        errln!("umbel: {}: {}", done.name, outcome.headline());
        explain_outcome(&done.name, outcome);
    }
    if let Some(at) = done.reason_sent_at {
        outln(&at.to_string());
    }
}

/// `approvals [-f]`: one line per pending approval, oldest first (JSON: an array, or with `-f`
/// one object per line and change).
pub fn list(ctx: &Ctx, args: &ApprovalsArgs, json: bool) -> Result<u8> {
    if args.follow {
        approvals::follow(ctx, |change| {
            if json {
                out_json(change);
            } else {
                outln(&format!("{} {}", change.change, change.approval.describe()));
            }
        })?;
        return Ok(0);
    }
    let rows = crate::operations::remote::fleet::approvals_everywhere(ctx)?;
    if json {
        out_json(&rows);
    } else if rows.is_empty() {
        errln!("umbel: no worker waits on an approval");
    } else {
        rows.iter().for_each(|row| outln(&row.describe()));
    }
    Ok(0)
}
