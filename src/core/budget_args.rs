//! `umbel budget`'s input: a worker, and the limits to set on it.

use super::budget::Limits;
use schemars::JsonSchema;
use serde::Deserialize;

/// Show a worker's budget (its limits and what it used), or change its limits.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BudgetArgs {
    /// The worker.
    pub name: String,
    /// The limits to set (the others stay); none: only show the budget.
    #[command(flatten)]
    #[serde(default)]
    pub limits: Limits,
}
