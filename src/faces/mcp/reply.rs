//! Tool results: the JSON the CLI's `--json` prints, as structured content, plus one short text
//! line for hosts that only show text. Failures are error results (`isError: true`) with
//! `{"error": {"code", "message"}}`; a wait that did not `stop` is an error result carrying its
//! outcome. Nothing here becomes a JSON-RPC error.

use crate::core::errors::Error;
use crate::core::meta::Meta;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::send_verdict::Sent;
use crate::core::status::WorkerStatus;
use crate::faces::error_json::ErrorReply;
use crate::operations::kill::Killed;
use crate::operations::worker::Answer;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::{Value, json};

/// The prefix rmcp gives arguments that do not deserialize into the tool's input struct.
const ARGUMENT_ERROR: &str = "failed to deserialize parameters: ";

/// A result with structured content and a text line.
pub(super) fn result(value: Value, text: String, is_error: bool) -> CallToolResult {
    let mut result = if is_error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    result.structured_content = Some(value);
    result
}

/// Serialises a verb's output; a type that cannot be encoded is umbel's bug, reported as such.
pub(super) fn encode<T: Serialize>(value: &T) -> Result<Value, CallToolResult> {
    serde_json::to_value(value).map_err(|e| {
        internal(format!(
            "cannot encode the result as JSON: {e} (this is a bug in umbel)"
        ))
    })
}

/// An error result: `{"error": {code, message, exitCode, hint, …}}` as structured content, and
/// the whole of it on one text line (hosts show the model only the text).
pub fn failed(reply: &ErrorReply) -> CallToolResult {
    result(reply.to_value(), reply.text(), true)
}

/// A failed verb.
pub fn error(err: &Error) -> CallToolResult {
    failed(&ErrorReply::of(err))
}

/// A failure inside umbel (a bug).
pub fn internal(message: String) -> CallToolResult {
    failed(&ErrorReply::internal(message))
}

/// `umbel_spawn`: the worker's meta.
pub fn spawned(meta: &Meta) -> CallToolResult {
    let text = format!(
        "spawned `{}` ({}) in {}; ready for umbel_send",
        meta.name,
        meta.provider.as_str(),
        meta.cwd.display()
    );
    match encode(meta) {
        Ok(value) => result(value, text, false),
        Err(failed) => failed,
    }
}

/// `umbel_send`: the verdict, with the position to wait from.
pub fn sent(name: &str, sent: &Sent) -> CallToolResult {
    let position = sent.position;
    let text = format!(
        "sent to `{name}` at position {position} (submitted, confirmed by {}); now umbel_wait with since = {position}",
        sent.confirmed_by
    );
    match encode(sent) {
        Ok(value) => result(value, text, false),
        Err(failed) => failed,
    }
}

/// `umbel_wait` over several workers: each ended worker's outcome; an error result unless the
/// wait's outcome (`any`'s first, `all`'s worst) is `stop`.
pub fn waited_many(waited: &crate::operations::wait::many::ManyWaited) -> CallToolResult {
    let value = match encode(waited) {
        Ok(value) => value,
        Err(failed) => return failed,
    };
    let kind = waited.outcome();
    let each: Vec<String> = waited
        .outcomes
        .iter()
        .map(|o| format!("`{}` {}", o.name, o.outcome.outcome.as_str()))
        .collect();
    let text = format!(
        "{} ({}, exit {}): {}. JSON: {value}",
        kind.as_str(),
        waited.mode,
        kind.exit_code(),
        each.join(", ")
    );
    result(value, text, kind != OutcomeKind::Stop)
}

/// `umbel_wait`: the outcome; an error result unless it is `stop`, whose one text line then
/// holds everything a host model needs: the kind and reason, the exit code, the pending tool,
/// what to do next, and the JSON.
pub fn waited(name: &str, outcome: &Outcome) -> CallToolResult {
    let kind = outcome.outcome.as_str();
    let reason = outcome
        .reason
        .as_deref()
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    let value = match encode(outcome) {
        Ok(value) => value,
        Err(failed) => return failed,
    };
    let mut text = format!(
        "{kind}{reason}: `{name}`: {} (position {})",
        outcome.message, outcome.position
    );
    let is_error = outcome.outcome != OutcomeKind::Stop;
    if is_error {
        let pending = outcome
            .pending_tool
            .as_ref()
            .map(|tool| format!(" Pending tool: {tool}."))
            .unwrap_or_default();
        text = format!(
            "{kind}{reason} (exit {}): `{name}`: {} (position {}).{pending} Hint: {}. JSON: {value}",
            outcome.outcome.exit_code(),
            outcome
                .message
                .lines()
                .collect::<Vec<_>>()
                .join("; ")
                .trim_end_matches('.'),
            outcome.position,
            outcome.outcome.hint()
        );
    }
    result(value, text, is_error)
}

/// `umbel_read`: the answer; the text line is the answer itself.
pub fn answer(answer: &Answer) -> CallToolResult {
    match encode(answer) {
        Ok(value) => result(value, answer.text.clone(), false),
        Err(failed) => failed,
    }
}

/// `umbel_status` and `umbel_ls`: `{"workers": [...]}` (structured content is an object).
pub fn workers(list: &[WorkerStatus]) -> CallToolResult {
    let text = if list.is_empty() {
        "no workers".to_string()
    } else {
        list.iter()
            .map(|s| {
                format!(
                    "{} {} {} position {}",
                    s.name,
                    s.provider,
                    s.state.as_str(),
                    s.position
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    match encode(&list) {
        Ok(value) => result(json!({ "workers": value }), text, false),
        Err(failed) => failed,
    }
}

/// `umbel_kill`: the names killed, and whether their folders went too.
pub fn killed(killed: &Killed, purged: bool) -> CallToolResult {
    let names = &killed.names;
    let mut text = if names.is_empty() {
        "no workers to kill".to_string()
    } else {
        let what = if purged { "purged" } else { "killed" };
        format!("{what} {}", names.join(", "))
    };
    if !killed.kept.is_empty() {
        let kept = killed.kept.join(", ");
        text.push_str(&format!(
            "\nkept the folder of {kept} (its worktree holds work)"
        ));
    }
    for (name, problem) in &killed.warnings {
        text.push_str(&format!("\nwarning: worker `{name}`: {problem}"));
    }
    let mut content = json!({ "killed": names, "purged": purged });
    if !killed.kept.is_empty() {
        content["kept"] = json!(killed.kept);
    }
    result(content, text, false)
}

/// What `umbel_interrupt` did: its message, and the report as structured content.
pub fn interrupted(done: &crate::operations::interrupt::Interrupted) -> CallToolResult {
    let content = serde_json::to_value(done).unwrap_or_default();
    result(content, format!("{}: {}", done.name, done.message), false)
}

/// What `umbel_mode` found or did: the mode, and the report as structured content.
pub fn mode(report: &crate::core::providers::mode::ModeReport) -> CallToolResult {
    let content = serde_json::to_value(report).unwrap_or_default();
    let text = format!(
        "{}: {} (its key cycles {})",
        report.name,
        report.mode,
        report.modes.join(" → ")
    );
    result(content, text, false)
}

/// What `umbel_budget` found or set: the summary, and the report as structured content.
pub fn budget(report: &crate::operations::budget::BudgetReport) -> CallToolResult {
    let content = serde_json::to_value(report).unwrap_or_default();
    result(content, crate::operations::budget::summary(report), false)
}

/// What `umbel_model` found or did: the model, and the report as structured content.
pub fn model(report: &crate::core::providers::model_switch::ModelReport) -> CallToolResult {
    let content = serde_json::to_value(report).unwrap_or_default();
    let text = crate::core::providers::model_switch::summary(report);
    result(content, text, false)
}

/// `umbel_park`: the workers parked now and those parked already.
pub fn parked(report: &crate::operations::park::ParkReport) -> CallToolResult {
    let mut parts = Vec::new();
    if !report.parked.is_empty() {
        parts.push(format!("parked {}", report.parked.join(", ")));
    }
    if !report.already.is_empty() {
        parts.push(format!("already parked {}", report.already.join(", ")));
    }
    if parts.is_empty() {
        parts.push("no worker to park".to_string());
    }
    let text = parts.join("; ") + "; the next umbel_send resumes each";
    match encode(report) {
        Ok(value) => result(value, text, false),
        Err(failed) => failed,
    }
}

/// `umbel_resume`: how long the CLI took to be ready again.
pub fn resumed(name: &str, resumed: &crate::operations::park::Resumed) -> CallToolResult {
    let text = format!(
        "resumed `{name}` in {} ms; ready for umbel_send",
        resumed.resume_ms
    );
    match encode(resumed) {
        Ok(value) => result(value, text, false),
        Err(failed) => failed,
    }
}

/// A screen or a log: the text itself, and `{<key>: text}` as structured content.
pub fn text(key: &str, text: String) -> CallToolResult {
    result(json!({ key: text }), text.clone(), false)
}

/// What `prune` removed and kept.
pub fn pruned(pruned: &crate::operations::inspect::Pruned) -> CallToolResult {
    let text = format!(
        "{} removed, {} kept",
        pruned.removed.len(),
        pruned.kept.len()
    );
    result(json!(pruned), text, false)
}

/// `umbel_help`: the topic's text, also as `{"text": …}` (every tool declares an output schema).
pub fn help(text: &str) -> CallToolResult {
    result(json!({ "text": text }), text.to_string(), false)
}

/// Gives rmcp's "failed to deserialize parameters" results the same `{"error": …}` shape as a
/// failed verb (code `usage`), naming the tool. Other results pass through.
pub fn argument_errors(tool: &str, response: CallToolResponse) -> CallToolResponse {
    let CallToolResponse::Complete(result) = &response else {
        return response;
    };
    if result.is_error != Some(true) || result.structured_content.is_some() {
        return response;
    }
    let Some(detail) = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .and_then(|t| t.text.strip_prefix(ARGUMENT_ERROR))
    else {
        return response;
    };
    let message = format!(
        "invalid arguments for `{tool}`: {detail} (see the tool's input schema, or umbel_help)"
    );
    CallToolResponse::Complete(error(&Error::usage(message)))
}

/// `umbel_explain`: the evidence; the text is the state and the next move.
pub fn explained(found: &crate::core::explain::Explanation) -> CallToolResult {
    match encode(found) {
        Ok(value) => result(value, crate::faces::explain::summary(found), false),
        Err(failed) => failed,
    }
}

/// What `umbel_approve`/`umbel_deny` did: its message, and the report as structured content.
pub fn answered(done: &crate::operations::approve::Answered) -> CallToolResult {
    match encode(done) {
        Ok(value) => result(value, format!("{}: {}", done.name, done.message), false),
        Err(e) => e,
    }
}

/// `umbel_approvals`: one line per pending approval, and the rows as structured content (an
/// object: MCP's structured content is one).
pub fn approvals(rows: &[crate::core::approvals::PendingApproval]) -> CallToolResult {
    let text = if rows.is_empty() {
        "no worker waits on an approval".to_string()
    } else {
        rows.iter()
            .map(crate::core::approvals::PendingApproval::describe)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let list = crate::core::approvals::ApprovalList {
        approvals: rows.to_vec(),
    };
    match encode(&list) {
        Ok(value) => result(value, text, false),
        Err(e) => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_verb_carries_its_code_and_message() {
        let r = error(&Error::NotFound { name: "w".into() });
        assert_eq!(r.is_error, Some(true));
        let v = r.structured_content.unwrap();
        assert_eq!(v["error"]["code"], "not_found");
        assert!(v["error"]["message"].as_str().unwrap().contains("`w`"));
    }

    #[test]
    fn only_a_stop_is_a_success() {
        let stop = Outcome::new(OutcomeKind::Stop, "ended", 3);
        assert_eq!(waited("w", &stop).is_error, Some(false));
        let timeout = Outcome::new(OutcomeKind::Timeout, "too slow", 3);
        let r = waited("w", &timeout);
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.structured_content.unwrap()["outcome"], "timeout");
    }

    #[test]
    fn argument_errors_get_the_error_shape() {
        let raw = CallToolResult::error(vec![ContentBlock::text(format!(
            "{ARGUMENT_ERROR}missing field `name`"
        ))]);
        let CallToolResponse::Complete(r) = argument_errors("umbel_send", raw.into()) else {
            panic!("not complete");
        };
        let v = r.structured_content.unwrap();
        assert_eq!(v["error"]["code"], "usage");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("umbel_send")
        );
    }
}
