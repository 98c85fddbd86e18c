//! copilot's agent modes: Shift+Tab at the prompt cycles Interactive → Plan → Autopilot →
//! Interactive, and the status line names the mode on releases that show modes there
//! (recorded: `tests/data/copilot/1.0.102/copilot-1.0.102-mode-*.txt`). Only the screen
//! changes: the fake's turns and tool approvals are the same in every mode.

/// The agent mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AgentMode {
    /// Copilot asks and answers, turn by turn (the start).
    #[default]
    Interactive,
    /// Copilot plans before it acts.
    Plan,
    /// Copilot goes on by itself.
    Autopilot,
}

impl AgentMode {
    /// The mode Shift+Tab moves to.
    pub fn next(self) -> AgentMode {
        match self {
            AgentMode::Interactive => AgentMode::Plan,
            AgentMode::Plan => AgentMode::Autopilot,
            AgentMode::Autopilot => AgentMode::Interactive,
        }
    }

    /// Its name on the status line.
    pub fn name(self) -> &'static str {
        match self {
            AgentMode::Interactive => "Interactive",
            AgentMode::Plan => "Plan",
            AgentMode::Autopilot => "Autopilot",
        }
    }

    /// True when the idle status line offers `? help` (Autopilot's does not).
    pub fn offers_help(self) -> bool {
        self != AgentMode::Autopilot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_presses_go_round() {
        let start = AgentMode::default();
        assert_eq!(start, AgentMode::Interactive);
        let names: Vec<&str> = [start, start.next(), start.next().next()]
            .iter()
            .map(|m| m.name())
            .collect();
        assert_eq!(names, ["Interactive", "Plan", "Autopilot"]);
        assert_eq!(start.next().next().next(), start);
    }

    /// The status line `mode` gets on `version` (idle, model `gpt-fake`), trailing blanks cut.
    fn status_line(mode: AgentMode, version: &str) -> String {
        use crate::copilot::screens::{Composer, Status, composer};
        use crate::release::Version;
        let release = crate::copilot::release::at(Version::parse(version).expect("a version"));
        let c = Composer {
            folder: " /tmp/x",
            input: "",
            status: Status::Idle,
            model: "gpt-fake",
            notice: None,
            mode,
        };
        let rows = composer(&c, release, 120);
        rows.last().expect("a status line").trim_end().to_string()
    }

    #[test]
    fn each_mode_draws_the_recorded_status_line_and_1_0_89_names_none() {
        let mut mode = AgentMode::default();
        for name in ["interactive", "plan", "autopilot"] {
            let file = format!("mode-{name}.txt");
            let recorded = crate::fixtures::release_screen("copilot", "1.0.102", &file);
            let want = recorded.last().expect("a status line").trim_end();
            assert_eq!(status_line(mode, "1.0.102"), want, "{name}");
            let old = " ← open sidebar · / commands · ? help · tab next tab";
            assert!(status_line(mode, "1.0.89").starts_with(old), "{name}");
            mode = mode.next();
        }
    }
}
