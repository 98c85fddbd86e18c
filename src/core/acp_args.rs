//! `umbel acp`'s input: spawn's flags, applied to every session the editor opens, and how long
//! an idle session keeps its CLI running.

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
}
