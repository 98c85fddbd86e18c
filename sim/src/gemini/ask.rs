//! The question part of a turn, for Gemini CLI's `ask_user` and Qwen Code's
//! `ask_user_question`: a `permission` end naming that tool asks its questions instead of
//! showing the tool confirmation (rec-out `gemini-q-2`, `gemini-q-esc`, `qwen-q-2`,
//! `qwen-q-esc`; in yolo mode too, as a question has no answer to assume).
//!
//! The hooks until the dialog are the confirmation's ([`super::tool`]): gemini's `BeforeTool`
//! then its `ToolPermission` notice (`details` `{type: ask_user, title: Ask User}`), qwen's
//! `PermissionRequest` then `permission_prompt`. A digit, or Up/Down and Enter, answers: the
//! call "ran" and returned the answers (gemini `{"answers":{"0":"Blue"}}`, qwen `**Color**:
//! Blue`), with `AfterTool` (qwen: `PreToolUse`, `PostToolUse` and the next request's empty
//! `UserPromptSubmit`), and the turn goes on to its reply. Esc is the confirmation's refusal:
//! no hook (qwen: its `idle_prompt` notice a moment later), the chat's `Request cancelled.`.

use std::time::Instant;

use super::boxes::rounded;
use super::chat::result_display;
use super::session::Session;
use super::turn::{Phase, Turn};
use crate::engine::ask::{Asked, Asking};
use crate::keys::Key;
use crate::obj;

/// The rows after the choices: gemini's "Enter a custom value", qwen's "Type something...".
const EXTRAS: usize = 1;

/// The tool the model asks the person through (Gemini CLI's, or Qwen Code's).
pub fn question_tool() -> &'static str {
    match super::flavor::qwen() {
        true => "ask_user_question",
        false => "ask_user",
    }
}

/// What the call returns to the model, and what it displays ([`gemini_answer`], or
/// [`qwen_answer`] for both).
pub fn answer_texts(asking: &Asking) -> (String, String) {
    match super::flavor::qwen() {
        true => {
            let text = qwen_answer(asking);
            (text.clone(), text)
        }
        false => gemini_answer(asking),
    }
}

/// Gemini CLI's: the answers by question index, and `**User answered:**` with a line each.
pub fn gemini_answer(asking: &Asking) -> (String, String) {
    let answers: serde_json::Map<String, serde_json::Value> = (asking.answers.iter().enumerate())
        .map(|(i, label)| (i.to_string(), serde_json::json!(label)))
        .collect();
    let llm = serde_json::json!({ "answers": answers }).to_string();
    let shown: Vec<String> = asking
        .pairs()
        .map(|(q, label)| format!("  {} → {label}", q.header))
        .collect();
    (llm, format!("**User answered:**\n{}", shown.join("\n")))
}

/// Qwen Code's: `**<header>**: <label>` lines under a heading.
pub fn qwen_answer(asking: &Asking) -> String {
    let lines: Vec<String> = asking
        .pairs()
        .map(|(q, label)| format!("**{}**: {label}", q.header))
        .collect();
    format!(
        "User has provided the following answers:\n\n{}",
        lines.join("\n")
    )
}

/// The choices of the current question, `cursor` on a row: `mark`ed, numbered, their
/// descriptions under them at `indent`, then the CLI's `extra` row.
fn choices(
    asking: &Asking,
    cursor: usize,
    (mark, gap, indent): (&str, &str, &str),
    extra: &str,
) -> Vec<String> {
    let q = asking.current();
    let lead = |i: usize| match i == cursor {
        true => mark.to_string(),
        false => " ".repeat(mark.chars().count()),
    };
    let mut rows = Vec::new();
    for (i, o) in q.options.iter().enumerate() {
        rows.push(format!("{} {}.{gap}{}", lead(i), i + 1, o.label));
        if !o.description.is_empty() {
            rows.push(format!("{indent}{}", o.description));
        }
    }
    let n = q.options.len();
    rows.push(format!("{} {}.{gap}{extra}", lead(n), n + 1));
    rows
}

/// Gemini CLI 0.61.0's dialog: a full-width box, "Answer Questions", the question, `● 1.  Red`.
pub fn gemini_dialog(width: usize, asking: &Asking, cursor: usize) -> Vec<String> {
    let mut rows = vec![
        "Answer Questions".to_string(),
        String::new(),
        asking.current().question.clone(),
        String::new(),
    ];
    rows.extend(choices(
        asking,
        cursor,
        ("●", "  ", "      "),
        "Enter a custom value",
    ));
    rows.push(String::new());
    rows.push("Enter to select · ↑/↓ to navigate · Esc to cancel".to_string());
    let mut lines = vec![String::new(), String::new()];
    lines.extend(rounded(&rows, width, 0, 1));
    lines
}

/// The title of qwen's question call: `AskUserQuestion Ask user 1 question`.
fn qwen_title(asking: &Asking) -> String {
    let n = asking.questions.len();
    let s = if n == 1 { "" } else { "s" };
    format!("AskUserQuestion Ask user {n} question{s}")
}

/// Qwen Code 0.24.4's dialog: the call's line, the header, the question, `❯ 1. Red`, the keys,
/// and its spinner waiting for the person.
pub fn qwen_dialog(asking: &Asking, cursor: usize) -> Vec<String> {
    let q = asking.current();
    let mut lines = vec![
        format!("  ? {} ←", qwen_title(asking)),
        String::new(),
        format!("   {}", q.header),
        String::new(),
        format!("   {}", q.question),
        String::new(),
    ];
    let rows = choices(asking, cursor, ("❯", " ", "     "), "Type something...");
    lines.extend(rows.into_iter().map(|r| format!("   {r}")));
    lines.extend([String::new(), String::new()]);
    lines.push("   ↑/↓: Navigate | Enter: Select | Esc: Cancel".to_string());
    lines.extend([String::new(), String::new()]);
    lines.push("  ⠏ Waiting for user confirmation...".to_string());
    lines
}

/// What an answered question leaves on the screen ([`gemini_answered`], [`qwen_answered`]).
fn answered_lines(width: usize, asking: &Asking, display: &str) -> Vec<String> {
    match super::flavor::qwen() {
        true => qwen_answered(asking, display),
        false => gemini_answered(width, display),
    }
}

/// Gemini CLI's `✓  Ask User` box with the answers, 4 narrower than the screen.
pub fn gemini_answered(width: usize, display: &str) -> Vec<String> {
    let mut rows = vec!["✓  Ask User".to_string(), String::new()];
    rows.extend(display.replace("**", "").split('\n').map(str::to_string));
    let mut lines = vec![String::new(), String::new()];
    lines.extend(rounded(&rows, width.saturating_sub(4), 0, 1));
    lines
}

/// Qwen Code's `✓` line with what the call returned under it.
pub fn qwen_answered(asking: &Asking, display: &str) -> Vec<String> {
    let mut lines = vec![format!("  ✓ {}", qwen_title(asking))];
    lines.extend(display.split('\n').map(|l| match l {
        "" => String::new(),
        l => format!("    {l}"),
    }));
    lines
}

impl Turn {
    /// The question dialog, while one is up.
    pub(super) fn ask_lines(&self) -> Option<Vec<String>> {
        let (Phase::Dialog(cursor), Some(asking)) = (&self.core.phase, &self.asking) else {
            return None;
        };
        Some(match super::flavor::qwen() {
            true => qwen_dialog(asking, *cursor),
            false => gemini_dialog(self.width, asking, *cursor),
        })
    }

    /// A key in the question dialog: moves or answers (the turn goes on); Esc and Ctrl+C reach
    /// [`Turn::cancel`] first, which declines.
    pub(super) fn ask_key(&mut self, sess: &mut Session, key: &Key, now: Instant) {
        let Some(mut asking) = self.asking.take() else {
            return;
        };
        let asked = self.core.ask_key(&mut asking, EXTRAS, key);
        self.asking = Some(asking);
        if let Some(Asked::Answered(_)) = asked {
            self.answered(sess, now);
        }
    }

    /// Every question is answered: the call returns the answers and the model goes on.
    fn answered(&mut self, sess: &mut Session, now: Instant) {
        let (Some(t), Some(asking)) = (self.tool.take(), self.asking.take()) else {
            return;
        };
        sess.stats.accepted += 1;
        if super::flavor::qwen() {
            let payload = sess.payload_before_tool(&t.name, &t.input);
            sess.fire("BeforeTool", Some(&t.name), &payload);
        }
        let (llm, display) = answer_texts(&asking);
        let payload = sess.payload_after_tool(&t.name, &t.input, &llm, &display);
        sess.fire("AfterTool", Some(&t.name), &payload);
        self.core
            .commits
            .extend(answered_lines(self.width, &asking, &display));
        let response = obj! { "output" => llm.as_str() };
        let shown = result_display(&display);
        self.call_answered(sess, &t, "success", response, shown, llm, now);
    }

    /// What a declined question leaves on the screen (its call is recorded as cancelled,
    /// [`Turn::refuse_tool`]): gemini nothing but a blank row, qwen the call's `-` line.
    pub(super) fn declined_lines(asking: &Asking) -> Vec<String> {
        match super::flavor::qwen() {
            true => vec![format!("  - {}", qwen_title(asking))],
            false => vec![String::new()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn asking() -> Asking {
        let input = json!({"questions":[{"question":"Which color should the button be?",
            "header":"Color","type":"choice","multiSelect":false,
            "options":[{"label":"Red","description":"A red button"},
                       {"label":"Blue","description":"A blue button"}]}]});
        Asking::parse(&input).expect("asks")
    }

    fn trimmed(lines: &[String]) -> Vec<String> {
        lines.iter().map(|l| l.trim_end().to_string()).collect()
    }

    /// Whether the recorded screen `name` shows `lines` one under the other.
    fn shows(name: &str, lines: &[String]) -> bool {
        let theirs = trimmed(&crate::fixtures::screen(name));
        theirs.windows(lines.len()).any(|w| w == trimmed(lines))
    }

    fn answered() -> Asking {
        let mut a = asking();
        a.answers.push("Blue".into());
        a
    }

    #[test]
    fn gemini_draws_the_recorded_dialog_and_answers_by_index() {
        assert!(shows(
            "gemini-0.61.0-question-dialog.txt",
            &gemini_dialog(120, &asking(), 0)[2..]
        ));
        let (llm, display) = gemini_answer(&answered());
        assert_eq!(llm, r#"{"answers":{"0":"Blue"}}"#);
        assert_eq!(display, "**User answered:**\n  Color → Blue");
        let lines = gemini_answered(120, &display);
        assert!(
            shows("gemini-0.61.0-question-answered.txt", &lines[2..]),
            "{lines:?}"
        );
    }

    #[test]
    fn qwen_draws_the_recorded_dialog_and_answers_by_header() {
        assert!(shows(
            "qwen-0.24.4-question-dialog.txt",
            &qwen_dialog(&asking(), 0)
        ));
        let down = qwen_dialog(&asking(), 1);
        assert!(down.contains(&"     1. Red".to_string()), "{down:?}");
        assert!(down.contains(&"   ❯ 2. Blue".to_string()), "{down:?}");
        let text = qwen_answer(&answered());
        assert_eq!(
            text,
            "User has provided the following answers:\n\n**Color**: Blue"
        );
        let lines = qwen_answered(&answered(), &text);
        assert!(
            shows("qwen-0.24.4-question-answered.txt", &lines),
            "{lines:?}"
        );
    }
}
