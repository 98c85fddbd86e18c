//! copilot's held paste: its prompt input keeps a paste out of the input line until
//! [`HOLD`] passed without more of it (`usePasteHandler`'s 200 ms timer, 1.0.82 and 1.0.102
//! alike), so that a paste the terminal split in chunks lands as one. Meanwhile the screen
//! shows nothing of it; a key that types text adds to it, Enter submits the input line with it
//! (`expandTokens` takes the held text in), and any other key draws it at once, after its own
//! effect (`processInput` flushes on a key without text). Recorded on the real 1.0.102 (issue
//! 42): a paste shows ~225 ms after it was sent, ~20 ms when End follows it.

use std::time::{Duration, Instant};

/// How long a paste is held after its last byte.
pub const HOLD: Duration = Duration::from_millis(200);

/// How a held paste reached the input line (the fake notes each in `pastes.txt` of the record
/// directory, for tests to tell a key's flush from the timer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// [`HOLD`] passed.
    Timer,
    /// A key without text came.
    Key,
    /// Enter submitted it with the input line.
    Enter,
}

impl Drawn {
    /// The word `pastes.txt` notes.
    pub fn word(self) -> &'static str {
        match self {
            Drawn::Timer => "timer",
            Drawn::Key => "key",
            Drawn::Enter => "enter",
        }
    }
}

/// The paste held, if any, and when its last part came.
#[derive(Debug, Default)]
pub struct HeldPaste {
    held: Option<(String, Instant)>,
}

impl HeldPaste {
    /// Holds `text` (after what is held already) from `now`.
    pub fn add(&mut self, text: &str, now: Instant) {
        let before = self.held.take().map(|(t, _)| t).unwrap_or_default();
        self.held = Some((before + text, now));
    }

    /// Whether something is held.
    pub fn holding(&self) -> bool {
        self.held.is_some()
    }

    /// When the held paste is drawn unless a key comes first.
    pub fn due(&self) -> Option<Instant> {
        self.held.as_ref().map(|(_, at)| *at + HOLD)
    }

    /// The held text, once [`HOLD`] passed by `now`.
    pub fn take_due(&mut self, now: Instant) -> Option<String> {
        if self.due().is_some_and(|due| now >= due) {
            return self.take();
        }
        None
    }

    /// The held text, now.
    pub fn take(&mut self) -> Option<String> {
        self.held.take().map(|(text, _)| text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paste_is_held_until_200_ms_after_its_last_part() {
        let t0 = Instant::now();
        let mut held = HeldPaste::default();
        held.add("one ", t0);
        held.add("two", t0 + Duration::from_millis(150));
        assert_eq!(held.take_due(t0 + Duration::from_millis(300)), None);
        assert_eq!(held.due(), Some(t0 + Duration::from_millis(350)));
        assert_eq!(
            held.take_due(t0 + Duration::from_millis(350)).as_deref(),
            Some("one two")
        );
        assert!(!held.holding());
    }

    #[test]
    fn taking_it_early_empties_it() {
        let mut held = HeldPaste::default();
        held.add("x", Instant::now());
        assert_eq!(held.take().as_deref(), Some("x"));
        assert_eq!(held.take(), None);
        assert_eq!(held.due(), None);
    }
}
