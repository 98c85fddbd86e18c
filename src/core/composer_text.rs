//! What the composer holds besides the prompt just pasted: text drawn before the prompt's start
//! is text that was on its way into the input line when it looked empty (a sender killed between
//! its paste and its Enter, a CLI reading its keys late), and an Enter then would submit both as
//! one turn. Pure: read from the screen rows from the input line down, for prompts short enough
//! to show whole.

/// Whether text stands before `prompt` in `rows` (the screen from the input line down):
/// `Some(true)` when the composer holds other text ahead of the prompt, `Some(false)` when the
/// prompt starts it, `None` when the whole prompt does not show there (not drawn yet, a paste
/// placeholder, a composer scrolled to its end) and nothing can be told — always for a prompt
/// that is not [`judged`]. Only letters and digits are compared: the composer's own marks
/// (`❯ > │ ┃`) and the rows a CLI wraps a prompt over do not count.
pub fn text_before_prompt(rows: &str, prompt: &str) -> Option<bool> {
    if !judged(prompt) {
        return None;
    }
    let text: String = prompt.chars().filter(|c| c.is_alphanumeric()).collect();
    let shown: String = rows.chars().filter(|c| c.is_alphanumeric()).collect();
    Some(shown.find(&text)? > 0)
}

/// Whether a prompt can be found whole on the screen: one line, at most [`JUDGED_CHARS`]
/// characters, with a letter or digit in it. Longer or multi-line prompts are shown as
/// placeholders or scrolled by the CLIs, and are not judged.
pub fn judged(prompt: &str) -> bool {
    !prompt.trim_end().contains('\n')
        && prompt.chars().count() <= JUDGED_CHARS
        && prompt.chars().any(char::is_alphanumeric)
}

/// The longest prompt judged.
const JUDGED_CHARS: usize = 400;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_ahead_of_the_prompt_is_told_from_the_composers_marks() {
        // fake-claude 2.1.332's input line, as tmux captured it with a killed send's text in.
        let glued = "❯ half of a killed sendThe real prompt\n──────\n  ? for shortcuts";
        assert_eq!(text_before_prompt(glued, "The real prompt"), Some(true));
        let alone = "❯ The real prompt\n──────\n  ? for shortcuts";
        assert_eq!(text_before_prompt(alone, "The real prompt"), Some(false));
        // Wrapped by the CLI over two rows, in a box.
        let wrapped = "│ > The real pro │\n│ mpt           │";
        assert_eq!(text_before_prompt(wrapped, "The real prompt"), Some(false));
        // A paste placeholder, or not drawn yet: the prompt does not show.
        let placeholder = "❯ [Pasted text #1 +900 lines]";
        assert_eq!(text_before_prompt(placeholder, "The real prompt"), None);
        assert_eq!(text_before_prompt("❯ half of a", "The real prompt"), None);
        // Not judged: marks only, several lines, a long text (a composer shows its end).
        assert_eq!(text_before_prompt(alone, "--- ***"), None);
        assert_eq!(text_before_prompt(alone, "The real prompt\nmore"), None);
        let long = "abcdefghij".repeat(50);
        assert_eq!(text_before_prompt(&format!("❯ xyz{long}"), &long), None);
    }
}
