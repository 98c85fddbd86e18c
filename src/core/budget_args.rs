//! `umbel budget`'s input: a worker (or the fleet), and the limits to set on it.

use super::budget::Limits;
use super::errors::{Error, Result};
use schemars::JsonSchema;
use serde::Deserialize;

/// Show a worker's budget (its limits and what it used), or change its limits; `--fleet`: the
/// state root's, shared by all its workers.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BudgetArgs {
    /// The worker.
    #[arg(required_unless_present = "fleet", conflicts_with = "fleet")]
    #[serde(default)]
    pub name: Option<String>,
    /// The fleet's budget instead: every worker of this state root, killed ones included,
    /// counted together; reached, it stops their running turns and refuses spawns and sends.
    #[arg(long)]
    #[serde(default)]
    pub fleet: bool,
    /// The limits to set (the others stay); none: only show the budget.
    #[command(flatten)]
    #[serde(default)]
    pub limits: Limits,
}

impl BudgetArgs {
    /// The worker named, or `None` for the fleet; a usage error when both or neither are
    /// given (MCP and YAML arrive without clap's check).
    pub fn target(&self) -> Result<Option<&str>> {
        match (self.name.as_deref(), self.fleet) {
            (Some(name), false) => Ok(Some(name)),
            (None, true) => Ok(None),
            (Some(_), true) => Err(Error::usage(
                "`budget`: give a worker's name or `fleet`, not both",
            )),
            (None, false) => Err(Error::usage("`budget`: give a worker's name, or `fleet`")),
        }
    }
}
