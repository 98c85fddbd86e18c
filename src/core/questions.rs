//! A question a worker's model put to the user through its CLI's question tool (claude's
//! `AskUserQuestion`, gemini's `ask_user`, qwen's `ask_user_question`, opencode's `question`):
//! the questions and their choices as the tool's input gives them — all four CLIs share the
//! shape `{questions: [{question, header, options: [{label, description}], multiSelect}]}` —
//! and which choice a caller's words (`umbel answer NAME CHOICE`) pick.

use super::errors::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One question of the dialog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// The question, as the model wrote it.
    pub question: String,
    /// Its short label (the dialog's chip), when the model gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// The choices, in the dialog's order (its `1.`, `2.` …).
    pub options: Vec<Choice>,
    /// Whether more than one choice may be picked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multi_select: bool,
}

/// One choice of a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Choice {
    /// What the dialog shows, and what `answer` takes besides the choice's number.
    pub label: String,
    /// What it means, when the model said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The questions in a question tool's input (empty when it holds none in the shared shape).
pub fn questions_of(input: &Value) -> Vec<Question> {
    let Some(items) = input.get("questions").and_then(Value::as_array) else {
        return Vec::new();
    };
    items.iter().filter_map(question_of).collect()
}

fn question_of(item: &Value) -> Option<Question> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let options = item
        .get("options")
        .and_then(Value::as_array)?
        .iter()
        .filter_map(|o| {
            Some(Choice {
                label: text(o, "label")?,
                description: text(o, "description"),
            })
        })
        .collect();
    let flag = |key: &str| item.get(key).and_then(Value::as_bool).unwrap_or(false);
    Some(Question {
        question: text(item, "question")?,
        header: text(item, "header"),
        options,
        multi_select: flag("multiSelect") || flag("multiple"),
    })
}

/// Which option (0-based) `choice` picks in `question`: its number as the dialog shows it
/// (`2`), or its label, whole, in any case (`blue`). Anything else is a usage error that lists
/// the choices.
pub fn pick(question: &Question, choice: &str) -> Result<usize> {
    let wanted = choice.trim();
    let by_number = wanted
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=question.options.len()).contains(n))
        .map(|n| n - 1);
    let by_label = || {
        question
            .options
            .iter()
            .position(|o| o.label.trim().eq_ignore_ascii_case(wanted))
    };
    by_number.or_else(by_label).ok_or_else(|| {
        Error::usage(format!(
            "`{choice}` is not a choice of \"{}\": pick one of {}",
            question.question,
            numbered(question)
        ))
    })
}

/// The choices as `1 Red, 2 Blue`.
pub fn numbered(question: &Question) -> String {
    question
        .options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{} {}", i + 1, o.label))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why `questions` cannot be answered with keys: `None` when it is one question taking one
/// choice, the dialog umbel presses through.
pub fn unanswerable(questions: &[Question]) -> Option<String> {
    match questions {
        [] => Some("the CLI's hook did not say what the choices are".into()),
        [one] if one.multi_select => {
            Some("it takes several choices at once, which umbel does not press".into())
        }
        [one] if one.options.is_empty() => Some("it offers no choices".into()),
        [_] => None,
        more => Some(format!(
            "it asks {} questions in one dialog, which umbel does not press",
            more.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// claude 2.1.332's `AskUserQuestion` input, as its `PreToolUse` hook gave it.
    fn recorded() -> Value {
        json!({"questions":[{"question":"Which color should the button be?","header":"Color",
            "options":[{"label":"Red","description":"A red button"},{"label":"Blue","description":"A blue button"}],
            "multiSelect":false}]})
    }

    #[test]
    fn the_shared_shape_reads_as_questions_with_their_choices() {
        let questions = questions_of(&recorded());
        assert_eq!(questions.len(), 1);
        assert_eq!(questions[0].question, "Which color should the button be?");
        assert_eq!(questions[0].header.as_deref(), Some("Color"));
        assert_eq!(questions[0].options[1].label, "Blue");
        assert!(!questions[0].multi_select);
        assert_eq!(numbered(&questions[0]), "1 Red, 2 Blue");
    }

    #[test]
    fn opencode_spells_several_choices_multiple() {
        let input = json!({"questions":[{"question":"Which?","header":"h","multiple":true,
            "options":[{"label":"a","description":""},{"label":"b","description":""}]}]});
        assert!(questions_of(&input)[0].multi_select);
        assert!(unanswerable(&questions_of(&input)).is_some());
    }

    #[test]
    fn an_input_without_questions_has_none_and_cannot_be_pressed() {
        assert!(questions_of(&json!({"type":"ask_user","title":"Ask User"})).is_empty());
        assert!(unanswerable(&[]).is_some());
    }

    #[test]
    fn a_choice_is_its_number_or_its_label_in_any_case() {
        let question = &questions_of(&recorded())[0];
        assert_eq!(pick(question, "2").ok(), Some(1));
        assert_eq!(pick(question, "1").ok(), Some(0));
        assert_eq!(pick(question, " blue ").ok(), Some(1));
        assert_eq!(pick(question, "RED").ok(), Some(0));
    }

    #[test]
    fn a_choice_out_of_range_or_unknown_names_the_choices() {
        let question = &questions_of(&recorded())[0];
        for bad in ["0", "3", "Green", ""] {
            let err = pick(question, bad)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains("1 Red, 2 Blue"), "{bad}: {err}");
        }
    }

    #[test]
    fn one_single_choice_question_is_pressable_several_are_not() {
        let one = questions_of(&recorded());
        assert_eq!(unanswerable(&one), None);
        let two = [one[0].clone(), one[0].clone()];
        assert!(unanswerable(&two).is_some_and(|why| why.contains("2 questions")));
    }
}
