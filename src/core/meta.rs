//! `sessions/<name>/meta.json`: who a worker is. Written atomically by `spawn`; never holds
//! environment values.

use super::name::WorkerName;
use super::providers::Provider;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A worker's identity and launch facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub name: String,
    pub provider: Provider,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The resolved working directory.
    pub cwd: PathBuf,
    /// The binary that was launched (absolute).
    pub bin: String,
    /// The tmux session holding the worker.
    pub tmux_session: String,
    /// The provider's session id, as umbel chose or learned it.
    pub session_id: String,
    /// Where the provider writes its transcript, once known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<PathBuf>,
    /// Spawned without a name (so `-p` removes it afterwards).
    #[serde(default)]
    pub anonymous: bool,
    #[serde(default)]
    pub unattended: bool,
    /// Milliseconds since the Unix epoch.
    pub created_at: u64,
    /// When startup finished (dialogs passed, idle prompt up), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_at: Option<u64>,
    pub umbel_version: String,
    /// The CLI's release, when umbel learnt it (`--version`, cached per binary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_version: Option<String>,
    /// The worker's own git worktree (`spawn --worktree`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<super::worktree::WorktreeMeta>,
}

impl Meta {
    /// The validated worker name.
    pub fn worker_name(&self) -> Option<WorkerName> {
        WorkerName::parse(&self.name).ok()
    }
}
