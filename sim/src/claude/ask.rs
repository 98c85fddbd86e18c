//! The question part of a turn: a `permission` end naming `AskUserQuestion` asks its questions
//! in 2.1.332's question dialog (rec-out `claude-q-2`, `claude-q-esc`, `claude-q-down-enter`)
//! instead of the approval dialog. The hooks before it are the approval's (`PreToolUse`, then
//! `PermissionRequest` with no suggestion; [`super::tool`]); a digit, or Down/Up and Enter,
//! picks a choice: `PostToolUse` with the answers, `PostToolBatch`, the answers as the tool's
//! result, then the turn's reply and `Stop`. Esc (or Ctrl-C) declines: the transcript ends the
//! turn as a refused tool does, no hook fires, and the screen says "Declined to answer".

use std::time::Instant;

use serde_json::{Value, json};

use super::screens::NBSP;
use super::session::Session;
use super::turn::{Done, Outcome, Phase, Turn};
use crate::engine::ask::{Asked, Asking};
use crate::keys::Key;
use crate::screen::rule;

/// The tool claude's model asks the person through.
pub const QUESTION_TOOL: &str = "AskUserQuestion";

/// The rows the dialog draws after the choices: "Type something.", "Chat about this".
const EXTRAS: usize = 2;

/// The dialog's last line (2.1.332).
pub const ASK_KEYS: &str = "Enter to select · ↑/↓ to navigate · Esc to cancel";

/// What the model is told the person answered.
pub fn answered_text(asking: &Asking) -> String {
    format!(
        "Your questions have been answered: {}. You can now continue with these answers in mind.",
        asking.quoted()
    )
}

/// The tool's input with the answers (`answers` by question, `annotations`), as `PostToolUse`
/// reports both its input and its response.
pub fn with_answers(input: &Value, asking: &Asking) -> Value {
    let answers: serde_json::Map<String, Value> = asking
        .pairs()
        .map(|(q, label)| (q.question.clone(), json!(label)))
        .collect();
    let mut out = input.clone();
    if let Some(map) = out.as_object_mut() {
        map.insert("answers".into(), Value::Object(answers));
        map.insert("annotations".into(), json!({}));
    }
    out
}

/// The dialog for the current question, `cursor` on a row (the choices, then the extras):
/// a rule, the headers as tabs, the question, the numbered choices and their descriptions,
/// "Type something.", a rule, "Chat about this", the keys.
pub fn dialog(width: usize, asking: &Asking, cursor: usize) -> Vec<String> {
    let q = asking.current();
    let tabs: Vec<String> = asking
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let mark = if i < asking.answers.len() {
                '☒'
            } else {
                '☐'
            };
            format!("{mark} {}", q.header)
        })
        .collect();
    let mut lines = vec![
        rule('─', width),
        format!(" {} ", tabs.join("  ")),
        String::new(),
        q.question.clone(),
        String::new(),
    ];
    let mark = |i: usize| if i == cursor { '❯' } else { ' ' };
    for (i, o) in q.options.iter().enumerate() {
        lines.push(format!("{} {}. {}", mark(i), i + 1, o.label));
        if !o.description.is_empty() {
            lines.push(format!("     {}", o.description));
        }
    }
    let n = q.options.len();
    lines.push(format!("{} {}. Type something.", mark(n), n + 1));
    lines.push(rule('─', width));
    lines.push(format!("{} {}. Chat about this", mark(n + 1), n + 2));
    lines.push(String::new());
    lines.push(ASK_KEYS.to_string());
    lines
}

/// The block a finished question dialog leaves: `● <title>` and one `· <question> <rest>` line
/// per question under `⎿`.
fn summary(title: &str, rows: Vec<String>) -> Vec<String> {
    let mut lines = vec![String::new(), format!("● {title}")];
    for (i, row) in rows.iter().enumerate() {
        let lead = if i == 0 {
            format!("  ⎿ {NBSP}")
        } else {
            "     ".to_string()
        };
        lines.push(format!("{lead}· {row}"));
    }
    lines
}

impl Turn {
    /// The question dialog, while one is up.
    pub(super) fn ask_lines(&self, width: usize) -> Option<Vec<String>> {
        match (&self.core.phase, &self.asking) {
            (Phase::Dialog(cursor), Some(asking)) => Some(dialog(width, asking, *cursor)),
            _ => None,
        }
    }

    /// A key in the question dialog: moves, answers (the turn goes on) or declines (it ends).
    pub(super) fn ask_key(
        &mut self,
        sess: &mut Session,
        key: &Key,
        now: Instant,
    ) -> Option<Outcome> {
        let mut asking = self.asking.take()?;
        let asked = self.core.ask_key(&mut asking, EXTRAS, key);
        self.asking = Some(asking);
        match asked? {
            Asked::Answered(_) => {
                self.notice = None;
                self.answered(sess, now);
                None
            }
            Asked::Declined => {
                self.notice = None;
                Some(self.refuse(sess))
            }
        }
    }

    /// Every question is answered: the tool "ran" and returned the answers; the model goes on.
    fn answered(&mut self, sess: &mut Session, now: Instant) {
        let (Some(t), Some(asking)) = (self.tool.take(), self.asking.take()) else {
            return;
        };
        let p = &t.permission;
        let text = answered_text(&asking);
        let answers = with_answers(&p.input, &asking);
        let rows = asking
            .pairs()
            .map(|(q, label)| format!("{} → {label}", q.question))
            .collect();
        self.core
            .commits
            .extend(summary("Answered Claude's questions:", rows));
        let payload = sess.payload_post_tool_use_with(
            &self.prompt_id,
            (&p.tool, &answers),
            answers.clone(),
            &t.id,
            1,
        );
        sess.fire("PostToolUse", Some(&p.tool), &payload);
        let rec = sess.rec_tool_result_with(&self.prompt_id, &t.id, &text, answers, &t.record_uuid);
        sess.append(&rec);
        let payload =
            sess.payload_post_tool_batch(&self.prompt_id, &p.tool, &p.input, &text, &t.id);
        sess.fire("PostToolBatch", None, &payload);
        self.continue_after_tool(sess, now);
    }

    /// Esc on the questions (the refusal's records are written, [`Turn::refuse`]): the screen
    /// says what was declined, and the turn ends with no hook and no interruption line.
    pub(super) fn declined(&mut self, asking: &Asking) -> Outcome {
        let rows = asking
            .questions
            .iter()
            .map(|q| {
                let labels: Vec<&str> = q.options.iter().map(|o| o.label.as_str()).collect();
                format!("{} ({})", q.question, labels.join(" / "))
            })
            .collect();
        self.core
            .commits
            .extend(summary("Declined to answer Claude's questions:", rows));
        Outcome::Done(Done {
            interrupted: true,
            ..Done::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn color() -> Value {
        json!({"questions":[{"question":"Which color should the button be?","header":"Color",
            "options":[{"label":"Red","description":"A red button"},
                       {"label":"Blue","description":"A blue button"}],"multiSelect":false}]})
    }

    fn trimmed(lines: &[String]) -> Vec<String> {
        lines.iter().map(|l| l.trim_end().to_string()).collect()
    }

    #[test]
    fn the_dialog_is_the_recorded_one() {
        let theirs = crate::fixtures::screen("claude-2.1.332-question-dialog.txt");
        let asking = Asking::parse(&color()).expect("asks");
        let ours = dialog(120, &asking, 0);
        assert_eq!(
            trimmed(&ours),
            trimmed(&theirs[theirs.len() - ours.len()..])
        );
        let down = dialog(120, &asking, 1);
        assert!(down.contains(&"  1. Red".to_string()), "{down:?}");
        assert!(down.contains(&"❯ 2. Blue".to_string()), "{down:?}");
    }

    /// Whether the recorded screen `name` shows `lines` one under the other.
    fn shows(name: &str, lines: &[String]) -> bool {
        let theirs = trimmed(&crate::fixtures::screen(name));
        theirs.windows(lines.len()).any(|w| w == trimmed(lines))
    }

    #[test]
    fn what_an_answer_and_a_decline_leave_are_the_recorded_lines() {
        let mut asking = Asking::parse(&color()).expect("asks");
        let rows = vec!["Which color should the button be? (Red / Blue)".to_string()];
        let declined = summary("Declined to answer Claude's questions:", rows);
        assert!(shows("claude-2.1.332-question-declined.txt", &declined));
        let rows = vec!["Which color should the button be? → Blue".to_string()];
        let answered = summary("Answered Claude's questions:", rows);
        assert!(shows("claude-2.1.332-question-answered.txt", &answered));
        asking.answers.push("Blue".into());
        assert_eq!(
            answered_text(&asking),
            "Your questions have been answered: \"Which color should the button be?\"=\"Blue\". \
             You can now continue with these answers in mind."
        );
        let answers = with_answers(&color(), &asking);
        assert_eq!(
            answers["answers"],
            json!({"Which color should the button be?": "Blue"})
        );
        assert_eq!(answers["annotations"], json!({}));
        assert_eq!(answers["questions"], color()["questions"]);
    }
}
