//! Text from a worker made safe to print on a terminal. An answer is the model's output (and,
//! through it, whatever a file or web page it read said): escape sequences in it could retitle
//! the window, recolour or clear the screen, or hide text. On a terminal they are shown the way
//! `cat -v` shows them (`ESC` as `^[`, BEL as `^G`); in a pipe the text stays byte-exact.

use std::borrow::Cow;

/// `text` with every control character but newline and tab written visibly: C0 controls and DEL
/// in caret notation (`^[`, `^G`, `^?`), C1 controls as `<U+009B>`. A `\r` right before `\n`
/// (a CRLF line end) is kept.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| is_control(c) && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => out.push(c),
            c if !unsafe_char(c) => out.push(c),
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            c => out.push_str(&format!("<U+{:04X}>", c as u32)),
        }
    }
    Cow::Owned(out)
}

fn is_control(c: char) -> bool {
    let n = c as u32;
    n < 0x20 || (0x7f..=0x9f).contains(&n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_as_cat_v_does() {
        assert_eq!(
            escape_controls("a\u{1b}]0;t\u{7}b\u{1b}[31mc"),
            "a^[]0;t^Gb^[[31mc"
        );
        assert_eq!(escape_controls("x\u{7f}\u{9b}2J"), "x^?<U+009B>2J");
        assert_eq!(escape_controls("over\rwrite"), "over^Mwrite");
    }

    #[test]
    fn plain_text_lines_tabs_and_crlf_are_untouched() {
        let text = "line\tone\r\nline two\nünï ✓\n";
        assert_eq!(escape_controls(text), text);
        assert!(matches!(escape_controls("plain\n"), Cow::Borrowed(_)));
    }
}
