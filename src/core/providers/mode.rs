//! A CLI's permission modes (or agents) as its own key cycles them — Shift+Tab in claude,
//! codex, gemini, qwen and copilot, Tab between opencode's agents — and the screen text that
//! says which one is on. Each provider fills a [`ModeCycle`] from its recorded screens
//! (`tests/data/<cli>/…-mode-<mode>.txt`); `umbel mode` reads and switches with it.

use serde::{Deserialize, Serialize};

/// One mode of a cycle.
#[derive(Debug)]
pub struct Mode {
    /// Its name, as the CLI's own flag or command calls it (`acceptEdits`, `auto_edit`).
    pub id: &'static str,
    /// Text on the screen while it is on; `None`: the mode no text shows (codex's default),
    /// on when no other's text is.
    pub shown: Option<&'static str>,
}

/// The modes a key cycles through, in order.
#[derive(Debug)]
pub struct ModeCycle {
    /// The key that moves to the next mode, as tmux names it (`BTab`, `Tab`).
    pub key: &'static str,
    pub modes: &'static [Mode],
}

impl ModeCycle {
    /// The mode `screen` shows: the one whose text is on it, else the one no text shows;
    /// `None` when neither (a dialog over the prompt, a release that words it otherwise).
    pub fn on_screen(&self, screen: &str) -> Option<&'static str> {
        let shown = self
            .modes
            .iter()
            .find(|m| m.shown.is_some_and(|text| screen.contains(text)));
        let unmarked = || self.modes.iter().find(|m| m.shown.is_none());
        shown.or_else(unmarked).map(|m| m.id)
    }

    /// The modes' names, in the cycle's order.
    pub fn ids(&self) -> Vec<&'static str> {
        self.modes.iter().map(|m| m.id).collect()
    }

    /// The cycle's name for `wanted` (case and `-`/`_` ignored: `accept-edits` is
    /// `acceptEdits`), if it has it.
    pub fn find(&self, wanted: &str) -> Option<&'static str> {
        let plain = |s: &str| s.replace(['-', '_'], "").to_ascii_lowercase();
        let wanted = plain(wanted);
        self.modes
            .iter()
            .map(|m| m.id)
            .find(|id| plain(id) == wanted)
    }
}

/// What `umbel mode` found or did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModeReport {
    /// The worker.
    pub name: String,
    /// The mode its screen shows now.
    pub mode: String,
    /// The modes its key cycles through, in order.
    pub modes: Vec<String>,
    /// The key umbel pressed, how many times (0: the mode was already on, or none was asked).
    pub pressed: usize,
}

#[cfg(test)]
mod tests {
    use crate::core::providers::Provider;

    /// Each recorded screen of a real CLI's mode shows that mode, and only that one.
    #[test]
    fn each_recorded_screen_shows_its_mode() {
        let cases: &[(Provider, &str, &[&str])] = &[
            (
                Provider::Claude,
                "claude/claude-2.1.332-mode",
                &["auto", "manual", "acceptEdits", "plan"],
            ),
            (
                Provider::Codex,
                "codex/codex-0.171.0-mode",
                &["default", "plan"],
            ),
            (
                Provider::Gemini,
                "gemini/gemini-0.61.0-mode",
                &["default", "auto_edit", "plan"],
            ),
            (
                Provider::Qwen,
                "qwen/qwen-0.24.4-mode",
                &["default", "auto-edit", "auto", "yolo", "plan"],
            ),
            (
                Provider::Copilot,
                "copilot/1.0.102/copilot-1.0.102-mode",
                &["interactive", "plan", "autopilot"],
            ),
            (
                Provider::Opencode,
                "opencode/1.18.33/opencode-1.18.33-mode",
                &["build", "plan"],
            ),
        ];
        for (provider, prefix, modes) in cases {
            let cycle = provider.module().identity().modes.expect("a mode cycle");
            assert_eq!(cycle.ids(), *modes, "{provider}: the cycle's order");
            for mode in *modes {
                let path = format!(
                    "{}/tests/data/{prefix}-{mode}.txt",
                    env!("CARGO_MANIFEST_DIR")
                );
                let screen = std::fs::read_to_string(&path).expect("a recorded screen");
                assert_eq!(cycle.on_screen(&screen), Some(*mode), "{path}");
            }
        }
    }

    #[test]
    fn a_mode_is_found_by_its_name_in_any_spelling() {
        let cycle = Provider::Claude.module().identity().modes.expect("a cycle");
        assert_eq!(cycle.find("accept-edits"), Some("acceptEdits"));
        assert_eq!(cycle.find("PLAN"), Some("plan"));
        assert_eq!(cycle.find("yolo"), None);
    }
}
