//! The progress line of `-p` and `wait` on stderr: `| w1: tool Bash 12.3s, 42 tokens`, redrawn
//! in place while stderr is a terminal (or `UMBEL_PROGRESS=live`), erased before any output,
//! never written otherwise. Same [`Mode`], colour rule (`NO_COLOR`) and truncation as the
//! workflow display in `run_progress.rs`.

use super::run_progress::{Mode, terminal_width, truncate};
use crate::adapters::host::now_ms;
use crate::core::turn_progress::{TurnPhase, TurnProgress};
use crate::operations::context::ProgressSink;
use std::io::Write;
use std::sync::{Arc, Mutex};

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

    /// The callback that feeds this line, for `Ctx::progress`; `None` when nothing is drawn (so
    /// the engine gathers nothing).
    pub fn sink(&self) -> Option<ProgressSink> {
        self.drawer.as_ref()?;
        let shared = Arc::clone(&self.shared);
        Some(ProgressSink(Arc::new(move |progress: &TurnProgress| {
            if let Ok(mut shown) = shared.lock() {
                shown.progress = Some(progress.clone());
            }
        })))
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

/// The line for `-p` and `wait` in this environment: `UMBEL_PROGRESS`, `NO_COLOR` and `TERM` as
/// umbel saw them.
pub fn turn_line_for(ctx: &crate::operations::Ctx, who: &str) -> TurnLine {
    let (mode, no_colour) = super::run_progress::from_env(ctx, false);
    TurnLine::new(mode, no_colour, who)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
