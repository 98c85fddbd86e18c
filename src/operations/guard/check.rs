//! Checking one answer: the schema first (located problems), then the `--accept` command; the
//! verdict carries the feedback for the worker, and every check is appended to the worker's
//! event log.

use super::Guard;
use crate::core::errors::Result;
use crate::core::events::CHECK_EVENT;
use crate::core::guard::{CheckKind, Rejection, Schema, extract_json, problem_lines, tail_after};
use crate::core::name::WorkerName;
use crate::core::outcome::CheckReport;
use crate::operations::Ctx;
use crate::operations::worker::{Answer, Worker};
use serde_json::{Value, json};

/// The most check output kept in the event log and in the outcome.
pub(super) const MAX_RECORDED_OUTPUT: usize = 64 * 1024;

impl Guard {
    /// Checks one answer: the schema first, then the command.
    pub(super) fn check(
        &self,
        ctx: &Ctx,
        worker: &Worker,
        answer: &Answer,
        attempt: u32,
    ) -> Result<Verdict> {
        let mut value = None;
        let mut stdin = answer.text.clone().into_bytes();
        let mut passed = None;
        if let Some((shown, schema)) = &self.schema {
            let (report, parsed) = check_schema(schema, &answer.text);
            if !report.accepted {
                let feedback =
                    self.feedback(attempt, CheckKind::Schema, shown, None, (&report.output, 0));
                return Ok(Verdict::rejected(report, feedback));
            }
            value = parsed;
            stdin = pretty(value.as_ref());
            passed = Some(report);
        }
        let Some(accept) = &self.accept else {
            // `prepare` builds no Guard without a check; nothing to reject on.
            let report = passed.unwrap_or(CheckReport {
                check: CheckKind::Accept,
                accepted: true,
                exit_code: None,
                output: String::new(),
            });
            return Ok(Verdict::accepted(report, value));
        };
        let ran = accept.run(worker, answer, attempt, &stdin, &ctx.cancel)?;
        let report = CheckReport {
            check: CheckKind::Accept,
            accepted: ran.passed,
            exit_code: ran.exit_code,
            output: tail_after(&ran.output, MAX_RECORDED_OUTPUT, ran.dropped),
        };
        if ran.passed {
            return Ok(Verdict::accepted(report, value));
        }
        let feedback = self.feedback(
            attempt,
            CheckKind::Accept,
            &accept.shown,
            Some(&ran.status),
            (&ran.output, ran.dropped),
        );
        Ok(Verdict::rejected(report, feedback))
    }

    /// The message a rejected answer sends back to the worker.
    fn feedback(
        &self,
        attempt: u32,
        kind: CheckKind,
        subject: &str,
        status: Option<&str>,
        (details, details_dropped): (&str, u64),
    ) -> String {
        let rejection = Rejection {
            attempt,
            max_attempts: self.max_attempts,
            kind,
            subject,
            status,
            details,
            details_dropped,
        };
        rejection.feedback()
    }
}

/// The schema's verdict on an answer, and the answer as JSON when it parses.
fn check_schema(schema: &Schema, text: &str) -> (CheckReport, Option<Value>) {
    let (problems, value) = match extract_json(text) {
        Ok(v) => (schema.problems(&v), Some(v)),
        Err(why) => (vec![why], None),
    };
    let report = CheckReport {
        check: CheckKind::Schema,
        accepted: problems.is_empty(),
        exit_code: None,
        output: problem_lines(&problems),
    };
    (report, value)
}

fn pretty(value: Option<&Value>) -> Vec<u8> {
    let mut bytes = value
        .and_then(|v| serde_json::to_vec_pretty(v).ok())
        .unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// One check's result.
pub(super) struct Verdict {
    pub report: CheckReport,
    /// The message for the worker when rejected.
    pub feedback: Option<String>,
    /// The answer as JSON, when a schema parsed it.
    pub value: Option<Value>,
}

impl Verdict {
    fn accepted(report: CheckReport, value: Option<Value>) -> Self {
        Verdict {
            report,
            feedback: None,
            value,
        }
    }

    fn rejected(report: CheckReport, feedback: String) -> Self {
        Verdict {
            report,
            feedback: Some(feedback),
            value: None,
        }
    }
}

/// Appends the check to the worker's event log.
pub(super) fn record(
    ctx: &Ctx,
    name: &WorkerName,
    attempt: u32,
    max_attempts: u32,
    verdict: &Verdict,
) -> Result<()> {
    let payload = json!({
        "attempt": attempt,
        "maxAttempts": max_attempts,
        "check": verdict.report.check,
        "accepted": verdict.report.accepted,
        "exitCode": verdict.report.exit_code,
        "output": verdict.report.output,
        "feedback": verdict.feedback,
        "value": verdict.value,
    });
    ctx.state.append_event(name, CHECK_EVENT, &payload)
}
