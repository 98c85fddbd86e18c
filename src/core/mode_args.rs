//! `umbel mode`'s input: a worker, and the permission mode (or agent) to switch it to.

use schemars::JsonSchema;
use serde::Deserialize;

/// Show a worker's permission mode (or agent), or switch it with the CLI's own key.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ModeArgs {
    /// The worker.
    pub name: String,
    /// The mode to switch to, by the CLI's name for it (`plan`, `acceptEdits`, `auto_edit`,
    /// `build`): Shift+Tab (opencode: Tab) is pressed until the worker's screen shows it.
    /// Omitted: only say which mode is on, and which modes the key cycles through.
    #[serde(default)]
    pub mode: Option<String>,
}
