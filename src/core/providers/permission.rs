//! What a worker does with a tool call that needs approval: a choice every provider maps onto
//! its own permission modes (`--on-permission`, and `-p`'s default).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a tool call that needs the user's approval does in a worker.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum OnPermission {
    /// The CLI asks; the turn waits and umbel reports needs-input (exit 126).
    Stop,
    /// Refused without asking, as the provider's print mode does (claude `dontAsk`, codex
    /// `exec`'s approval `never` in a read-only sandbox, gemini `-p`'s tool set); the turn goes on.
    Deny,
    /// Run without asking: the provider's unattended mode (`--unattended`).
    Allow,
}

impl OnPermission {
    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            OnPermission::Stop => "stop",
            OnPermission::Deny => "deny",
            OnPermission::Allow => "allow",
        }
    }
}
