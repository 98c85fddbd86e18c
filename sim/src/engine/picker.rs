//! A `/model` picker's numbered list as the fakes share it: rows (a name and what follows it),
//! a cursor moved by the arrows, a key that takes the row under it, Esc that leaves. Each fake
//! draws it in its CLI's own frame (`tests/data/<cli>/…-model-picker-*.txt`).

use crate::keys::Key;

/// One screen of a picker.
#[derive(Clone, Debug, PartialEq)]
pub struct Picker {
    /// Which of the fake's picker screens this is (0: the first).
    pub stage: usize,
    /// (name, what follows it), top to bottom.
    pub rows: Vec<(String, String)>,
    pub cursor: usize,
    /// The arrows wrap round at either end (gemini's lists).
    pub wraps: bool,
    /// How many rows show at once (0: all), and the first one shown.
    pub window: usize,
    pub top: usize,
    /// Rows past this one show no number (codex numbers its hotkeys 1–9).
    pub numbered: usize,
}

/// What a key did in a [`Picker`].
#[derive(Clone, Debug, PartialEq)]
pub enum Picked {
    /// Nothing (or the cursor moved).
    Nothing,
    /// The row under the cursor, taken with this key.
    Took(usize, Key),
    /// Esc: left without taking anything.
    Left,
}

impl Picker {
    /// A picker of `rows`, the cursor on `cursor`.
    pub fn new(stage: usize, rows: &[(&str, &str)], cursor: usize) -> Self {
        let rows: Vec<(String, String)> = (rows.iter())
            .map(|(n, d)| (n.to_string(), d.to_string()))
            .collect();
        let cursor = cursor.min(rows.len().saturating_sub(1));
        Picker {
            stage,
            rows,
            cursor,
            wraps: false,
            window: 0,
            top: 0,
            numbered: usize::MAX,
        }
    }

    /// The same picker, `rows` rows shown at once (scrolled to keep the cursor in view), and
    /// numbers only up to `numbered`.
    pub fn scrolling(mut self, rows: usize, numbered: usize) -> Self {
        (self.window, self.numbered) = (rows, numbered);
        self.scroll();
        self
    }

    /// Moves the window so the cursor is in it.
    fn scroll(&mut self) {
        if self.window == 0 {
            return;
        }
        if self.cursor < self.top {
            self.top = self.cursor;
        }
        if self.cursor >= self.top + self.window {
            self.top = self.cursor + 1 - self.window;
        }
    }

    /// Rows above the window, and rows below it.
    pub fn hidden(&self) -> (bool, bool) {
        let end = self.top + self.shown();
        (self.top > 0, end < self.rows.len())
    }

    fn shown(&self) -> usize {
        match self.window {
            0 => self.rows.len(),
            n => n.min(self.rows.len()),
        }
    }

    /// The same picker, its arrows wrapping round at either end.
    pub fn wrapping(mut self) -> Self {
        self.wraps = true;
        self
    }

    /// Applies `key`: an arrow moves the cursor, one of `takes` takes its row, Esc leaves.
    pub fn key(&mut self, key: &Key, takes: &[Key]) -> Picked {
        match key {
            Key::Up | Key::Down => {
                self.cursor = self.moved(key == &Key::Down);
                self.scroll();
            }
            Key::Esc => return Picked::Left,
            k if takes.contains(k) => return Picked::Took(self.cursor, k.clone()),
            _ => {}
        }
        Picked::Nothing
    }

    /// Where an arrow (down: `true`) takes the cursor.
    fn moved(&self, down: bool) -> usize {
        let last = self.rows.len().saturating_sub(1);
        match (down, self.wraps) {
            (true, true) if self.cursor == last => 0,
            (false, true) if self.cursor == 0 => last,
            (true, _) => (self.cursor + 1).min(last),
            (false, _) => self.cursor.saturating_sub(1),
        }
    }

    /// The rows as `glyph N. name   detail` lines, `glyph` before the cursor's row (spaces
    /// before the others), names padded to one column; `indent` before each.
    pub fn lines(&self, indent: &str, glyph: &str) -> Vec<String> {
        let blank = " ".repeat(glyph.chars().count());
        let width = self.rows.iter().map(|(n, _)| n.chars().count()).max();
        let width = width.unwrap_or(0) + 2;
        let row = |(i, (name, detail)): (usize, &(String, String))| {
            let mark = if i == self.cursor { glyph } else { &blank };
            let name = format!("{name:<width$}");
            let number = format!("{}. ", i + 1);
            let number = match i < self.numbered {
                true => number,
                false => " ".repeat(number.len()),
            };
            let line = format!("{indent}{mark} {number}{name}{detail}");
            line.trim_end().to_string()
        };
        let rows = self.rows.iter().enumerate().skip(self.top);
        rows.take(self.shown()).map(row).collect()
    }

    /// The name of the row under the cursor.
    pub fn name(&self, row: usize) -> &str {
        self.rows.get(row).map_or("", |(n, _)| n.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrows_move_a_key_takes_esc_leaves() {
        let mut p = Picker::new(0, &[("A", "first"), ("B", ""), ("C", "")], 0);
        assert_eq!(p.key(&Key::Up, &[Key::Enter]), Picked::Nothing);
        assert_eq!(p.cursor, 0);
        p.key(&Key::Down, &[Key::Enter]);
        p.key(&Key::Down, &[Key::Enter]);
        p.key(&Key::Down, &[Key::Enter]);
        assert_eq!(p.cursor, 2);
        let s = Key::Text("s".into());
        assert_eq!(
            p.key(&s, std::slice::from_ref(&s)),
            Picked::Took(2, s.clone())
        );
        assert_eq!(p.key(&Key::Enter, &[s]), Picked::Nothing);
        assert_eq!(p.key(&Key::Esc, &[]), Picked::Left);
        let mut round = p.clone().wrapping();
        round.key(&Key::Down, &[]);
        assert_eq!(round.cursor, 0);
        round.key(&Key::Up, &[]);
        assert_eq!(round.cursor, 2);
        let rows: Vec<(String, &str)> = (1..=11).map(|i| (format!("M{i}"), "")).collect();
        let rows: Vec<(&str, &str)> = rows.iter().map(|(n, d)| (n.as_str(), *d)).collect();
        let mut long = Picker::new(0, &rows, 0).scrolling(8, 9);
        assert_eq!(long.hidden(), (false, true));
        for _ in 0..9 {
            long.key(&Key::Down, &[]);
        }
        assert_eq!((long.cursor, long.top), (9, 2));
        let lines = long.lines("", "›");
        assert_eq!(lines.len(), 8);
        assert_eq!(lines[6], "  9. M9");
        assert_eq!(lines[7], "›     M10");
        assert_eq!(
            p.lines("  ", "❯"),
            ["    1. A  first", "    2. B", "  ❯ 3. C"]
        );
    }
}
