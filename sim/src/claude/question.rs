//! The question part of a turn (`end: {"question": …}`): the model asks the
//! user something through a dialog, claude fires its `elicitation_dialog`
//! Notification once the dialog shows, and no Stop comes. Esc (or Ctrl-C)
//! cancels it like an interrupt; other keys do nothing.

use super::session::Session;
use super::turn::{Phase, Turn};

/// The Notification type claude gives a question dialog.
pub const ELICITATION: &str = "elicitation_dialog";

impl Turn {
    /// The streamed text is done and the model asks `text`: show the dialog
    /// (interactive; true) or leave the turn to end normally (print mode has
    /// no one to ask; false).
    pub(super) fn ask(&mut self, sess: &Session, text: String) -> bool {
        if !sess.interactive {
            return false;
        }
        self.core.commits.extend(self.block.take_rest());
        self.question = Some(text);
        self.core.phase = Phase::Dialog(0);
        self.notify_pending = true;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::screens::question as dialog;

    #[test]
    fn the_dialog_shows_every_line_of_the_question_and_the_way_out() {
        let lines = dialog(20, "Which file?\nOr all of them?");
        assert!(lines.contains(&" Which file?".to_string()));
        assert!(lines.contains(&" Or all of them?".to_string()));
        assert_eq!(lines.last().map(String::as_str), Some(" Esc to cancel"));
        assert!(
            lines
                .iter()
                .any(|l| l.chars().count() == 20 && l.starts_with('─'))
        );
    }
}
