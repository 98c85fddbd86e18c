//! Which dialog an answer (`approve`, `deny`, `answer`) goes to — a tool's approval or the
//! model's question — whether the answer fits it, the keys it takes, how the screen shows it,
//! and what the CLI leaves when a refusal ends the turn.

use super::worker::Worker;
use crate::core::approvals::Asked;
use crate::core::errors::{Error, Result};
use crate::core::providers::approval::{Answer, ApprovalKeys, Refusal};
use crate::core::providers::question::QuestionDialog;
use crate::core::questions;

/// The dialog an answer goes to.
pub enum Dialog {
    /// A tool's approval.
    Approval(&'static ApprovalKeys),
    /// The model's question.
    Question(&'static QuestionDialog),
}

impl Dialog {
    /// The dialog `asked` shows, if `answer` fits it: an approval takes approve and deny, a
    /// question a choice or a decline (deny), where umbel knows the CLI's question dialog.
    pub fn of(worker: &Worker, asked: &Asked, answer: Answer) -> Result<Dialog> {
        let name = worker.name.to_string();
        let provider = worker.provider();
        let refuse = |detail: String| Err(Error::NotAsking { name, detail });
        match (asked.reason, answer) {
            ("permission", Answer::Choose) => refuse(format!(
                "it waits on a tool's approval, not a question: `umbel approve {0}` or `umbel deny {0}`",
                worker.name
            )),
            ("permission", _) => Ok(Dialog::Approval(provider.approval())),
            ("question", Answer::Choose | Answer::Deny) => {
                let why = match provider.question() {
                    None => Some("its CLI's question dialog is not one umbel presses".to_string()),
                    Some(_) if answer == Answer::Deny => None,
                    Some(_) => questions::unanswerable(&asked.questions()),
                };
                match (provider.question(), why) {
                    (Some(dialog), None) => Ok(Dialog::Question(dialog)),
                    (_, why) => refuse(format!(
                        "it asks a question umbel cannot answer with keys ({}): `umbel attach {}` to answer it",
                        why.unwrap_or_default(),
                        worker.name
                    )),
                }
            }
            ("question", _) => refuse(format!(
                "it asks a question, not a tool's approval: `umbel answer {0} CHOICE` picks a choice, `umbel deny {0}` declines it",
                worker.name
            )),
            (reason, _) => refuse(format!(
                "it waits for {reason}: `umbel attach {}` to answer it",
                worker.name
            )),
        }
    }

    /// The keys for `request`, and the choice's label when it picks one. A choice that is not
    /// one of the question's is a usage error listing them.
    pub fn keys(
        &self,
        asked: &Asked,
        answer: Answer,
        choice: Option<&str>,
    ) -> Result<(Vec<String>, Option<String>)> {
        let owned = |keys: &[&str]| keys.iter().map(|k| k.to_string()).collect();
        let dialog = match self {
            Dialog::Approval(keys) => return Ok((owned(keys.keys(answer)), None)),
            Dialog::Question(dialog) if answer == Answer::Deny => {
                return Ok((owned(dialog.decline), None));
            }
            Dialog::Question(dialog) => dialog,
        };
        let asked_questions = asked.questions();
        let Some(question) = asked_questions.first() else {
            return Err(Error::usage("the question offers no choices"));
        };
        let index = questions::pick(question, choice.unwrap_or_default())?;
        let label = question.options[index].label.clone();
        Ok((vec![dialog.pick(index)], Some(label)))
    }

    /// Whether `screen` shows the dialog.
    pub fn shown_on(&self, screen: &str) -> bool {
        match self {
            Dialog::Approval(keys) => keys.shown_on(screen),
            Dialog::Question(dialog) => dialog.shown_on(screen),
        }
    }

    /// The texts that prove the dialog is up.
    pub fn shown(&self) -> &'static [&'static str] {
        match self {
            Dialog::Approval(keys) => keys.shown,
            Dialog::Question(dialog) => dialog.shown,
        }
    }

    /// The dialog in words.
    pub fn what(&self) -> &'static str {
        match self {
            Dialog::Approval(_) => "approval dialog",
            Dialog::Question(_) => "question dialog",
        }
    }

    /// What the CLI leaves behind when a refusal (a decline) ends the turn.
    pub fn refusal(&self) -> Refusal {
        match self {
            Dialog::Approval(keys) => keys.refusal,
            Dialog::Question(dialog) => dialog.declined,
        }
    }
}
