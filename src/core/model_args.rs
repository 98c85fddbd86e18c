//! `umbel model`'s input: a worker, and the model to switch its session to.

use schemars::JsonSchema;
use serde::Deserialize;

/// Show a worker's model and the models its CLI offers, or switch its session's model with the
/// CLI's own /model.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ModelArgs {
    /// The worker.
    pub name: String,
    /// The model to switch to, as the CLI's /model lists it or by its id (`sonnet`,
    /// `claude-sonnet-5-5`, `gpt-6.2-astra`): its picker is walked to that row and taken for
    /// this session only (copilot: `/model --session MODEL`). Omitted: say which model the
    /// worker has and list the models the picker offers.
    #[serde(default)]
    pub model: Option<String>,
}
