//! opencode's primary agents: Build (the default) and Plan, which Tab switches between in the
//! TUI (1.18.33, recorded: `opencode-1.18.33-mode-build.txt`, `-mode-plan.txt`). The agent is
//! named in the input box (`Build · <model>`), under each turn (`▣  Plan · <model>`) and in
//! the messages' `agent` and `mode`.

/// A primary agent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Agent {
    /// `build`, the default.
    #[default]
    Build,
    /// `plan`.
    Plan,
}

impl Agent {
    /// The id in events (`agent`, `mode`).
    pub fn id(self) -> &'static str {
        match self {
            Agent::Build => "build",
            Agent::Plan => "plan",
        }
    }

    /// The name on screen.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Build => "Build",
            Agent::Plan => "Plan",
        }
    }

    /// The agent Tab switches to.
    pub fn next(self) -> Agent {
        match self {
            Agent::Build => Agent::Plan,
            Agent::Plan => Agent::Build,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Agent;

    #[test]
    fn tab_switches_build_and_plan() {
        assert_eq!(Agent::default().next(), Agent::Plan);
        assert_eq!(Agent::Plan.next(), Agent::Build);
        assert_eq!((Agent::Plan.id(), Agent::Plan.name()), ("plan", "Plan"));
    }
}
