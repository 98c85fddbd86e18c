//! `umbel rule-answer NAME`, started by a worker's permission hook (see `rules`): answers the
//! pending approval with the CLI's own keys when one of the worker's rules decides it.

use super::Ctx;
use super::approve::{self, Answered, By, DEFAULT_CONFIRM, Request};
use super::rules::{RULES_LOG, of, verdict};
use super::send::state_and_events;
use super::worker::Worker;
use crate::adapters::files;
use crate::adapters::host::now_ms;
use crate::core::approvals;
use crate::core::errors::{Error, Result};
use crate::core::providers::approval::Answer;
use crate::core::rules::Verdict;

/// `umbel rule-answer NAME`: answers the pending approval when a rule decides it. `None` when
/// nothing was pending or no rule decides; an answer another caller gave first is not an error.
pub fn answer(ctx: &Ctx, worker: &Worker) -> Result<Option<Answered>> {
    let rules = of(ctx, worker).inspect_err(|e| log(ctx, worker, "rules.json", e))?;
    let (_, events) = state_and_events(ctx, worker)?;
    let Some(asked) = approvals::pending(&events) else {
        return Ok(None);
    };
    let (answer, rule) = match verdict(worker, &rules, &asked) {
        Verdict::Allow(rule) => (Answer::Approve, rule),
        Verdict::Deny(rule) => (Answer::Deny, rule),
        Verdict::Ask => return Ok(None),
    };
    let request = Request {
        answer,
        choice: None,
        expect: Some(asked.id()),
        confirm: DEFAULT_CONFIRM,
        by: By::Rule(rule),
    };
    match approve::answer(ctx, worker, &request) {
        Ok(done) => Ok(Some(done)),
        // A person (or another hook's answerer) was first: theirs stands.
        Err(Error::AlreadyAnswered { .. } | Error::ApprovalChanged { .. }) => Ok(None),
        Err(e) => {
            log(ctx, worker, &asked.id(), &e);
            Err(e)
        }
    }
}

/// Notes in the worker's rules log why an answer a rule would give was not given (the hook that
/// runs the answerer has no one to tell).
fn log(ctx: &Ctx, worker: &Worker, about: &str, e: &Error) {
    let line = format!("{} {about}: {e}\n", now_ms());
    let _ = files::append(&ctx.state.session_dir(&worker.name).join(RULES_LOG), &line);
}
