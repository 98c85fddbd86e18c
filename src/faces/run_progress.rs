//! Progress on stderr. `umbel run`: one live line per step, redrawn in place, when stderr is a
//! terminal; otherwise one plain line per change (`step draft: done in 2.1s`). `-p` and `wait`
//! (`turn_line.rs`, which shares [`Mode`] and the drawing helpers here): one line redrawn in
//! place on a terminal, and nothing at all otherwise. Colour only on a terminal and never with
//! `NO_COLOR` or `TERM=dumb` (which also gets plain lines: it cannot redraw in place).
//! `UMBEL_PROGRESS=live|plain|off` overrides the choice (tests use it; so can a CI log).

use crate::adapters::host::now_ms;
use crate::core::workflow::record::{RunRecord, RunStatus, StepRecord, StepStatus};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Live,
    Plain,
    Off,
}

impl Mode {
    /// The mode for this process: the override, else live on a terminal, else plain.
    pub fn detect(var: Option<&str>, quiet: bool) -> Mode {
        Mode::choose(var, quiet, std::io::stderr().is_terminal(), None)
    }

    /// The mode for an override `var`, on a terminal or not, under `TERM`: a dumb terminal
    /// cannot move the cursor, so it gets plain lines.
    pub fn choose(var: Option<&str>, quiet: bool, terminal: bool, term: Option<&str>) -> Mode {
        match var {
            _ if quiet => Mode::Off,
            Some("live" | "always") => Mode::Live,
            Some("plain") => Mode::Plain,
            Some("off" | "never") => Mode::Off,
            _ if terminal && term != Some("dumb") => Mode::Live,
            _ => Mode::Plain,
        }
    }
}

/// The progress mode and whether colour is off, from umbel's environment: `UMBEL_PROGRESS`,
/// whether stderr is a terminal, `TERM=dumb` (plain, no colour) and `NO_COLOR` (no colour).
pub fn from_env(ctx: &crate::operations::Ctx, quiet: bool) -> (Mode, bool) {
    let term = ctx.var("TERM");
    let mode = Mode::choose(
        ctx.var("UMBEL_PROGRESS"),
        quiet,
        std::io::stderr().is_terminal(),
        term,
    );
    let no_colour = ctx.var("NO_COLOR").is_some_and(|v| !v.is_empty()) || term == Some("dumb");
    (mode, no_colour)
}

/// Draws a run's progress.
pub struct Progress {
    mode: Mode,
    colour: bool,
    /// Live mode: how many lines the last frame drew.
    drawn: usize,
    /// Plain mode: the last status printed per step.
    seen: BTreeMap<String, StepStatus>,
    width: usize,
}

impl Progress {
    pub fn new(mode: Mode, no_colour: bool) -> Self {
        Progress {
            mode,
            colour: mode == Mode::Live && !no_colour,
            drawn: 0,
            seen: BTreeMap::new(),
            width: terminal_width(),
        }
    }

    /// Shows `record` as it is now.
    pub fn update(&mut self, record: &RunRecord) {
        match self.mode {
            Mode::Off => {}
            Mode::Plain => self.plain(record),
            Mode::Live => self.live(record),
        }
    }

    fn plain(&mut self, record: &RunRecord) {
        let mut stderr = std::io::stderr().lock();
        for s in &record.steps {
            if self.seen.get(&s.id) == Some(&s.status) {
                continue;
            }
            let first = !self.seen.contains_key(&s.id);
            self.seen.insert(s.id.clone(), s.status);
            if first && s.status == StepStatus::Pending {
                continue;
            }
            let line = match s.status {
                StepStatus::Running => format!("{} ({}, {}): started", s.id, s.worker, s.provider),
                _ => describe(s, now_ms()),
            };
            let _ = writeln!(stderr, "umbel: {}: {line}", record.run_id);
        }
    }

    fn live(&mut self, record: &RunRecord) {
        let now = now_ms();
        let mut frame = String::new();
        if self.drawn > 0 {
            frame.push_str(&format!("\x1b[{}A", self.drawn));
        }
        let title = format!(
            "run {}{}: {}",
            record.run_id,
            record
                .name
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default(),
            match record.status {
                RunStatus::Running => "running",
                RunStatus::Completed => "completed",
                RunStatus::Failed => "failed",
                RunStatus::Interrupted => "interrupted",
            }
        );
        let mut lines = vec![title];
        lines.extend(
            record
                .steps
                .iter()
                .map(|s| format!("{} {}", self.symbol(s.status, now), describe(s, now))),
        );
        for line in &lines {
            frame.push_str("\x1b[2K");
            frame.push_str(&truncate(line, self.width.saturating_sub(1)));
            frame.push('\n');
        }
        self.drawn = lines.len();
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(frame.as_bytes());
        let _ = stderr.flush();
    }

    fn symbol(&self, status: StepStatus, now: u64) -> String {
        const SPINNER: [&str; 4] = ["|", "/", "-", "\\"];
        let (sym, colour) = match status {
            StepStatus::Pending => (".", "2"),
            StepStatus::Running => (SPINNER[(now / 200 % 4) as usize], "33"),
            StepStatus::Done => ("ok", "32"),
            StepStatus::Failed => ("!!", "31"),
            StepStatus::Skipped => ("--", "2"),
            StepStatus::Cancelled => ("x", "31"),
        };
        let sym = format!("{sym:>2}");
        if self.colour {
            format!("\x1b[{colour}m{sym}\x1b[0m")
        } else {
            sym
        }
    }
}

/// The columns of the terminal on stderr (100 when unknown).
pub(super) fn terminal_width() -> usize {
    rustix::termios::tcgetwinsize(std::io::stderr())
        .map(|w| usize::from(w.ws_col))
        .ok()
        .filter(|&w| w > 20)
        .unwrap_or(100)
}

/// One step for people: `draft (writer, claude): done in 2.1s`.
pub fn describe(s: &StepRecord, now: u64) -> String {
    let head = format!("{} ({}, {})", s.id, s.worker, s.provider);
    let secs = |ms: u64| format!("{:.1}s", ms as f64 / 1000.0);
    match s.status {
        StepStatus::Pending => format!("{head}: waiting"),
        StepStatus::Running => format!(
            "{head}: running {}",
            secs(now.saturating_sub(s.started_at.unwrap_or(now)))
        ),
        StepStatus::Done => format!("{head}: done in {}", secs(s.duration_ms().unwrap_or(0))),
        StepStatus::Failed | StepStatus::Skipped | StepStatus::Cancelled => format!(
            "{head}: {} — {}",
            s.status.as_str(),
            s.message.as_deref().unwrap_or("")
        ),
    }
}

/// Cuts a line to `width` visible characters (escape sequences do not count) so it never wraps.
pub(super) fn truncate(line: &str, width: usize) -> String {
    let mut out = String::new();
    let mut visible = 0;
    let mut in_escape = false;
    for c in line.chars() {
        if c == '\x1b' {
            in_escape = true;
        }
        if in_escape {
            out.push(c);
            if c.is_ascii_alphabetic() {
                in_escape = false;
            }
            continue;
        }
        if c == '\n' {
            break;
        }
        if visible == width {
            out.push('…');
            break;
        }
        out.push(c);
        visible += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_only_visible_characters() {
        assert_eq!(truncate("\x1b[32mok\x1b[0m abc", 4), "\x1b[32mok\x1b[0m a…");
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(truncate("two\nlines", 10), "two");
    }

    #[test]
    fn the_override_wins_and_quiet_wins_over_it() {
        assert_eq!(Mode::detect(Some("live"), false), Mode::Live);
        assert_eq!(Mode::detect(Some("plain"), false), Mode::Plain);
        assert_eq!(Mode::detect(Some("live"), true), Mode::Off);
        assert_eq!(Mode::choose(None, false, true, Some("xterm")), Mode::Live);
        assert_eq!(Mode::choose(None, false, true, Some("dumb")), Mode::Plain);
        assert_eq!(
            Mode::choose(Some("live"), false, true, Some("dumb")),
            Mode::Live
        );
        assert_eq!(Mode::choose(None, false, false, None), Mode::Plain);
    }
}
