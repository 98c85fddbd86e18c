//! What `umbel top` shows and where the person is in it: the fleet as last looked at, the
//! selected worker, the filter, and the mode (the table, an input line, a confirmation, a pager).
//! Pure: the event loop feeds it keys and looks, the renderer draws it.

use crate::core::fleet::Shown;
use crate::operations::fleet::FleetRow;
use ratatui::widgets::TableState;

/// What the keys currently drive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The table: keys select and act.
    Table,
    /// The input line: a prompt for the selected worker, or the filter.
    Input { purpose: Purpose, text: String },
    /// `kill NAME? y/n`.
    ConfirmKill(String),
    /// `park NAME? y/n`.
    ConfirmPark(String),
    /// A scrolling text over the table (`r` the last answer, `l` the event log).
    Pager {
        title: String,
        lines: Vec<String>,
        scroll: u16,
    },
}

/// What the input line is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purpose {
    /// A prompt to send to this worker.
    Send(String),
    /// The filter (applied as it is typed).
    Filter,
}

/// The whole view.
#[derive(Debug)]
pub struct View {
    pub rows: Vec<FleetRow>,
    /// Case-insensitive text a row's name, provider, state or line must hold.
    pub filter: String,
    pub mode: Mode,
    /// The selected worker, by name (stays on it when rows move).
    pub selected: Option<String>,
    /// The last thing an action said (sent, killed, an error).
    pub note: Option<String>,
    /// The fleet could not be looked at (tmux failing): said in the title, rows kept.
    pub problem: Option<String>,
    pub colour: bool,
    /// The clock the ages are drawn against (ms since the epoch).
    pub now_ms: u64,
    /// ratatui's scroll position of the table.
    pub table: TableState,
}

impl View {
    pub fn new(colour: bool) -> View {
        View {
            rows: Vec::new(),
            filter: String::new(),
            mode: Mode::Table,
            selected: None,
            note: None,
            problem: None,
            colour,
            now_ms: 0,
            table: TableState::default(),
        }
    }

    /// Takes a new look at the fleet; the selection stays on its worker while it is listed.
    pub fn set_rows(&mut self, rows: Vec<FleetRow>) {
        self.rows = rows;
        self.problem = None;
        self.keep_selection();
    }

    /// The rows the filter lets through, in attention order.
    pub fn visible(&self) -> Vec<&FleetRow> {
        let wanted = self.filter.to_lowercase();
        self.rows
            .iter()
            .filter(|r| {
                wanted.is_empty()
                    || [
                        r.status.name.as_str(),
                        r.status.provider.as_str(),
                        r.shown.label(),
                        r.line.as_str(),
                    ]
                    .iter()
                    .any(|f| f.to_lowercase().contains(&wanted))
            })
            .collect()
    }

    /// The selected row, if it is visible.
    pub fn current(&self) -> Option<&FleetRow> {
        let name = self.selected.as_deref()?;
        self.visible().into_iter().find(|r| r.status.name == name)
    }

    /// Moves the selection by `by` rows (clamped to the visible ones).
    pub fn move_selection(&mut self, by: isize) {
        let names: Vec<String> = self
            .visible()
            .iter()
            .map(|r| r.status.name.clone())
            .collect();
        if names.is_empty() {
            return;
        }
        let at = self
            .selected
            .as_ref()
            .and_then(|s| names.iter().position(|n| n == s))
            .unwrap_or(0) as isize;
        let next = (at + by).clamp(0, names.len() as isize - 1) as usize;
        self.selected = Some(names[next].clone());
        self.table.select(Some(next));
    }

    /// Puts the selection back on its worker (or the first visible row) after the rows or the
    /// filter changed.
    pub fn keep_selection(&mut self) {
        let names: Vec<String> = self
            .visible()
            .iter()
            .map(|r| r.status.name.clone())
            .collect();
        let at = self
            .selected
            .as_ref()
            .and_then(|s| names.iter().position(|n| n == s))
            .or((!names.is_empty()).then_some(0));
        self.selected = at.map(|i| names[i].clone());
        self.table.select(at);
    }

    /// How many workers are in each state, in attention order (for the title).
    pub fn counts(&self) -> Vec<(Shown, usize)> {
        let mut counts: Vec<(Shown, usize)> = Vec::new();
        for row in &self.rows {
            match counts.iter_mut().find(|(s, _)| *s == row.shown) {
                Some((_, n)) => *n += 1,
                None => counts.push((row.shown, 1)),
            }
        }
        counts.sort();
        counts
    }
}

pub use crate::core::fleet::{short_cost, short_duration, short_tokens};

#[cfg(test)]
pub mod samples {
    //! Rows in every state, for the view's tests.

    use super::*;
    use crate::core::fleet::{TurnSpan, Usage, sample_status};
    use crate::core::outcome::ExitStatus;

    /// One row: `state` as `status` lists it, `shown` as `top` does.
    pub fn row(name: &str, state: &str, shown: Shown, line: &str) -> FleetRow {
        FleetRow {
            status: sample_status(name, state),
            shown,
            turn: TurnSpan::default(),
            line: line.into(),
            usage: None,
        }
    }

    /// A view of [`fleet`] with the clock at 100 s, colour off.
    pub fn view() -> View {
        let mut view = View::new(false);
        view.now_ms = 100_000;
        view.set_rows(fleet());
        view
    }

    /// A fleet with one worker in each state, clock at 100 s.
    pub fn fleet() -> Vec<FleetRow> {
        let mut working = row("builder", "busy", Shown::Working, "tool Bash");
        working.turn.started_ms = Some(58_000);
        working.usage = Some(Usage {
            tokens: 12_345,
            cost_usd: Some(0.0732),
            ..Usage::default()
        });
        let mut waiting = row(
            "reviewer",
            "needs-input",
            Shown::NeedsInput,
            "permission: Bash rm -rf target",
        );
        waiting.status.provider = "codex".into();
        waiting.status.needs_input = Some("permission".into());
        waiting.status.approval_id = Some("7".into());
        waiting.turn.started_ms = Some(90_000);
        let mut done = row("writer", "ready", Shown::Done, "All 12 tests pass.");
        done.status.provider = "gemini".into();
        done.turn = TurnSpan {
            started_ms: Some(10_000),
            ended_ms: Some(14_500),
        };
        done.usage = Some(Usage {
            tokens: 950,
            cost_usd: None,
            ..Usage::default()
        });
        let idle = row("spare", "ready", Shown::Idle, "/work/project");
        let mut parked = row(
            "resting",
            "parked",
            Shown::Parked,
            "parked for 25m 3s; the next send resumes it",
        );
        parked.status.parked_at = Some(0);
        let mut dead = row("crashed", "dead", Shown::Dead, "exited with status 3");
        dead.status.exit = Some(ExitStatus {
            exit_code: Some(3),
            signal: None,
        });
        let mut rows = vec![working, waiting, done, idle, parked, dead];
        rows.sort_by_key(|r| r.shown);
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::samples::view;
    use super::*;

    #[test]
    fn the_selection_follows_its_worker_and_stays_in_bounds() {
        let mut view = view();
        assert_eq!(view.selected.as_deref(), Some("reviewer"), "first row");
        view.move_selection(-5);
        assert_eq!(view.selected.as_deref(), Some("reviewer"));
        view.move_selection(2);
        assert_eq!(view.selected.as_deref(), Some("writer"));
        let mut rows = samples::fleet();
        rows.reverse();
        view.set_rows(rows);
        assert_eq!(view.selected.as_deref(), Some("writer"));
        assert_eq!(view.table.selected(), Some(3));
        view.move_selection(99);
        assert_eq!(view.selected.as_deref(), Some("reviewer"), "the last row");
    }

    #[test]
    fn the_filter_matches_name_provider_state_and_line() {
        let mut view = view();
        view.filter = "CODEX".into();
        let names = |v: &View| -> Vec<String> {
            v.visible().iter().map(|r| r.status.name.clone()).collect()
        };
        assert_eq!(names(&view), ["reviewer"]);
        view.filter = "dead".into();
        assert_eq!(names(&view), ["crashed"]);
        view.filter = "tests pass".into();
        view.keep_selection();
        assert_eq!(view.selected.as_deref(), Some("writer"));
        view.filter = "nobody".into();
        view.keep_selection();
        assert_eq!(view.selected, None);
        assert!(view.current().is_none());
    }

    #[test]
    fn figures_fit_their_columns() {
        assert_eq!(short_duration(4_200), "4s");
        assert_eq!(short_duration(184_000), "3m04s");
        assert_eq!(short_duration(7_500_000), "2h05m");
        assert_eq!(short_duration(3 * 86_400_000 + 4 * 3_600_000), "3d04h");
        assert_eq!(short_tokens(950), "950");
        assert_eq!(short_tokens(12_345), "12.3k");
        assert_eq!(short_tokens(456_789), "456k");
        assert_eq!(short_tokens(1_234_567), "1.2M");
        assert_eq!(short_cost(0.0732), "$0.07");
        assert_eq!(short_cost(0.000732), "$0.0007");
        assert_eq!(short_cost(12.3), "$12.30");
    }
}
