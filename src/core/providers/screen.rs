//! What the CLIs' screens share: dialogs with a highlighted option and numbered choices, the
//! input box ([`Composer`]), folder-trust dialogs, and the user's files read for them.

use super::*;

/// The content of the file named `file` among the files read for a check, if it exists.
pub fn file_text<'a>(files: &'a [(PathBuf, String)], file: &str) -> Option<(&'a Path, &'a str)> {
    files
        .iter()
        .find(|(path, _)| path.file_name().is_some_and(|n| n == file))
        .map(|(path, text)| (path.as_path(), text.as_str()))
}

/// A Gemini CLI-style folder trust dialog (gemini, qwen) under `question`, answered "1. Trust
/// folder" (the cursor `mark` moved there first). After trusting, the CLI restarts itself and the
/// old dialog can stay visible above the new screen: only a dialog with nothing drawn below it
/// is current.
pub fn folder_trust(
    lines: &[&str],
    question: &str,
    mark: char,
    composer: &Composer,
) -> Option<StartupScreen> {
    let at = lines.iter().rposition(|l| l.starts_with(question))?;
    let superseded = lines[at..]
        .iter()
        .any(|l| l.contains("is restarting") || composer.starts(l));
    let on = highlighted(lines, mark, "1. Trust folder");
    (!superseded).then(|| StartupScreen::step_to("folder trust", on, &["Up"]))
}

/// Whether a dialog option starting with `text` is the highlighted one: its line begins with
/// the CLI's cursor `mark` (claude `❯`, codex `›`, gemini `●`, qwen `›`). Lines are trimmed.
pub fn highlighted(lines: &[&str], mark: char, text: &str) -> bool {
    lines.iter().any(|l| {
        l.strip_prefix(mark)
            .is_some_and(|rest| rest.trim_start().starts_with(text))
    })
}

/// The key that moves a dialog's cursor `mark` one step toward the option whose text starts with
/// `option` (numbered `N. text` or not), or `Enter` once the cursor is on it: found by where the
/// option stands against the cursor, so it holds whatever order a release draws the options in.
/// `None` when the screen shows no cursor or no such option. Lines are trimmed.
pub fn toward_option(lines: &[&str], mark: char, option: &str) -> Option<&'static [&'static str]> {
    let text = |line: &str| {
        let line = line.strip_prefix(mark).unwrap_or(line).trim_start();
        let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match line[digits..].strip_prefix(". ") {
            Some(rest) if digits > 0 => rest.to_string(),
            _ => line.to_string(),
        }
    };
    let cursor = lines.iter().position(|l| l.starts_with(mark))?;
    let wanted = lines.iter().position(|l| text(l).starts_with(option))?;
    Some(match wanted.cmp(&cursor) {
        std::cmp::Ordering::Equal => &["Enter"],
        std::cmp::Ordering::Greater => &["Down"],
        std::cmp::Ordering::Less => &["Up"],
    })
}

/// The question of a dialog that shows a highlighted option: an indented line (a prompt echoed
/// in the conversation starts at column 0) of `mark`, a space and text. The question is the first
/// non-empty line after the last rule above the option, or the option itself. `screen` is the
/// raw screen; `None` when no such dialog is on it.
pub fn dialog_question(screen: &str, mark: char) -> Option<String> {
    let raw: Vec<&str> = screen.lines().collect();
    let option = raw.iter().rposition(|l| {
        l.starts_with(char::is_whitespace)
            && l.trim_start()
                .strip_prefix(mark)
                .is_some_and(|rest| rest.starts_with(' ') && !rest.trim().is_empty())
    })?;
    let lines: Vec<&str> = raw.iter().map(|l| l.trim()).collect();
    let rule = lines[..option]
        .iter()
        .rposition(|l| !l.is_empty() && l.chars().all(|c| c == '─'))
        .map_or(0, |at| at + 1);
    let question = lines[rule..option]
        .iter()
        .find(|l| !l.is_empty())
        .unwrap_or(&lines[option]);
    Some((*question).to_string())
}

/// A numbered choice under the CLI's cursor `mark` (codex `›`, gemini `●`) that no rule of the
/// provider knows: a marked line `N. text` beside another numbered line, with nothing the
/// composer draws below it (codex's composer and prompt echoes start with the same mark). Its
/// question: the nearest line above holding a `?` (up to it), else the nearest text above.
/// `lines` are trimmed of white space and frames; the marked line's index and the question, or
/// `None` when no such choice is on screen.
pub fn numbered_choice(lines: &[&str], mark: char, composer: &Composer) -> Option<(usize, String)> {
    fn marked(line: &str, mark: char) -> Option<&str> {
        line.strip_prefix(mark).map(str::trim_start)
    }
    let at = lines
        .iter()
        .rposition(|l| marked(l, mark).is_some_and(numbered))?;
    let beside = [at.checked_sub(1), Some(at + 1)]
        .into_iter()
        .flatten()
        .filter_map(|i| lines.get(i))
        .any(|l| numbered(l));
    let composer_below = lines[at + 1..]
        .iter()
        .any(|l| composer.starts(l) && marked(l, mark).is_none_or(|rest| !numbered(rest)));
    if !beside || composer_below {
        return None;
    }
    // Above the choice, its other options left out (the cursor may be on option 2).
    let mut above = lines[..at]
        .iter()
        .rev()
        .take(QUESTION_REACH)
        .filter(|l| !l.is_empty() && !numbered(l));
    let question = above
        .clone()
        .find_map(|l| l.find('?').filter(|&end| end > 0).map(|end| &l[..=end]))
        .or_else(|| above.next().copied())
        .unwrap_or(lines[at]);
    Some((at, question.to_string()))
}

/// Whether `line` is an option of a numbered choice: `N. text`.
pub fn numbered(line: &str) -> bool {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && line[digits..].starts_with(". ")
}

/// A box-less input line drawn below the conversation (codex `›`, gemini `>`, or `*` in gemini's
/// yolo mode): the last line that starts with one of `marks` is the composer (prompt echoes above
/// it start with the same mark); it shows `placeholder` when empty, and `busy` appears on screen
/// while a turn runs. The frame around it (`───`, or `▄▄▄`/`▀▀▀` in true colour) is never read.
/// `pasting`, where the CLI has one, shows under it while a paste is still being read in.
pub struct Composer {
    pub marks: &'static [char],
    pub placeholder: &'static str,
    pub busy: &'static str,
    pub pasting: Option<&'static str>,
}

impl Composer {
    fn line<'a>(&self, lines: &[&'a str]) -> Option<&'a str> {
        lines.iter().rev().find(|l| self.starts(l)).copied()
    }

    /// Whether `line` (trimmed) starts with one of the composer's marks.
    pub fn starts(&self, line: &str) -> bool {
        line.starts_with(self.marks)
    }

    fn empty(&self, line: &str) -> bool {
        line.trim_start_matches(self.marks).trim() == self.placeholder
    }

    /// The empty composer with no turn running: the CLI waits for a prompt.
    pub fn idle(&self, screen: &str, lines: &[&str]) -> bool {
        self.line(lines).is_some_and(|l| self.empty(l)) && !screen.contains(self.busy)
    }

    /// What the startup screen is once no dialog matched: idle, or something else.
    pub fn idle_or_other(&self, screen: &str, lines: &[&str]) -> StartupScreen {
        if self.idle(screen, lines) {
            StartupScreen::Idle
        } else {
            StartupScreen::Other
        }
    }

    /// The composer's row on `screen` (from 0) and its text, trimmed.
    pub fn row(&self, screen: &str) -> Option<(usize, String)> {
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        let line = self.line(&lines)?;
        let at = lines.iter().rposition(|l| std::ptr::eq(*l, line))?;
        Some((at, line.to_string()))
    }

    /// The composer holds unsubmitted text (typed, pasted or a paste placeholder).
    pub fn pending(&self, screen: &str) -> bool {
        let lines: Vec<&str> = screen.lines().map(str::trim).collect();
        self.line(&lines).is_some_and(|l| !self.empty(l))
    }

    /// The screen from the input line (the last line starting with a mark) to its end.
    pub fn area<'a>(&self, screen: &'a str) -> Option<&'a str> {
        let mut at = None;
        let mut offset = 0;
        for line in screen.split_inclusive('\n') {
            if self.starts(line.trim()) {
                at = Some(offset);
            }
            offset += line.len();
        }
        at.map(|at| &screen[at..])
    }
}
