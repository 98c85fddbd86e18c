//! `umbel acp`'s input: spawn's flags, applied to every session the editor opens, and how long
//! an idle session keeps its CLI running (`--park-idle`).

use super::args::SpawnArgs;
use schemars::JsonSchema;
use serde::Deserialize;

/// Serve the Agent Client Protocol over stdio, for editors: each session is a worker.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcpArgs {
    /// How every session's worker is spawned (`--name` is the prefix of their names: `acp` when
    /// omitted; `--cwd` is the session's own).
    #[command(flatten)]
    #[serde(flatten)]
    pub spawn: SpawnArgs,
    /// Park a session's worker once no prompt ran on it for this long (its next prompt resumes
    /// it), so an editor with many sessions does not keep as many CLIs running; `0` never.
    #[arg(long, value_name = "D", default_value = "10m")]
    #[serde(default)]
    pub park_idle: Option<String>,
}
