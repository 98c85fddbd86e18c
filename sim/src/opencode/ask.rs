//! The question part of a turn: a `permission` end naming opencode's `question` tool asks its
//! questions in the input box's place (1.18.33, rec-out `opencode-q-2`, `opencode-q-esc`)
//! instead of a permission question; nothing asks permission for it first.
//!
//! On the bus: the tool part `pending`, then `question.asked` (umbel's plugin: `QuestionAsked`)
//! and only then the part `running` — the order 1.18.33 published them in both recordings. A
//! digit, or Up/Down and Enter, answers: `question.replied` with the labels, the part
//! `completed` with what the model is told, and the turn goes on to its reply. Esc dismisses:
//! `question.rejected`, the part's `error` "The user dismissed this question", and the turn
//! stops there and goes idle, as after a rejected permission. `opencode run` (nobody to ask)
//! and a `question: deny` rule refuse the call as any refused tool.

use std::time::Instant;

use serde_json::{Value, json};

use super::bus::{self, Call};
use super::session::{Rule, Session};
use super::turn::{Outcome, Running, Turn};
use crate::engine::ask::{Asked, Asking};
use crate::engine::timeline::{Phase, Step};
use crate::keys::Key;

/// opencode's question tool.
pub const QUESTION_TOOL: &str = "question";

/// The row after the choices: "Type your own answer".
const EXTRAS: usize = 1;

/// The tool's error when the person dismisses the question.
pub const DISMISSED: &str = "The user dismissed this question";

/// What the model is told the person answered.
pub fn answered_output(asking: &Asking) -> String {
    format!(
        "User has answered your questions: {}. You can now continue with the user's answers in mind.",
        asking.quoted()
    )
}

/// The call's title: `Asked 1 question`.
pub fn title(asking: &Asking) -> String {
    let n = asking.questions.len();
    let s = if n == 1 { "" } else { "s" };
    format!("Asked {n} question{s}")
}

/// The question in the input box's place, `cursor` told by colour alone (none here): the
/// question, the numbered choices and their descriptions, "Type your own answer", the keys.
pub fn dialog(asking: &Asking) -> Vec<String> {
    let q = asking.current();
    let mut rows = vec![
        "  ┃".to_string(),
        format!("  ┃  {}", q.question),
        "  ┃".to_string(),
    ];
    for (i, o) in q.options.iter().enumerate() {
        rows.push(format!("  ┃  {}. {}", i + 1, o.label));
        if !o.description.is_empty() {
            rows.push(format!("  ┃     {}", o.description));
        }
    }
    rows.push(format!(
        "  ┃  {}. Type your own answer",
        q.options.len() + 1
    ));
    rows.extend([
        "  ┃".to_string(),
        "  ┃  ↑↓ select  enter submit  esc dismiss".to_string(),
        "  ┃".to_string(),
    ]);
    rows
}

/// What the conversation shows of answered questions: a `┃` block (drawn at the prompts'
/// indent, [`super::screens::answer_block`]) with each question and its answer.
pub fn answered_block(asking: &Asking) -> String {
    let mut rows = vec![
        "┃".to_string(),
        "┃  # Questions".to_string(),
        "┃".to_string(),
    ];
    for (q, label) in asking.pairs() {
        rows.push(format!("┃  {}", q.question));
        rows.push(format!("┃  {label}"));
    }
    rows.push("┃".to_string());
    rows.join("\n")
}

impl Turn {
    /// The questions `call` asks the person, when it is the question tool, someone can answer
    /// (the TUI) and no rule denies it.
    pub(super) fn question_of(&self, sess: &Session, call: &Call) -> Option<Asking> {
        let allowed = sess.rule(QUESTION_TOOL, false) != Rule::Deny;
        let asks = call.tool == QUESTION_TOOL && self.interactive && allowed;
        asks.then(|| Asking::parse(&call.input)).flatten()
    }

    /// Asks: `question.asked`, the part `running`, the dialog up.
    pub(super) fn ask(
        &mut self,
        sess: &mut Session,
        call: Call,
        part: String,
        asking: Asking,
    ) -> Step<Outcome> {
        let request = sess.id("que");
        let message = self.message_id();
        let questions = call.input.get("questions").cloned().unwrap_or(Value::Null);
        let asked = bus::question_asked(&sess.who, &request, &questions, &message, &call);
        sess.publish("question.asked", asked);
        let start = sess.clock.now_ms();
        let running =
            json!({ "status": "running", "input": call.input, "time": { "start": start } });
        self.part(sess, bus::tool(&sess.who, &message, &part, &call, running));
        self.shown.push(format!("→ {}", title(&asking)));
        self.running = Some(Running {
            call,
            part,
            request,
            start,
        });
        self.asking = Some(asking);
        self.core.phase = Phase::Dialog(0);
        Some(None)
    }

    /// A key in the question dialog: moves, answers (the turn goes on) or dismisses (it ends).
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
                self.answered(sess, now);
                None
            }
            Asked::Declined => Some(self.dismissed(sess)),
        }
    }

    /// Every question is answered: `question.replied`, the part completed, the model goes on.
    fn answered(&mut self, sess: &mut Session, now: Instant) {
        let (Some(run), Some(asking)) = (self.running.take(), self.asking.take()) else {
            return;
        };
        let replied = bus::question_replied(&sess.who, &run.request, &asking.answers);
        sess.publish("question.replied", replied);
        let answers: Vec<Vec<&str>> = asking.answers.iter().map(|a| vec![a.as_str()]).collect();
        let state = json!({ "status": "completed", "input": run.call.input,
            "output": answered_output(&asking),
            "metadata": { "answers": answers, "truncated": false }, "title": title(&asking) });
        self.end_part(sess, &run, state);
        if let Some(shown) = self.shown.last_mut() {
            *shown = answered_block(&asking);
        }
        self.next_step(sess, now);
    }

    /// Esc: `question.rejected`, the part's error, and the turn stops there.
    fn dismissed(&mut self, sess: &mut Session) -> Outcome {
        self.asking = None;
        if let Some(run) = self.running.take() {
            let rejected = bus::question_rejected(&sess.who, &run.request);
            sess.publish("question.rejected", rejected);
            let state = json!({ "status": "error", "input": run.call.input, "error": DISMISSED });
            self.end_part(sess, &run, state);
        }
        self.blocked(sess)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking() -> Asking {
        let input = json!({"questions":[{"question":"Which color should the button be?",
            "header":"Color","multiple":false,
            "options":[{"label":"Red","description":"A red button"},
                       {"label":"Blue","description":"A blue button"}]}]});
        Asking::parse(&input).expect("asks")
    }

    fn trimmed(rows: &[String]) -> Vec<String> {
        rows.iter().map(|r| r.trim_end().to_string()).collect()
    }

    #[test]
    fn the_dialog_and_the_answered_block_are_the_recorded_rows() {
        let theirs = trimmed(&crate::fixtures::screen(
            "opencode-1.18.33-question-dialog.txt",
        ));
        let ours = dialog(&asking());
        assert_eq!(trimmed(&ours), theirs[theirs.len() - ours.len()..]);
        let mut a = asking();
        a.answers.push("Blue".into());
        let answered = trimmed(&crate::fixtures::screen(
            "opencode-1.18.33-question-answered.txt",
        ));
        let block: Vec<String> = answered_block(&a)
            .split('\n')
            .map(|l| format!("  {l}"))
            .collect();
        assert!(
            answered.windows(block.len()).any(|w| w == block),
            "{block:?}"
        );
        assert_eq!(
            answered_output(&a),
            "User has answered your questions: \"Which color should the button be?\"=\"Blue\". \
             You can now continue with the user's answers in mind."
        );
        assert_eq!(title(&a), "Asked 1 question");
    }
}
