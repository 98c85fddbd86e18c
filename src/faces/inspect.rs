//! How the CLI prints the conversation verbs: `read` with turn flags, `actions` and `diff`.

use super::output::{out, out_json, outln};
use crate::core::terminal_text::escape_controls;
use crate::core::turns::Turn;
use crate::operations::turns::{Selection, TurnActions, TurnDiff};
use crate::operations::worker::Answer;
use std::borrow::Cow;
use std::io::IsTerminal;

/// Plain `read`: the last finished turn's answer.
pub fn print_last(answer: &Answer, json: bool) {
    if json {
        out_json(answer);
    } else if answer.interrupted {
        // No answer on stdout: what streamed before the interrupt is not one.
        errln!(
            "umbel: {}: the turn was interrupted; it has no answer",
            answer.name
        );
        if let Some(partial) = &answer.partial_text {
            errln!("umbel: it had streamed: {}", escape_controls(partial));
        }
    } else {
        print_text(&answer.text);
    }
}

/// A worker's text on stdout: byte-exact in a pipe, control characters made visible on a
/// terminal (see `core::terminal_text`).
fn print_text(text: &str) {
    let text = for_stdout(text);
    if text.ends_with('\n') {
        out(&text);
    } else {
        outln(&text);
    }
}

fn for_stdout(text: &str) -> Cow<'_, str> {
    if std::io::stdout().is_terminal() {
        escape_controls(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// `read --turn/--all/--since-turn`: `--turn` prints the answer alone (as plain `read` does);
/// several turns get a header line each. JSON: one object for `--turn`, else an array.
pub fn print_turns(turns: &[Turn], selection: Selection, json: bool) {
    match (selection, json) {
        (Selection::One(_), true) => turns.first().map(out_json).unwrap_or(()),
        (_, true) => out_json(&turns),
        (Selection::One(_), false) => turns.first().map(print_answer).unwrap_or(()),
        (_, false) => {
            for (index, turn) in turns.iter().enumerate() {
                if index > 0 {
                    outln("");
                }
                outln(&for_stdout(&header(turn)));
                print_answer(turn);
            }
            if turns.is_empty() {
                errln!("umbel: no turns to show");
            }
        }
    }
}

fn header(turn: &Turn) -> String {
    let prompt = turn
        .prompt
        .as_deref()
        .and_then(|p| p.lines().next())
        .unwrap_or("");
    let prompt = match prompt.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &prompt[..cut]),
        None => prompt.to_string(),
    };
    let state = match (turn.ended, turn.is_error) {
        (_, true) => " [error]",
        (false, false) => " [running]",
        (true, false) => "",
    };
    format!("── turn {}{state}: {prompt}", turn.turn)
}

fn print_answer(turn: &Turn) {
    match turn.answer.as_deref() {
        Some(text) => print_text(text),
        None => errln!("umbel: turn {} has no answer yet", turn.turn),
    }
}

/// `actions`: one line per tool call, `STATUS  TOOL  INPUT`.
pub fn print_actions(found: &TurnActions, json: bool) {
    if json {
        return out_json(found);
    }
    if found.actions.is_empty() {
        errln!(
            "umbel: turn {} of `{}` ran no tools",
            found.turn,
            found.name
        );
        return;
    }
    let width = found
        .actions
        .iter()
        .map(|a| a.tool.chars().count())
        .max()
        .unwrap_or(0);
    let lines: Vec<String> = found
        .actions
        .iter()
        .map(|a| format!("{:<7}  {:<width$}  {}", a.status.as_str(), a.tool, a.input))
        .collect();
    outln(&lines.join("\n"));
}

/// `diff`: the unified diff, or a line saying the answers are the same.
pub fn print_diff(found: &TurnDiff, json: bool) {
    if json {
        out_json(found)
    } else if found.diff.identical {
        outln(&format!(
            "turns {} and {} of `{}` have the same answer",
            found.from, found.to, found.name
        ))
    } else {
        out(&found.diff.unified)
    }
}
