//! The provider seam. Each agent CLI umbel drives is one module here, holding everything that is
//! specific to it and pure: how to launch it, which hooks to configure, which variables it
//! inherits, how to read its screens during startup, what its hook events mean, and how to parse
//! its transcript. The engine (`operations/`) only talks to [`ProviderModule`].

pub mod claude;

use super::worker_env::ProviderEnv;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Which agent CLI a worker runs.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[schemars(inline)]
pub enum Provider {
    /// Claude Code (`claude`).
    #[default]
    Claude,
}

impl Provider {
    /// The provider's module.
    pub fn module(self) -> &'static dyn ProviderModule {
        match self {
            Provider::Claude => &claude::Claude,
        }
    }

    /// The provider's name as written on the command line and in meta.json.
    pub fn as_str(self) -> &'static str {
        self.module().name()
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What umbel knows when it builds a launch.
#[derive(Debug, Clone)]
pub struct LaunchInput<'a> {
    /// The worker's session folder under the state root.
    pub session_dir: &'a Path,
    /// The shell command that records one hook event; the event name is appended as one more
    /// argument (e.g. `sh '/s/hooks/event.sh' '/s/sessions/w/events'`).
    pub hook_command: &'a str,
    /// The provider session id umbel chose for this worker.
    pub session_id: &'a str,
    /// `--model`, if given.
    pub model: Option<&'a str>,
    /// `--unattended`: skip permission prompts the provider's own way.
    pub unattended: bool,
    /// The working directory (resolved).
    pub cwd: &'a Path,
    /// The worker's composed environment (to locate config folders).
    pub env: &'a [(String, String)],
}

/// What the engine must do to launch the CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// Arguments after the binary.
    pub args: Vec<String>,
    /// Files to write before launch (path, content). Paths are inside the session folder.
    pub files: Vec<(PathBuf, String)>,
    /// Where the transcript will be, when it can be known in advance.
    pub transcript_path: Option<PathBuf>,
}

/// What a hook event means to the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum EventClass {
    /// The CLI started (its dialogs are over).
    Started,
    /// A prompt was accepted.
    Submitted,
    /// The turn ended normally.
    TurnEnded,
    /// The provider failed the turn; the reason is `api-error`, `usage-limit` or `interrupted`.
    TurnFailed { reason: &'static str },
    /// The CLI waits for a person; reason `permission` or `question`, with the pending tool.
    NeedsInput {
        reason: &'static str,
        tool: Option<serde_json::Value>,
    },
    /// Work is moving (a tool ran), which also means a pending question was answered.
    Progress,
    /// Nothing the engine acts on.
    Other,
}

/// What a startup screen asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartupScreen {
    /// A sign-in or onboarding screen: a person must act; the line is the evidence.
    SignIn(String),
    /// A dialog umbel answers by pressing these tmux keys; `what` names it for messages.
    Dialog {
        what: &'static str,
        keys: &'static [&'static str],
    },
    /// The idle prompt is showing.
    Idle,
    /// Anything else (still drawing, busy, unknown).
    Other,
}

/// The last turn as read from a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TranscriptTurn {
    /// The prompt that opened the turn, if it was found.
    pub prompt: Option<String>,
    /// The turn's final answer text, if any was written yet.
    pub answer: Option<String>,
    /// Whether the transcript marks the turn as finished.
    pub ended: bool,
    /// Whether the answer is a provider error rather than a reply.
    pub is_error: bool,
}

/// Everything provider-specific, as pure functions.
pub trait ProviderModule: Sync {
    /// The provider's name (`claude`).
    fn name(&self) -> &'static str;
    /// The binary looked up on PATH by default.
    fn default_bin(&self) -> &'static str;
    /// The environment variable that overrides the binary's location.
    fn bin_env_var(&self) -> &'static str;
    /// Variables the worker inherits by name, and fixed ones.
    fn env(&self) -> ProviderEnv;
    /// Adjusts the composed environment (e.g. drop a key that would trigger a blocking dialog).
    fn reconcile_env(&self, env: &mut Vec<(String, String)>);
    /// Builds the launch.
    fn launch(&self, input: &LaunchInput<'_>) -> LaunchSpec;
    /// Reads the visible screen during startup.
    fn startup_screen(&self, screen: &str) -> StartupScreen;
    /// Whether the input line still holds unsubmitted text (typed, pasted or a paste placeholder).
    fn pending_input(&self, screen: &str) -> bool;
    /// What a hook event means.
    fn classify(&self, event: &str, payload: Option<&serde_json::Value>) -> EventClass;
    /// The answer carried by an end-of-turn hook payload.
    fn answer_from_payload(&self, payload: &serde_json::Value) -> Option<String>;
    /// Parses the last turn from transcript lines given newest first; stops reading as soon as
    /// the turn's opening prompt is found.
    fn last_turn(&self, lines_newest_first: &mut dyn Iterator<Item = String>) -> TranscriptTurn;
}

/// Reads a string field of a JSON payload.
pub fn str_field<'a>(payload: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    payload.get(key).and_then(serde_json::Value::as_str)
}
