//! Tool results of the conversation tools: `umbel_read` with turn fields, `umbel_actions`,
//! `umbel_diff` (same conventions as [`super::reply`]).

use super::reply::{answer, encode, internal, result};
use crate::operations::read::Reading;
use crate::operations::turns::{Selection, TurnActions, TurnDiff};
use rmcp::model::CallToolResult;
use serde_json::json;

/// `umbel_read`: the last answer, one turn (`turn`), or `{"turns": [...]}` (`all`, `sinceTurn`).
pub fn reading(reading: Reading) -> CallToolResult {
    match reading {
        Reading::Last(last) => answer(&last),
        Reading::Turns(Selection::One(_), list) => match list.first().map(encode) {
            Some(Ok(value)) => {
                let text = list[0].answer.clone().unwrap_or_default();
                result(value, text, false)
            }
            Some(Err(failed)) => failed,
            None => internal("no turn selected (this is a bug in umbel)".into()),
        },
        Reading::Turns(_, list) => {
            let text = format!(
                "{} turn{}",
                list.len(),
                if list.len() == 1 { "" } else { "s" }
            );
            match encode(&list) {
                Ok(value) => result(json!({ "turns": value }), text, false),
                Err(failed) => failed,
            }
        }
    }
}

/// `umbel_actions`: the turn's tool calls; the text has one `status tool input` line each.
pub fn actions(found: &TurnActions) -> CallToolResult {
    let lines: Vec<String> = found
        .actions
        .iter()
        .map(|a| format!("{} {} {}", a.status.as_str(), a.tool, a.input))
        .collect();
    let text = if lines.is_empty() {
        format!("turn {} ran no tools", found.turn)
    } else {
        lines.join("\n")
    };
    match encode(found) {
        Ok(value) => result(value, text, false),
        Err(failed) => failed,
    }
}

/// `umbel_diff` with `git`: the files and the patch; the text is the patch (or says there is
/// no change).
pub fn git_diff(found: &crate::core::worktree::GitDiff) -> CallToolResult {
    let text = if found.files.is_empty() {
        format!(
            "`{}`'s worktree has no changes against its base ({})",
            found.name, found.branch
        )
    } else {
        found.patch.clone()
    };
    match encode(found) {
        Ok(value) => result(value, text, false),
        Err(failed) => failed,
    }
}

/// `umbel_diff`: both answers and the hunks; the text is the unified diff.
pub fn diff(found: &TurnDiff) -> CallToolResult {
    let text = if found.diff.identical {
        format!("turns {} and {} have the same answer", found.from, found.to)
    } else {
        found.diff.unified.clone()
    };
    match encode(found) {
        Ok(value) => result(value, text, false),
        Err(failed) => failed,
    }
}
