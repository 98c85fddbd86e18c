//! The prompt being typed: text plus pastes, some shown as placeholders.
//!
//! Each CLI collapses big pastes into a placeholder (`[Pasted text #1 +29
//! lines]` in Claude, `[Pasted Content 1200 chars]` in Codex, …); the rule is
//! passed in as a [`PastePolicy`]. Submitting expands every placeholder back
//! to the exact bytes that were pasted.

/// Decides whether paste number `n` (counting collapsed pastes from 1) with
/// `content` is shown as a placeholder, and returns its label if so.
pub type PastePolicy = fn(n: u32, content: &str) -> Option<String>;

/// One part of the input.
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    /// Typed (or small pasted) text, shown as is.
    Text(String),
    /// A collapsed paste: shown as `label`, submitted as `content`.
    Paste {
        /// The placeholder shown on screen.
        label: String,
        /// The pasted text, exactly as received.
        content: String,
    },
}

/// The input line's contents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputBuffer {
    segments: Vec<Segment>,
    collapsed: u32,
}

impl InputBuffer {
    /// An empty input.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends typed text.
    pub fn insert_text(&mut self, text: &str) {
        match self.segments.last_mut() {
            Some(Segment::Text(t)) => t.push_str(text),
            _ => self.segments.push(Segment::Text(text.to_string())),
        }
    }

    /// Appends a paste; `policy` decides whether it becomes a placeholder.
    /// Invalid UTF-8 is replaced with U+FFFD; valid bytes are kept exactly.
    pub fn paste(&mut self, bytes: &[u8], policy: PastePolicy) {
        let content = String::from_utf8_lossy(bytes).into_owned();
        match policy(self.collapsed + 1, &content) {
            Some(label) => {
                self.collapsed += 1;
                self.segments.push(Segment::Paste { label, content });
            }
            None => self.insert_text(&content),
        }
    }

    /// Appends a paste whose label depends on the placeholders already in the
    /// input: `label_for(existing labels, content)` returns the label, or
    /// `None` to insert the paste as text (Gemini numbers duplicates ` #2`, …).
    pub fn paste_with(
        &mut self,
        bytes: &[u8],
        label_for: impl FnOnce(&[&str], &str) -> Option<String>,
    ) {
        let content = String::from_utf8_lossy(bytes).into_owned();
        let existing: Vec<&str> = self
            .segments
            .iter()
            .filter_map(|s| match s {
                Segment::Paste { label, .. } => Some(label.as_str()),
                Segment::Text(_) => None,
            })
            .collect();
        match label_for(&existing, &content) {
            Some(label) => {
                self.collapsed += 1;
                self.segments.push(Segment::Paste { label, content });
            }
            None => self.insert_text(&content),
        }
    }

    /// Deletes the last character, or the whole last placeholder.
    pub fn backspace(&mut self) {
        match self.segments.last_mut() {
            Some(Segment::Text(t)) => {
                t.pop();
                if t.is_empty() {
                    self.segments.pop();
                }
            }
            Some(Segment::Paste { .. }) => {
                self.segments.pop();
            }
            None => {}
        }
    }

    /// Ctrl-U with the cursor at the end, as the real CLIs do it: deletes the last line's text
    /// back to (not including) the newline before it; a placeholder on that line goes too. An
    /// already empty last line stays (Backspace then joins it to the line above).
    pub fn kill_line(&mut self) {
        while let Some(segment) = self.segments.last_mut() {
            match segment {
                Segment::Paste { .. } => {
                    self.segments.pop();
                }
                Segment::Text(t) => match t.rfind('\n') {
                    Some(at) => {
                        t.truncate(at + 1);
                        return;
                    }
                    None => {
                        self.segments.pop();
                    }
                },
            }
        }
    }

    /// Empties the input (the paste counter keeps counting).
    pub fn clear(&mut self) {
        self.segments.clear();
    }

    /// True when nothing has been typed or pasted.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// True when a placeholder is showing.
    pub fn has_placeholder(&self) -> bool {
        self.segments
            .iter()
            .any(|s| matches!(s, Segment::Paste { .. }))
    }

    /// What the input line shows.
    pub fn display(&self) -> String {
        self.segments
            .iter()
            .map(|s| match s {
                Segment::Text(t) => t.as_str(),
                Segment::Paste { label, .. } => label.as_str(),
            })
            .collect()
    }

    /// What Enter submits: every placeholder expanded.
    pub fn expanded(&self) -> String {
        self.segments
            .iter()
            .map(|s| match s {
                Segment::Text(t) | Segment::Paste { content: t, .. } => t.as_str(),
            })
            .collect()
    }

    /// Returns the expanded text and empties the input.
    pub fn take(&mut self) -> String {
        let text = self.expanded();
        self.clear();
        text
    }
}

/// Counts line breaks the way a terminal shows them: `\r\n`, `\r` and `\n` each count once.
pub fn line_breaks(text: &str) -> usize {
    let b = text.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\r' if b.get(i + 1) == Some(&b'\n') => {
                n += 1;
                i += 1;
            }
            b'\r' | b'\n' => n += 1,
            _ => {}
        }
        i += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctrl_u_deletes_the_last_line_only_as_the_real_clis_do() {
        let mut input = InputBuffer::new();
        input.insert_text("first line\nsecond line of text");
        input.kill_line();
        assert_eq!(input.expanded(), "first line\n");
        input.kill_line();
        assert_eq!(input.expanded(), "first line\n", "an empty last line stays");
        input.backspace();
        input.kill_line();
        assert!(input.is_empty());
    }

    fn collapse_long(n: u32, content: &str) -> Option<String> {
        (content.len() > 5).then(|| format!("[P{n}]"))
    }

    #[test]
    fn placeholders_show_labels_but_submit_the_exact_content() {
        let mut b = InputBuffer::new();
        b.insert_text("see: ");
        b.paste(b"abcdef\r\nghi", collapse_long);
        b.paste(b"ok", collapse_long);
        b.paste(b"second long one", collapse_long);
        assert_eq!(b.display(), "see: [P1]ok[P2]");
        assert_eq!(b.expanded(), "see: abcdef\r\nghioksecond long one");
        assert!(b.has_placeholder());
        assert_eq!(b.take(), "see: abcdef\r\nghioksecond long one");
        assert!(b.is_empty());
        b.paste(b"third long one", collapse_long);
        assert_eq!(
            b.display(),
            "[P3]",
            "the counter runs for the whole session"
        );
    }

    #[test]
    fn paste_with_sees_the_labels_already_in_the_input() {
        let mut b = InputBuffer::new();
        let label = |existing: &[&str], content: &str| {
            (content.len() > 3).then(|| format!("[L{}]", existing.len() + 1))
        };
        b.paste_with(b"long one", label);
        b.paste_with(b"ab", label);
        b.paste_with(b"long two", label);
        assert_eq!(b.display(), "[L1]ab[L2]");
        assert_eq!(b.take(), "long oneablong two");
    }

    #[test]
    fn backspace_removes_a_character_or_a_whole_placeholder() {
        let mut b = InputBuffer::new();
        b.insert_text("hé");
        b.paste(b"long paste", collapse_long);
        b.backspace();
        assert_eq!(b.display(), "hé");
        b.backspace();
        assert_eq!(b.display(), "h");
        b.backspace();
        b.backspace();
        assert!(b.is_empty());
    }

    #[test]
    fn line_breaks_count_crlf_once() {
        assert_eq!(line_breaks("a\nb\r\nc\rd"), 3);
        assert_eq!(line_breaks("abc"), 0);
        assert_eq!(line_breaks("\r\n\r\n"), 2);
    }
}
