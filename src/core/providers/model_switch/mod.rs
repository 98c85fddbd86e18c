//! How a CLI's model is switched for its session alone, as its own `/model` does it: a
//! numbered picker walked with the arrow keys and taken with the key that keeps the choice to
//! this session (claude's and codex's `s`; gemini's Enter, its "Remember" toggle left off), or
//! a command that takes the model (copilot's `/model --session ID`). Each provider fills a
//! [`ModelSwitch`] from its recorded screens (`tests/data/<cli>/…-model-picker-*.txt`,
//! `…-model-switched.txt`); `umbel model` drives it, reading the screen before every key.

use serde::{Deserialize, Serialize};

/// A CLI's way to switch its session's model.
#[derive(Debug)]
pub enum ModelSwitch {
    /// A command typed with the model in it (`{model}`), confirmed on screen by `done`.
    Typed {
        command: &'static str,
        done: &'static str,
    },
    /// A picker opened by `open`, walked stage by stage; the last stage's key closes it.
    Picker {
        open: &'static str,
        /// Text the screen shows once `open` is typed and its Enter runs it (gemini's
        /// completion: an Enter before it is lost); `None`: the typed command is enough.
        typed: Option<&'static str>,
        stages: &'static [Stage],
        /// Text the screen shows once the switch took, next to the model's name (`None`: only
        /// the name, in the footer).
        done: Option<&'static str>,
    },
}

/// One screen of a picker.
#[derive(Debug)]
pub struct Stage {
    /// Text only this stage shows.
    pub title: &'static str,
    /// The glyph before the row the cursor is on.
    pub cursor: &'static str,
    /// Which row is taken.
    pub choose: Choose,
    /// The key that takes it, as tmux names it (`s`: this session only; `Enter`).
    pub key: &'static str,
    /// Text the stage must show before its key is pressed: the key keeps the choice to this
    /// session (claude's "s to use this session only", gemini's "Remember …: false").
    pub session_only: Option<&'static str>,
}

/// Which row of a stage is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choose {
    /// The model asked for; the switch is done after it.
    Model,
    /// The model asked for where this stage lists it (the switch is then done), else the row
    /// labelled so, which leads to the next stage (gemini's `Auto` / `Manual`).
    ModelElse(&'static str),
    /// The row the cursor is on (codex's reasoning level, left as it is).
    Cursor,
}

/// A row of a numbered picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Its name (`Sonnet`, `GPT-6.2-Astra`, `gemini-3-flash-preview`).
    pub label: String,
    /// What follows the name (`Sonnet 5.5 · Efficient for routine tasks`), maybe empty.
    pub detail: String,
    /// The cursor is on it.
    pub cursor: bool,
}

impl Stage {
    /// The rows under the stage's title on `screen` (none when the title is not there:
    /// numbered tips elsewhere are not a picker). Rows past the ninth carry no number (codex
    /// numbers only its hotkeys 1–9): a line right after them whose name starts in their
    /// column (or the next, a two-digit number's) is one too.
    pub fn rows(&self, screen: &str) -> Vec<Row> {
        let Some(at) = screen.rfind(self.title) else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        // The column names start in, once a ninth row is read: later lines may go unnumbered.
        let mut unnumbered_at: Option<usize> = None;
        for line in screen[at..].lines().skip(1) {
            if let Some((row, number, column)) = numbered(line, self.cursor) {
                unnumbered_at = (number >= 9).then_some(column);
                rows.push(row);
            } else if let Some(row) = unnumbered_at.and_then(|c| {
                // Two-digit numbers take a column more, even left out.
                unnumbered(line, c, self.cursor).or_else(|| unnumbered(line, c + 1, self.cursor))
            }) {
                rows.push(row);
            } else {
                unnumbered_at = None;
            }
        }
        rows
    }
}

/// A numbered row: the row, its number, and the column its name starts in.
fn numbered(line: &str, cursor: &str) -> Option<(Row, usize, usize)> {
    let bare = line.trim_matches(|c: char| c.is_whitespace() || c == '│');
    let (lead, number, rest) = split_number(bare)?;
    let lead = lead.trim();
    if !(lead.is_empty() || lead == cursor) {
        return None;
    }
    // `bare` ends where `line`'s text does, and `rest` where `bare` does: the name starts this
    // many bytes in.
    let before = line
        .trim_end_matches(|c: char| c.is_whitespace() || c == '│')
        .len()
        - rest.len();
    let column = line[..before].chars().count();
    Some((named(rest, lead == cursor)?, number, column))
}

/// A line whose name starts in `column`, with only spaces, box lines or the cursor before.
fn unnumbered(line: &str, column: usize, cursor: &str) -> Option<Row> {
    let head: String = line.chars().take(column).collect();
    let rest: String = line.chars().skip(column).collect();
    let lead = head.trim_matches(|c: char| c.is_whitespace() || c == '│');
    let starts = rest.chars().next().is_some_and(|c| !c.is_whitespace());
    ((lead.is_empty() || lead == cursor) && starts)
        .then(|| named(&rest, lead == cursor))
        .flatten()
}

/// `Sonnet   Sonnet 5.5 · …` → the row (a `✔` after the name dropped).
fn named(rest: &str, cursor: bool) -> Option<Row> {
    let rest = rest.trim_end_matches(|c: char| c.is_whitespace() || c == '│');
    let (label, detail) = rest.split_once("  ").unwrap_or((rest, ""));
    let label = label.trim_end_matches(['✔', ' ']).trim();
    (!label.is_empty()).then(|| Row {
        label: label.to_string(),
        detail: detail.trim().to_string(),
        cursor,
    })
}

/// `"❯ 4. Sonnet …"` → `("❯ ", 4, "Sonnet …")`: what is before the row's number, the number,
/// and what is after it.
fn split_number(line: &str) -> Option<(&str, usize, &str)> {
    let dot = line.find(". ")?;
    let digits = line[..dot]
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_digit())
        .last()?
        .0;
    let lead = &line[..digits];
    let number = line[digits..dot].parse().ok()?;
    (lead.chars().count() <= 2).then(|| (lead, number, &line[dot + 2..]))
}

/// `line` names `model` in any spelling (`gpt-6.2-astra` names `GPT-6.2-Astra`).
pub fn names(line: &str, model: &str) -> bool {
    let model = plain(model);
    !model.is_empty() && plain(line).contains(&model)
}

/// Letters and digits only, lower case: `GPT-6.1 Terra` → `gpt61terra`.
fn plain(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

impl Row {
    /// The names the row answers to: its label (without a `(note)`), and the name its detail
    /// starts with (claude's `Sonnet 5.5`).
    fn names(&self) -> Vec<String> {
        let bare = self.bare();
        let named = self.detail.split(" · ").next().unwrap_or("");
        [self.label.as_str(), bare, named]
            .into_iter()
            .map(plain)
            .filter(|n| n.len() >= 3)
            .collect()
    }

    /// Its label without a `(note)`: gemini's `Manual (gemini-3-flash-preview)` is `Manual`.
    pub fn bare(&self) -> &str {
        self.label.split(" (").next().unwrap_or(&self.label)
    }

    /// `wanted` names this row: any spelling of its label or its detail's name, or a full id
    /// ending in it (`claude-sonnet-5-5` is `Sonnet 5.5`).
    pub fn is(&self, wanted: &str) -> bool {
        let wanted = plain(wanted);
        self.names()
            .iter()
            .any(|n| *n == wanted || (n.len() >= 6 && wanted.ends_with(n.as_str())))
    }
}

/// What `umbel model` found or did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelReport {
    /// The worker.
    pub name: String,
    /// The model umbel knows it has: the one last switched to, else spawn's `--model`; `None`:
    /// the CLI's own default.
    pub model: Option<String>,
    /// The models the CLI's picker lists (empty where it takes any name on its command line).
    pub models: Vec<String>,
    /// How the CLI names the model switched to (`Sonnet 5.5`, `gpt-6.2-astra`), when switched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
    /// Keys umbel pressed (0: nothing was switched).
    pub pressed: usize,
}

/// One line for people: the model, what the picker offers, what was switched.
pub fn summary(report: &ModelReport) -> String {
    let model = report.model.as_deref().unwrap_or("the CLI's default");
    let mut line = format!("{}: {model}", report.name);
    if let Some(shown) = &report.shown {
        line.push_str(&format!(" (switched: {shown}, this session only)"));
    }
    if !report.models.is_empty() {
        line.push_str(&format!(
            " · its /model offers {}",
            report.models.join(", ")
        ));
    }
    line
}

#[cfg(test)]
mod tests;
