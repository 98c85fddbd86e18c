//! Progress on stderr. `umbel run`: one live line per step, redrawn in place, when stderr is a
//! terminal; otherwise one plain line per change (`step draft: done in 2.1s`). `-p` and `wait`
//! ([`TurnLine`]): one line (elapsed, phase) redrawn in place on a terminal, and nothing at all
//! otherwise. Colour only on a terminal and never with `NO_COLOR`.
//! `UMBEL_PROGRESS=live|plain|off` overrides the choice (tests use it; so can a CI log).

use crate::core::turn_progress::{TurnPhase, TurnProgress};
use crate::core::workflow::record::{RunRecord, RunStatus, StepRecord, StepStatus};
use crate::operations::worker::now_ms;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

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
        match var {
            _ if quiet => Mode::Off,
            Some("live" | "always") => Mode::Live,
            Some("plain") => Mode::Plain,
            Some("off" | "never") => Mode::Off,
            _ if std::io::stderr().is_terminal() => Mode::Live,
            _ => Mode::Plain,
        }
    }
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
fn terminal_width() -> usize {
    rustix::termios::tcgetwinsize(std::io::stderr())
        .map(|w| usize::from(w.ws_col))
        .ok()
        .filter(|&w| w > 20)
        .unwrap_or(100)
}

/// The progress line of one `-p` or `wait` turn: drawn only in live mode, by a small thread
/// that redraws it in place every tenth of a second (so the clock moves even while a verb
/// blocks), and erased when the turn is over ([`TurnLine::clear`], or drop).
pub struct TurnLine {
    shared: Arc<Mutex<Shown>>,
    drawer: Option<std::thread::JoinHandle<()>>,
}

/// What the drawing thread shows.
struct Shown {
    progress: Option<TurnProgress>,
    stop: bool,
}

/// How often the line is redrawn.
const REDRAW: std::time::Duration = std::time::Duration::from_millis(100);

impl TurnLine {
    /// A line about `who` (the worker, or the provider while `-p` spawns one).
    pub fn new(mode: Mode, no_colour: bool, who: &str) -> Self {
        let shared = Arc::new(Mutex::new(Shown {
            progress: None,
            stop: false,
        }));
        let drawer = (mode == Mode::Live).then(|| {
            let shared = Arc::clone(&shared);
            let (who, colour, width) = (who.to_string(), !no_colour, terminal_width());
            let started = std::time::Instant::now();
            std::thread::spawn(move || draw_until_stopped(&shared, &who, colour, width, started))
        });
        TurnLine { shared, drawer }
    }

    /// Whether anything is drawn (callers skip gathering progress otherwise).
    pub fn is_live(&self) -> bool {
        self.drawer.is_some()
    }

    /// Shows `progress` from now on.
    pub fn show(&self, progress: &TurnProgress) {
        if let Ok(mut shown) = self.shared.lock() {
            shown.progress = Some(progress.clone());
        }
    }

    /// Shows `phase` (no token count) from now on.
    pub fn show_phase(&self, phase: TurnPhase) {
        self.show(&phase.into());
    }

    /// Stops drawing and erases the line, so what follows starts on a clean one.
    pub fn clear(&mut self) {
        if let Ok(mut shown) = self.shared.lock() {
            shown.stop = true;
        }
        if let Some(drawer) = self.drawer.take() {
            // Wake it now rather than at its next redraw.
            drawer.thread().unpark();
            let _ = drawer.join();
        }
    }
}

impl Drop for TurnLine {
    fn drop(&mut self) {
        self.clear();
    }
}

fn draw_until_stopped(
    shared: &Mutex<Shown>,
    who: &str,
    colour: bool,
    width: usize,
    started: std::time::Instant,
) {
    let mut drawn = false;
    loop {
        let (progress, stop) = match shared.lock() {
            Ok(shown) => (shown.progress.clone(), shown.stop),
            Err(_) => (None, true),
        };
        let mut stderr = std::io::stderr().lock();
        if stop {
            if drawn {
                let _ = stderr.write_all(b"\r\x1b[2K");
                let _ = stderr.flush();
            }
            return;
        }
        if let Some(progress) = progress {
            let elapsed = started.elapsed().as_millis() as u64;
            let line = turn_line(who, &progress, elapsed, now_ms(), colour);
            let frame = format!("\r\x1b[2K{}", truncate(&line, width.saturating_sub(1)));
            let _ = stderr.write_all(frame.as_bytes());
            let _ = stderr.flush();
            drawn = true;
        }
        drop(stderr);
        std::thread::park_timeout(REDRAW);
    }
}

/// The line for `-p` and `wait` in this environment: `UMBEL_PROGRESS` and `NO_COLOR` as umbel
/// saw them.
pub fn turn_line_for(ctx: &crate::operations::Ctx, who: &str) -> TurnLine {
    TurnLine::new(
        Mode::detect(ctx.var("UMBEL_PROGRESS"), false),
        ctx.var("NO_COLOR").is_some_and(|v| !v.is_empty()),
        who,
    )
}

/// `| w1: tool Bash 12.3s, 42 tokens` (spinner and phase coloured when `colour`; ASCII but for
/// the name).
pub fn turn_line(
    who: &str,
    progress: &TurnProgress,
    elapsed_ms: u64,
    now: u64,
    colour: bool,
) -> String {
    let phase = &progress.phase;
    const SPINNER: [&str; 4] = ["|", "/", "-", "\\"];
    let spin = SPINNER[(now / 200 % 4) as usize];
    let label = phase.label();
    let text = if colour {
        let code = match phase {
            TurnPhase::NeedsInput(_) => "31",
            TurnPhase::Tool(_) => "36",
            _ => "33",
        };
        format!("\x1b[{code}m{spin}\x1b[0m {who}: \x1b[{code}m{label}\x1b[0m")
    } else {
        format!("{spin} {who}: {label}")
    };
    let tokens = match progress.output_tokens {
        Some(1) => ", 1 token".to_string(),
        Some(n) => format!(", {n} tokens"),
        None => String::new(),
    };
    format!("{text} {:.1}s{tokens}", elapsed_ms as f64 / 1000.0)
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
fn truncate(line: &str, width: usize) -> String {
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
    fn the_turn_line_says_who_what_and_how_long_and_colours_only_when_asked() {
        let phase: TurnProgress = TurnPhase::Tool(Some("Bash".into())).into();
        let counted = TurnProgress {
            phase: TurnPhase::Working,
            output_tokens: Some(42),
        };
        assert_eq!(
            turn_line("w1", &counted, 0, 0, false),
            "| w1: working 0.0s, 42 tokens"
        );
        assert_eq!(
            turn_line("w1", &phase, 12_345, 0, false),
            "| w1: tool Bash 12.3s"
        );
        let coloured = turn_line("w1", &phase, 0, 200, true);
        assert!(
            coloured.contains("\x1b[36mtool Bash\x1b[0m"),
            "{coloured:?}"
        );
        assert!(coloured.starts_with("\x1b[36m/"), "{coloured:?}");
    }

    #[test]
    fn the_override_wins_and_quiet_wins_over_it() {
        assert_eq!(Mode::detect(Some("live"), false), Mode::Live);
        assert_eq!(Mode::detect(Some("plain"), false), Mode::Plain);
        assert_eq!(Mode::detect(Some("live"), true), Mode::Off);
    }
}
