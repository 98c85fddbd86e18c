//! The question tools' dialog as data, shared by the fakes whose CLI has one (claude's
//! `AskUserQuestion`, gemini's `ask_user`, qwen's `ask_user_question`, opencode's `question`):
//! a scenario's `permission` end naming that tool asks its `input.questions` instead of showing
//! the tool-approval dialog.
//!
//! Every one of them, recorded (rec-out `*-q-*.md`), numbers the choices from 1, adds its own
//! "type something" row (and claude a "Chat about this" one) after them, picks a choice at once
//! on its digit or on Enter, moves with Up/Down and declines on Esc; other keys, and digits past
//! the choices, do nothing. [`Asking`] holds the questions and the answers so far, and
//! [`Core::ask_key`] applies a key to the running turn's dialog (cursor in [`Phase::Dialog`]).

use serde_json::Value;

use super::menu::Choice;
use super::timeline::{Core, Phase};
use crate::keys::Key;

/// One choice of a question.
#[derive(Clone, Debug, PartialEq)]
pub struct QuestionOption {
    /// What it says (and what the answer is).
    pub label: String,
    /// The line under it.
    pub description: String,
}

/// One question of the tool's input.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// The question.
    pub question: String,
    /// Its short title (`Color`).
    pub header: String,
    /// Its choices.
    pub options: Vec<QuestionOption>,
}

/// The questions being asked and the answers given so far (one label per question, in order).
#[derive(Clone, Debug, PartialEq)]
pub struct Asking {
    /// The questions.
    pub questions: Vec<Question>,
    /// The labels picked so far; the question asked now is the next one.
    pub answers: Vec<String>,
}

/// What a key did in the question dialog.
#[derive(Clone, Debug, PartialEq)]
pub enum Asked {
    /// Every question is answered: their labels, in order.
    Answered(Vec<String>),
    /// Esc: the person declined to answer.
    Declined,
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

impl Asking {
    /// The questions of a question tool's `input` (`{"questions":[{question, header,
    /// options:[{label, description}]}]}`); `None` when it has no question with a choice (the
    /// tool is then asked about like any other).
    pub fn parse(input: &Value) -> Option<Asking> {
        let questions: Vec<Question> = input
            .get("questions")?
            .as_array()?
            .iter()
            .map(|q| Question {
                question: text(q, "question"),
                header: text(q, "header"),
                options: (q.get("options").and_then(Value::as_array).into_iter())
                    .flatten()
                    .map(|o| QuestionOption {
                        label: text(o, "label"),
                        description: text(o, "description"),
                    })
                    .collect(),
            })
            .collect();
        let askable = !questions.is_empty() && questions.iter().all(|q| !q.options.is_empty());
        askable.then_some(Asking {
            questions,
            answers: Vec::new(),
        })
    }

    /// The question asked now.
    pub fn current(&self) -> &Question {
        let at = self
            .answers
            .len()
            .min(self.questions.len().saturating_sub(1));
        &self.questions[at]
    }

    /// The answers as claude and opencode tell the model: `"question"="label", …`.
    pub fn quoted(&self) -> String {
        let pairs: Vec<String> = self
            .pairs()
            .map(|(q, label)| format!("\"{}\"=\"{label}\"", q.question))
            .collect();
        pairs.join(", ")
    }

    /// Each question with its answer: `(question, label)`.
    pub fn pairs(&self) -> impl Iterator<Item = (&Question, &str)> {
        self.questions
            .iter()
            .zip(self.answers.iter().map(String::as_str))
    }

    /// What `key` does with the cursor at `cursor` on the current question, whose CLI draws
    /// `extras` rows after its choices (rows the cursor reaches and Enter ignores).
    pub fn key(&self, cursor: usize, extras: usize, key: &Key) -> Choice {
        let choices = self.current().options.len();
        let last = choices + extras - 1;
        match key {
            Key::Up => Choice::Move(cursor.saturating_sub(1)),
            Key::Down => Choice::Move((cursor + 1).min(last)),
            Key::Enter if cursor < choices => Choice::Pick(cursor),
            Key::Text(t) => match t.parse::<usize>() {
                Ok(n) if (1..=choices).contains(&n) => Choice::Pick(n - 1),
                _ => Choice::Nothing,
            },
            Key::Esc => Choice::Refuse,
            _ => Choice::Nothing,
        }
    }
}

impl Core {
    /// A key in the question dialog `asking` (when one is up): moves the cursor, answers the
    /// current question (the next one is asked from its first choice), or says how the dialog
    /// ended.
    pub fn ask_key(&mut self, asking: &mut Asking, extras: usize, key: &Key) -> Option<Asked> {
        let Phase::Dialog(cursor) = self.phase else {
            return None;
        };
        match asking.key(cursor, extras, key) {
            Choice::Move(c) => self.phase = Phase::Dialog(c),
            Choice::Pick(i) => {
                let label = asking.current().options[i].label.clone();
                asking.answers.push(label);
                if asking.answers.len() == asking.questions.len() {
                    return Some(Asked::Answered(asking.answers.clone()));
                }
                self.phase = Phase::Dialog(0);
            }
            Choice::Refuse => return Some(Asked::Declined),
            Choice::Nothing => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, Script};
    use serde_json::json;
    use std::time::Instant;

    fn color() -> Value {
        json!({"questions":[{"question":"Which color should the button be?","header":"Color",
            "options":[{"label":"Red","description":"A red button"},
                       {"label":"Blue","description":"A blue button"}],"multiSelect":false}]})
    }

    fn core() -> Core {
        let chosen = Script::new(Scenario::default()).select("hi");
        let mut core = Core::new(chosen, Vec::new(), Instant::now(), 0);
        core.phase = Phase::Dialog(0);
        core
    }

    #[test]
    fn the_input_gives_the_questions_and_a_question_without_choices_none() {
        let a = Asking::parse(&color()).expect("asks");
        assert_eq!(a.current().header, "Color");
        assert_eq!(a.current().options[1].label, "Blue");
        assert_eq!(a.current().options[1].description, "A blue button");
        assert_eq!(Asking::parse(&json!({"command": "ls"})), None);
        assert_eq!(Asking::parse(&json!({"questions": []})), None);
        assert_eq!(
            Asking::parse(&json!({"questions": [{"question": "Why?"}]})),
            None
        );
    }

    #[test]
    fn a_digit_picks_at_once_and_one_past_the_choices_does_nothing() {
        let a = Asking::parse(&color()).expect("asks");
        let digit = |d: &str| a.key(0, 1, &Key::Text(d.into()));
        assert_eq!(digit("2"), Choice::Pick(1));
        assert_eq!(digit("1"), Choice::Pick(0));
        assert_eq!(digit("3"), Choice::Nothing, "the type-something row");
        assert_eq!(digit("0"), Choice::Nothing);
        assert_eq!(digit("x"), Choice::Nothing);
        assert_eq!(a.key(0, 1, &Key::Esc), Choice::Refuse);
        assert_eq!(a.key(0, 1, &Key::CtrlC), Choice::Nothing);
    }

    #[test]
    fn down_and_enter_pick_but_enter_on_an_extra_row_does_nothing() {
        let a = Asking::parse(&color()).expect("asks");
        assert_eq!(a.key(0, 2, &Key::Down), Choice::Move(1));
        assert_eq!(a.key(3, 2, &Key::Down), Choice::Move(3));
        assert_eq!(a.key(1, 2, &Key::Enter), Choice::Pick(1));
        assert_eq!(a.key(2, 2, &Key::Enter), Choice::Nothing);
        assert_eq!(a.key(0, 2, &Key::Up), Choice::Move(0));
    }

    #[test]
    fn each_question_is_asked_in_turn_then_the_answers_come_back() {
        let mut two = color();
        let second = json!({"question":"Which size?","header":"Size",
            "options":[{"label":"Small","description":""},{"label":"Large","description":""}]});
        two["questions"].as_array_mut().expect("list").push(second);
        let mut a = Asking::parse(&two).expect("asks");
        let mut core = core();
        assert_eq!(core.ask_key(&mut a, 1, &Key::Down), None);
        assert_eq!(core.ask_key(&mut a, 1, &Key::Enter), None);
        assert_eq!(
            core.phase,
            Phase::Dialog(0),
            "the next question, first choice"
        );
        assert_eq!(a.current().header, "Size");
        let done = core.ask_key(&mut a, 1, &Key::Text("2".into()));
        assert_eq!(
            done,
            Some(Asked::Answered(vec!["Blue".into(), "Large".into()]))
        );
        let pairs: Vec<_> = a.pairs().map(|(q, l)| (q.header.as_str(), l)).collect();
        assert_eq!(pairs, [("Color", "Blue"), ("Size", "Large")]);
    }

    #[test]
    fn esc_declines_and_no_dialog_takes_no_key() {
        let mut a = Asking::parse(&color()).expect("asks");
        let mut core = core();
        assert_eq!(core.ask_key(&mut a, 1, &Key::Esc), Some(Asked::Declined));
        core.phase = Phase::Wedged;
        assert_eq!(core.ask_key(&mut a, 1, &Key::Text("1".into())), None);
    }
}
