//! Drawing like codex's inline TUI: history from the top of the screen, the
//! live region (status indicator, composer, status line, footer, dialogs)
//! pinned to the bottom rows, blank rows in between.
//!
//! Every frame repaints the whole screen row by row (cursor home, each row
//! followed by erase-to-end-of-line), so a `tmux capture-pane` always sees
//! the layout of the recordings. When history and live region no longer fit,
//! the oldest history rows are scrolled off the top into the terminal's
//! scrollback with real line feeds, so `capture-pane -S -` still has them.

use crate::screen::{char_width, sanitize, width_of};

/// The screen's history and what of it has scrolled away.
#[derive(Debug, Default)]
pub struct Canvas {
    rows: Vec<String>,
    scrolled: usize,
}

/// Splits a line into rows of at most `width` columns.
pub fn hard_wrap(line: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut cur = String::new();
    let mut used = 0;
    for c in line.chars() {
        let w = char_width(c);
        if used + w > width && !cur.is_empty() {
            rows.push(std::mem::take(&mut cur));
            used = 0;
        }
        cur.push(c);
        used += w;
    }
    rows.push(cur);
    rows
}

fn paint_row(out: &mut Vec<u8>, row: &str, width: usize) {
    out.extend_from_slice(row.as_bytes());
    if width_of(row) < width {
        out.extend_from_slice(b"\x1b[K");
    }
}

impl Canvas {
    /// An empty screen.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds lines to the history (drawn with the next frame).
    pub fn commit(&mut self, lines: &[String], width: usize) {
        for line in lines {
            self.rows.extend(hard_wrap(&sanitize(line), width));
        }
    }

    /// Bytes for one frame: history at the top, `live` at the bottom of a
    /// `(columns, rows)` terminal.
    pub fn frame(&mut self, live: &[String], (width, height): (usize, usize)) -> Vec<u8> {
        let height = height.max(1);
        let mut live_rows: Vec<String> = live
            .iter()
            .flat_map(|l| hard_wrap(&sanitize(l), width))
            .collect();
        live_rows.truncate(height);
        let room = height - live_rows.len();
        let mut out = Vec::new();
        while self.rows.len() - self.scrolled > room {
            let k = (self.rows.len() - self.scrolled - room).min(height);
            out.extend_from_slice(b"\x1b[H");
            for (i, row) in self.rows[self.scrolled..self.scrolled + k]
                .iter()
                .enumerate()
            {
                paint_row(&mut out, row, width);
                if i + 1 < k {
                    out.extend_from_slice(b"\r\n");
                }
            }
            out.extend_from_slice(format!("\x1b[{height};1H").as_bytes());
            out.extend(std::iter::repeat_n(b'\n', k));
            self.scrolled += k;
        }
        out.extend_from_slice(b"\x1b[H");
        let history = &self.rows[self.scrolled..];
        for r in 0..height {
            let row = if r < history.len() {
                history[r].as_str()
            } else if r >= room {
                live_rows[r - room].as_str()
            } else {
                ""
            };
            paint_row(&mut out, row, width);
            if r + 1 < height {
                out.extend_from_slice(b"\r\n");
            }
        }
        out
    }

    /// Bytes for a screen with only `lines`, from the top (startup dialogs).
    pub fn top(&mut self, lines: &[String], (width, height): (usize, usize)) -> Vec<u8> {
        let rows: Vec<String> = lines
            .iter()
            .flat_map(|l| hard_wrap(&sanitize(l), width))
            .collect();
        let mut out = b"\x1b[H".to_vec();
        for r in 0..height.max(1) {
            paint_row(&mut out, rows.get(r).map_or("", String::as_str), width);
            if r + 1 < height {
                out.extend_from_slice(b"\r\n");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codex::testvt::emulate;

    #[test]
    fn history_on_top_live_at_the_bottom() {
        let mut c = Canvas::new();
        c.commit(&["a".into(), "b".into()], 10);
        let mut hist = Vec::new();
        let screen = emulate(
            &c.frame(&["x".into(), "y".into()], (10, 5)),
            (10, 5),
            &mut hist,
        );
        assert_eq!(screen, ["a", "b", "", "x", "y"]);
        assert!(hist.is_empty());
    }

    #[test]
    fn overflowing_history_scrolls_into_scrollback() {
        let mut c = Canvas::new();
        let mut hist = Vec::new();
        let size = (10, 4);
        c.commit(&["1".into(), "2".into()], 10);
        let s = emulate(&c.frame(&["L".into()], size), size, &mut hist);
        assert_eq!(s, ["1", "2", "", "L"]);
        c.commit(
            &[
                "3".into(),
                "4".into(),
                "5".into(),
                "6".into(),
                "7".into(),
                "8".into(),
            ],
            10,
        );
        let mut grid_bytes = Vec::new();
        grid_bytes.extend(c.frame(&["L".into()], size));
        let s = emulate(&grid_bytes, size, &mut hist);
        assert_eq!(s, ["6", "7", "8", "L"]);
        assert_eq!(hist, ["1", "2", "3", "4", "5"]);
    }

    #[test]
    fn long_lines_wrap_by_display_width() {
        assert_eq!(hard_wrap("abcdef", 4), ["abcd", "ef"]);
        assert_eq!(hard_wrap("", 4), [""]);
        assert_eq!(hard_wrap("日本語", 4), ["日本", "語"]);
    }
}
