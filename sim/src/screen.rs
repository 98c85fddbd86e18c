//! Drawing the way Ink-based TUIs do: history printed once, a live region redrawn.
//!
//! Finished lines ("static") are printed once and scroll into the terminal's
//! history like the real CLIs' transcript view; the live region at the bottom
//! (spinner, input box, footer, dialogs) is erased and redrawn in place on
//! every frame by moving the cursor up over it. Only plain ANSI is used:
//! `CR`, cursor up, erase-below, and a full clear when a dialog is replaced.

/// Renders frames to bytes for the terminal.
#[derive(Debug, Default)]
pub struct Screen {
    live_rows: usize,
}

/// Clear screen, clear scrollback, cursor home.
pub const CLEAR_ALL: &[u8] = b"\x1b[2J\x1b[3J\x1b[H";

impl Screen {
    /// A screen with no live region drawn yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes that wipe the whole terminal; the next frame starts at the top.
    pub fn clear(&mut self) -> Vec<u8> {
        self.live_rows = 0;
        CLEAR_ALL.to_vec()
    }

    /// Bytes that erase the live region, print `commit` lines for good, and
    /// draw `live` as the new live region, for a terminal of `(columns, rows)`.
    /// A live region taller than the terminal cannot be reached by moving the
    /// cursor up, so then the whole screen is cleared first.
    pub fn frame(
        &mut self,
        commit: &[String],
        live: &[String],
        (width, height): (usize, usize),
    ) -> Vec<u8> {
        let mut out = Vec::new();
        if self.live_rows >= height.max(1) {
            out.extend_from_slice(b"\x1b[2J\x1b[H");
        } else {
            out.extend_from_slice(b"\r");
            if self.live_rows > 1 {
                out.extend_from_slice(format!("\x1b[{}A", self.live_rows - 1).as_bytes());
            }
        }
        out.extend_from_slice(b"\x1b[J");
        for line in commit {
            out.extend_from_slice(sanitize(line).as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        let live: Vec<String> = live.iter().map(|l| sanitize(l)).collect();
        out.extend_from_slice(live.join("\r\n").as_bytes());
        self.live_rows = live.iter().map(|l| rows(l, width)).sum();
        out
    }

    /// Erases the live region and leaves the cursor at its start (used before exiting).
    pub fn erase_live(&mut self, size: (usize, usize)) -> Vec<u8> {
        self.frame(&[], &[], size)
    }
}

/// How many terminal rows `line` takes at `width` columns.
pub fn rows(line: &str, width: usize) -> usize {
    width_of(line).div_ceil(width.max(1)).max(1)
}

/// Display width of a string (see [`char_width`]).
pub fn width_of(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// Display width of one character: 0 for combining marks, 2 for wide CJK and
/// emoji ranges, 1 otherwise (box drawing, `❯`, `●`, `⎿` are 1 in tmux).
pub fn char_width(c: char) -> usize {
    let u = c as u32;
    match u {
        0x0300..=0x036f | 0x200b..=0x200f | 0xfe00..=0xfe0f => 0,
        0x1100..=0x115f
        | 0x2e80..=0x303e
        | 0x3041..=0x33ff
        | 0x3400..=0x4dbf
        | 0x4e00..=0x9fff
        | 0xa000..=0xa4cf
        | 0xac00..=0xd7a3
        | 0xf900..=0xfaff
        | 0xfe30..=0xfe4f
        | 0xff00..=0xff60
        | 0xffe0..=0xffe6
        | 0x1f300..=0x1f64f
        | 0x1f900..=0x1f9ff
        | 0x20000..=0x3fffd => 2,
        _ => 1,
    }
}

/// Makes a line safe to print: tabs become spaces, other control characters
/// (including ESC) are dropped, so user text cannot move the cursor.
pub fn sanitize(line: &str) -> String {
    let mut s = String::with_capacity(line.len());
    for c in line.chars() {
        match c {
            '\t' => s.push_str("    "),
            c if (c as u32) < 0x20 || c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) => {}
            c => s.push(c),
        }
    }
    s
}

/// Splits text into display lines at `\r\n`, `\r` or `\n`.
pub fn split_lines(text: &str) -> Vec<String> {
    text.replace("\r\n", "\n")
        .split(['\n', '\r'])
        .map(str::to_string)
        .collect()
}

/// A history block: a blank line, then `text` with `first_prefix` and `rest_prefix`.
pub fn block(text: &str, first_prefix: &str, rest_prefix: &str) -> Vec<String> {
    let mut lines = vec![String::new()];
    lines.extend(prefixed(text, first_prefix, rest_prefix));
    lines
}

/// `first_prefix` before the first line, `rest_prefix` before every other line.
pub fn prefixed(text: &str, first_prefix: &str, rest_prefix: &str) -> Vec<String> {
    split_lines(text)
        .into_iter()
        .enumerate()
        .map(|(i, l)| format!("{}{l}", if i == 0 { first_prefix } else { rest_prefix }))
        .collect()
}

/// A horizontal line of `ch` across `width` columns.
pub fn rule(ch: char, width: usize) -> String {
    std::iter::repeat_n(ch, width).collect()
}

/// `left` and `right` on one line, `right` flush with column `width`.
pub fn spread(left: &str, right: &str, width: usize) -> String {
    let used = width_of(left) + width_of(right);
    if used >= width {
        return format!("{left} {right}");
    }
    format!("{left}{}{right}", " ".repeat(width - used))
}

/// The bytes of a whole frame: every row from the top, each row's rest erased, then the rest of
/// the screen (fake-opencode's and fake-copilot's full-screen TUIs).
pub fn frame(rows: &[String]) -> Vec<u8> {
    let mut out = b"\x1b[H".to_vec();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(sanitize(row).as_bytes());
        out.extend_from_slice(b"\x1b[K");
    }
    out.extend_from_slice(b"\x1b[J");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_frame_prints_commit_then_live() {
        let mut s = Screen::new();
        let out = s.frame(&["history".into()], &["a".into(), "b".into()], (80, 24));
        assert_eq!(out, b"\r\x1b[Jhistory\r\na\r\nb");
    }

    #[test]
    fn later_frames_move_up_over_the_live_region_including_wrapped_rows() {
        let mut s = Screen::new();
        s.frame(&[], &["x".repeat(25), "y".into()], (10, 24));
        let out = s.frame(&[], &["z".into()], (10, 24));
        assert!(
            out.starts_with(b"\r\x1b[3A\x1b[J"),
            "{:?}",
            String::from_utf8_lossy(&out)
        );
        let out = s.frame(&[], &["w".into()], (10, 24));
        assert!(out.starts_with(b"\r\x1b[J"));
    }

    #[test]
    fn a_live_region_taller_than_the_terminal_forces_a_clear() {
        let mut s = Screen::new();
        let tall: Vec<String> = (0..30).map(|i| i.to_string()).collect();
        s.frame(&[], &tall, (80, 24));
        let out = s.frame(&[], &["a".into()], (80, 24));
        assert!(out.starts_with(b"\x1b[2J\x1b[H\x1b[J"));
    }

    #[test]
    fn widths_and_rows() {
        assert_eq!(width_of("❯ ● ⎿ ─"), 7);
        assert_eq!(width_of("日本"), 4);
        assert_eq!(rows("", 10), 1);
        assert_eq!(rows(&"a".repeat(10), 10), 1);
        assert_eq!(rows(&"a".repeat(11), 10), 2);
    }

    #[test]
    fn control_characters_cannot_reach_the_terminal() {
        assert_eq!(sanitize("a\x1b[2Jb\tc\u{7}"), "a[2Jb    c");
    }

    #[test]
    fn lines_split_on_any_line_break() {
        assert_eq!(split_lines("a\r\nb\rc\nd"), vec!["a", "b", "c", "d"]);
        assert_eq!(prefixed("a\nb", "● ", "  "), vec!["● a", "  b"]);
        assert_eq!(spread("ab", "c", 6), "ab   c");
        assert_eq!(rule('─', 3), "───");
    }
}
