//! A text answer being streamed onto the screen: finished lines are
//! committed to history as they complete (`<bullet> first line`, later lines
//! indented two spaces), the unfinished tail stays in the live region.
//!
//! The bullet is the provider's: fake-claude's `●` ([`crate::claude::turn::Block`]),
//! fake-codex's `•` ([`crate::codex::turn::Stream`]).

use crate::screen::split_lines;

/// Streamed text and how much of it is already on screen for good; `BULLET`
/// marks its first line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stream<const BULLET: char> {
    /// All text so far.
    pub text: String,
    committed: usize,
}

impl<const BULLET: char> Stream<BULLET> {
    /// Appends a streamed chunk.
    pub fn push(&mut self, chunk: &str) {
        self.text.push_str(chunk);
    }

    /// True when nothing was streamed.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    fn lines(&self, upto: usize) -> Vec<String> {
        let all = split_lines(&self.text);
        let mut out = Vec::new();
        for (i, line) in all.iter().enumerate().take(upto).skip(self.committed) {
            if i == 0 {
                out.push(String::new());
                out.push(format!("{BULLET} {line}"));
            } else {
                out.push(format!("  {line}"));
            }
        }
        out
    }

    /// Lines that are complete (a line break followed them) and not committed yet.
    pub fn take_complete(&mut self) -> Vec<String> {
        let complete = split_lines(&self.text).len().saturating_sub(1);
        let out = self.lines(complete);
        self.committed = self.committed.max(complete);
        out
    }

    /// Everything not committed yet, including the unfinished last line.
    pub fn take_rest(&mut self) -> Vec<String> {
        if self.text.is_empty() {
            return Vec::new();
        }
        let n = split_lines(&self.text).len();
        let out = self.lines(n);
        self.committed = n;
        out
    }

    /// The uncommitted tail, for the live region.
    pub fn live(&self) -> Vec<String> {
        if self.text.is_empty() {
            return Vec::new();
        }
        self.lines(usize::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_lines_move_to_history_and_the_tail_stays_live() {
        let mut b = Stream::<'●'>::default();
        b.push("Hello ");
        assert!(b.take_complete().is_empty());
        assert_eq!(b.live(), vec!["", "● Hello "]);
        b.push("world\nsecond");
        assert_eq!(b.take_complete(), vec!["", "● Hello world"]);
        assert_eq!(b.live(), vec!["  second"]);
        b.push(" line");
        assert_eq!(b.take_rest(), vec!["  second line"]);
        assert!(b.live().is_empty());
    }

    #[test]
    fn lines_move_to_history_as_they_complete() {
        let mut s = Stream::<'•'>::default();
        s.push("Hello ");
        assert!(s.take_complete().is_empty());
        assert_eq!(s.live(), ["", "• Hello "]);
        s.push("world\nnext");
        assert_eq!(s.take_complete(), ["", "• Hello world"]);
        assert_eq!(s.live(), ["  next"]);
        assert_eq!(s.take_rest(), ["  next"]);
        assert!(s.take_rest().is_empty() || s.live().is_empty());
    }
}
