//! An answer being streamed: complete lines go to history as they finish
//! (`• first line`, later lines indented two spaces), the unfinished tail
//! stays in the live region.

use crate::screen::split_lines;

/// Streamed text and how many of its lines are already in history.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stream {
    /// All text so far.
    pub text: String,
    committed: usize,
}

impl Stream {
    /// Appends a chunk.
    pub fn push(&mut self, chunk: &str) {
        self.text.push_str(chunk);
    }

    fn lines(&self, upto: usize) -> Vec<String> {
        let mut out = Vec::new();
        for (i, line) in split_lines(&self.text)
            .iter()
            .enumerate()
            .take(upto)
            .skip(self.committed)
        {
            if i == 0 {
                out.push(String::new());
                out.push(format!("• {line}"));
            } else {
                out.push(format!("  {line}"));
            }
        }
        out
    }

    /// Complete lines not in history yet.
    pub fn take_complete(&mut self) -> Vec<String> {
        let complete = split_lines(&self.text).len().saturating_sub(1);
        let out = self.lines(complete);
        self.committed = self.committed.max(complete);
        out
    }

    /// Everything not in history yet.
    pub fn take_rest(&mut self) -> Vec<String> {
        if self.text.is_empty() {
            return Vec::new();
        }
        let n = split_lines(&self.text).len();
        let out = self.lines(n);
        self.committed = n;
        out
    }

    /// The unfinished tail, for the live region.
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
    fn lines_move_to_history_as_they_complete() {
        let mut s = Stream::default();
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
