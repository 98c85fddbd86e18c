//! The verbs' inputs, one struct per verb. Each derives `clap::Args` (the CLI flags),
//! `Deserialize` (YAML workflows, MCP calls) and `JsonSchema` (MCP tool schemas), so a field is
//! defined once and its `///` line is both its `--help` text and its schema description.
//! Output switches (`--json`) are the faces' business and live there.

use super::duration::DEFAULT_WAIT;
use super::errors::{Error, Result};
pub use super::fleet_args::{
    AttachArgs, CaptureArgs, EventsArgs, ExplainArgs, InterruptArgs, KillArgs, LogsArgs, ParkArgs,
    PruneArgs, ResumeArgs, RunArgs, StatusArgs, TopArgs,
};
pub use super::guard_args::GuardArgs;
pub use super::providers::OnPermission;
use super::providers::Provider;
use super::providers::flags::{Flag, Given};
use super::worker_env::EnvSpec;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

/// Start a worker: an agent CLI in its own tmux pane, ready for prompts.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SpawnArgs {
    /// Worker name (`[a-z0-9][a-z0-9-]*`, at most 63 chars); an `anon-…` name when omitted.
    #[arg(long)]
    #[serde(default)]
    pub name: Option<String>,
    /// Which agent CLI to run.
    #[arg(long, value_enum, default_value_t)]
    #[serde(default)]
    pub provider: Provider,
    /// Run the worker on this host, over ssh, under the umbel installed there (`box`,
    /// `user@box`, an alias from ~/.ssh/config); every verb then works on it from here
    /// (docs/remote.md). `--cwd` is a path on that host.
    #[arg(long, value_name = "HOST")]
    #[serde(default)]
    pub host: Option<String>,
    /// Working directory of the worker (default: the current directory).
    #[arg(long)]
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Run the worker in a git worktree of its own, on a new branch (default `umbel/<name>`),
    /// in `<repo>/.umbel/worktrees/<name>` (kept out of `git status` by `.git/info/exclude`);
    /// `--cwd` names the repository (default: the current directory). Files listed in the
    /// repository's `.worktreeinclude` are copied in. In YAML and JSON: `true` or the branch.
    #[arg(long, value_name = "BRANCH", num_args = 0..=1, default_missing_value = "")]
    #[serde(default, deserialize_with = "worktree_field")]
    #[schemars(with = "Option<WorktreeField>")]
    pub worktree: Option<String>,
    /// The commit the worktree's branch starts from (default: the repository's HEAD).
    #[arg(long, value_name = "REV", requires = "worktree")]
    #[serde(default)]
    pub base: Option<String>,
    /// Model to ask the CLI for.
    #[arg(short = 'm', long)]
    #[serde(default)]
    pub model: Option<String>,
    /// Extra variable for the worker: `K=V`, or `NAME` to pass umbel's own value by name (keeps
    /// secrets off every command line). Repeatable.
    /// In YAML and JSON also a map: `{K: V, TOKEN: {fromEnv: MY_TOKEN}}`.
    #[arg(long = "env", value_name = "K=V|NAME")]
    #[serde(default, deserialize_with = "super::env_list::deserialize")]
    #[schemars(with = "Vec<String>")]
    pub env: Vec<EnvSpec>,
    /// Skip the CLI's permission prompts (claude: bypassPermissions); the same as
    /// `--on-permission allow`. As root, claude allows it only with `IS_SANDBOX=1` (exactly
    /// `1`) in the environment or passed with `--env IS_SANDBOX=1`.
    #[arg(long)]
    #[serde(default)]
    pub unattended: bool,
    /// What a tool that needs approval does: `stop` (the turn waits and umbel reports
    /// needs-input, exit 126), `deny` (refused the way the provider's print mode refuses it, and
    /// the turn goes on) or `allow` (the provider's unattended mode). Default: `stop`, and `deny`
    /// under `-p`.
    #[arg(long, value_enum, value_name = "stop|deny|allow")]
    #[serde(default)]
    pub on_permission: Option<OnPermission>,
    /// How long startup may take before umbel gives up (e.g. 60s).
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub startup_timeout: Option<String>,
    /// The CLI's own permission mode (claude `--permission-mode`, gemini `--approval-mode`).
    #[arg(long, value_name = "MODE", help_heading = CLI_FLAGS)]
    #[serde(default)]
    pub permission_mode: Option<String>,
    /// A rule that approves a tool the CLI asks about, in claude's syntax on every CLI
    /// (`Bash(npm test *)`, `Edit(src/**)`, `WebFetch(domain:docs.rs)`; docs/approvals.md).
    /// Repeatable.
    #[arg(long, alias = "allowedTools", value_name = "RULE", help_heading = CLI_FLAGS)]
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    /// A rule that refuses a tool the CLI asks about (wins over an allowing one). Repeatable.
    #[arg(long, alias = "disallowedTools", value_name = "RULE", help_heading = CLI_FLAGS)]
    #[serde(default)]
    pub disallowed_tools: Vec<String>,
    /// Text appended to the CLI's system prompt.
    #[arg(long, value_name = "TEXT", help_heading = CLI_FLAGS)]
    #[serde(default)]
    pub append_system_prompt: Option<String>,
    /// A system prompt replacing the CLI's own.
    #[arg(long, value_name = "TEXT", help_heading = CLI_FLAGS)]
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// How many agentic turns (model requests) one prompt may take: umbel holds it on every
    /// CLI, stopping the turn at the first response past it (`budget`, reason `turns`).
    #[arg(long, value_name = "N", help_heading = CLI_FLAGS, value_parser = clap::value_parser!(u32).range(1..))]
    #[serde(default)]
    pub max_turns: Option<u32>,
    /// The worker's budget: limits over all its turns that stop it (`umbel budget` shows and
    /// changes them; over MCP and in YAML an object `budget: {maxTokens, maxBudgetUsd,
    /// maxPrompts}`).
    #[command(flatten)]
    #[serde(default)]
    pub budget: crate::core::budget::Limits,
    /// An MCP servers file for the CLI (relative paths: to the worker's directory).
    #[arg(long, value_name = "FILE", help_heading = CLI_FLAGS)]
    #[serde(default)]
    pub mcp_config: Option<PathBuf>,
    /// Another directory the CLI may work in. Repeatable.
    #[arg(long, value_name = "DIR", help_heading = CLI_FLAGS)]
    #[serde(default)]
    pub add_dir: Vec<PathBuf>,
    /// Start with a copy of worker NAME's conversation (claude, codex; gemini cannot fork one),
    /// NAME left untouched. The fork runs NAME's CLI (its provider), in NAME's folder unless
    /// `--cwd` says otherwise (docs/park.md#fork).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["resume", "continue"])]
    #[serde(default)]
    pub fork_from: Option<String>,
    /// Continue this CLI session (its id), e.g. one run outside umbel: claude in a fork under the
    /// worker's own session, codex in a copy of the thread's rollout (docs/park.md).
    /// Not available with gemini.
    #[arg(long, value_name = "SESSION_ID", help_heading = CLI_FLAGS, conflicts_with = "continue")]
    #[serde(default)]
    pub resume: Option<String>,
    /// Start from the CLI's most recent session in this directory.
    #[arg(long, help_heading = CLI_FLAGS)]
    #[serde(default)]
    pub r#continue: bool,
    /// Arguments after `--`, passed to the CLI untouched (after umbel's own).
    #[arg(last = true, value_name = "CLI_ARGS", help_heading = CLI_FLAGS)]
    #[serde(default)]
    pub cli_args: Vec<String>,
}

/// `worktree:` as written in YAML or JSON: `true`, or the branch's name.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum WorktreeField {
    /// `true`: a worktree on the default branch (`umbel/<name>`); `false`: none.
    On(bool),
    /// A worktree on this new branch.
    Branch(String),
}

/// Reads [`WorktreeField`] into `SpawnArgs::worktree`: `Some("")` for the default branch.
fn worktree_field<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<WorktreeField>::deserialize(d)? {
        None | Some(WorktreeField::On(false)) => None,
        Some(WorktreeField::On(true)) => Some(String::new()),
        Some(WorktreeField::Branch(branch)) if branch.trim().is_empty() => {
            return Err(serde::de::Error::custom(
                "`worktree` is `true` or a branch name, not an empty string",
            ));
        }
        Some(WorktreeField::Branch(branch)) => Some(branch),
    })
}

/// The `--help` heading of the flags passed through to the agent CLI.
const CLI_FLAGS: &str = "Agent CLI flags (docs/print-mode.md#flags)";

impl SpawnArgs {
    /// The passthrough flags given (`--model` is not among them: every provider takes it, and
    /// the launch passes it on its own).
    pub fn passthrough(&self) -> Vec<Given> {
        let one = |flag, value: Option<String>| value.map(|v| (flag, vec![v]));
        let many = |flag, values: Vec<String>| (!values.is_empty()).then_some((flag, values));
        let paths = |list: &[PathBuf]| -> Vec<String> {
            list.iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect()
        };
        [
            one(Flag::PermissionMode, self.permission_mode.clone()),
            many(Flag::AllowedTools, self.allowed_tools.clone()),
            many(Flag::DisallowedTools, self.disallowed_tools.clone()),
            one(Flag::AppendSystemPrompt, self.append_system_prompt.clone()),
            one(Flag::SystemPrompt, self.system_prompt.clone()),
            one(Flag::MaxTurns, self.max_turns.map(|n| n.to_string())),
            one(
                Flag::McpConfig,
                self.mcp_config
                    .as_ref()
                    .map(|p| p.to_string_lossy().into_owned()),
            ),
            many(Flag::AddDir, paths(&self.add_dir)),
            one(Flag::Resume, self.resume.clone()),
            self.r#continue.then(|| (Flag::Continue, Vec::new())),
        ]
        .into_iter()
        .flatten()
        .map(|(flag, values)| Given { flag, values })
        .collect()
    }

    /// The rules umbel applies on the CLI's permission hook (`--allowed-tools`,
    /// `--disallowed-tools`, in claude's syntax on every CLI).
    pub fn rules(&self) -> crate::core::rules::RuleSet {
        crate::core::rules::RuleSet {
            allow: self.allowed_tools.clone(),
            deny: self.disallowed_tools.clone(),
        }
    }

    /// What a tool needing approval does: `--on-permission`, else `allow` under `--unattended`,
    /// else `default`. `--unattended` with another choice is refused.
    pub fn on_permission(&self, default: OnPermission) -> Result<OnPermission> {
        match (self.unattended, self.on_permission) {
            (true, Some(choice)) if choice != OnPermission::Allow => Err(Error::usage(format!(
                "`--unattended` means `--on-permission allow`, not `{}`: drop one of them",
                choice.as_str()
            ))),
            (true, _) => Ok(OnPermission::Allow),
            (false, Some(choice)) => Ok(choice),
            (false, None) => Ok(default),
        }
    }
}

/// Send a prompt to a worker and confirm the CLI accepted it.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SendArgs {
    /// The worker.
    pub name: String,
    /// The prompt (on the command line, `-` or omitted reads it from standard input).
    #[serde(default)]
    pub prompt: Option<String>,
    /// Guardrails for this turn, enforced by the `wait` that follows.
    #[command(flatten)]
    #[serde(default)]
    pub guard: GuardArgs,
    /// If a turn is running, wait until it ends and deliver then, instead of refusing (queued
    /// sends to one worker go one turn each, in arrival order). Fails with the outcome's code,
    /// nothing typed, if the worker dies (125) or needs a person (126) meanwhile.
    #[arg(long)]
    #[serde(default)]
    pub queue: bool,
    /// How long a queued prompt may wait for its turn (default 30m); then the send fails with
    /// `timeout` (exit 124), nothing typed.
    #[arg(long, value_name = "DURATION", requires = "queue")]
    #[serde(default)]
    pub queue_timeout: Option<String>,
}

impl SendArgs {
    /// How long a queued send may wait for its turn; `None` when the send is not queued.
    pub fn queue_limit(&self) -> Result<Option<Duration>> {
        match (self.queue, &self.queue_timeout) {
            (false, Some(_)) => Err(Error::usage(
                "`queueTimeout` needs `queue: true` (a send that is not queued does not wait)",
            )),
            (false, None) => Ok(None),
            (true, given) => {
                super::duration::parse_or(given.as_deref(), "--queue-timeout", DEFAULT_WAIT)
                    .map(Some)
            }
        }
    }
}

/// Wait until the worker's turn ends, and say how it ended.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitArgs {
    /// The worker.
    pub name: String,
    /// More workers, waited on together by one process: with `--any` the wait ends at the
    /// first of them whose turn ends, with `--all` after the last. `NAME@POS` gives a worker
    /// its own `--since` position.
    #[arg(value_name = "NAME")]
    #[serde(default)]
    pub names: Vec<String>,
    /// Only consider events from this event-log position on (the number `send` printed).
    /// Default: the start of the latest turn.
    #[arg(long, value_name = "POS")]
    #[serde(default)]
    pub since: Option<usize>,
    /// Several workers: end at the first turn to end; print which worker and its outcome and
    /// exit with that outcome's code.
    #[arg(long, conflicts_with = "all")]
    #[serde(default)]
    pub any: bool,
    /// Several workers: end when every turn has ended; exit 0 only if each stopped, else with
    /// the worst outcome's code (dead, provider-error, rejected, input, timeout, idle).
    #[arg(long)]
    #[serde(default)]
    pub all: bool,
    /// When the turn counts as ended (the same fields as a workflow step's `wait`).
    #[command(flatten)]
    #[serde(flatten)]
    pub until: WaitUntil,
    /// Guardrails: the turn's answer must pass them (default: those given to `send`).
    #[command(flatten)]
    #[serde(default)]
    pub guard: GuardArgs,
    /// Refuses unknown fields (serde's `deny_unknown_fields` does not work with `flatten`).
    #[arg(skip)]
    #[serde(flatten)]
    #[schemars(skip)]
    pub unknown: NoUnknownFields,
}

/// How a wait over several workers ends (`--any`, `--all`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitMode {
    /// At the first turn to end.
    Any,
    /// When every turn has ended.
    All,
}

impl WaitArgs {
    /// Every worker named, `name` first (`NAME` or `NAME@POS` each).
    pub fn targets(&self) -> Vec<&str> {
        std::iter::once(self.name.as_str())
            .chain(self.names.iter().map(String::as_str))
            .collect()
    }

    /// The mode asked for (`--any` or `--all`), if any.
    pub fn wait_mode(&self) -> Option<WaitMode> {
        match (self.any, self.all) {
            (true, _) => Some(WaitMode::Any),
            (_, true) => Some(WaitMode::All),
            _ => None,
        }
    }

    /// Whether this is a wait over several workers (a mode, or more than one name).
    pub fn is_many(&self) -> bool {
        self.wait_mode().is_some() || self.targets().len() > 1
    }
}

/// When a turn counts as ended: `umbel wait`'s flags, and a workflow step's `wait`.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WaitUntil {
    /// Give up after this long (default 30m): the outcome is then `timeout` (exit 124).
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub timeout: Option<String>,
    /// Also end (`idle`, exit 123) when nothing moved — screen, hook events, transcript — for
    /// this long.
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub idle_timeout: Option<String>,
    /// Also end (`stop`, reason `file`) as soon as this file exists (relative to the worker's
    /// working directory).
    #[arg(long, value_name = "PATH")]
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// Only a turn whose answer matches this regular expression counts as the stop; other turns
    /// are waited past.
    #[arg(long, value_name = "REGEX")]
    #[serde(default)]
    pub pattern: Option<String>,
}

/// A flattened catch-all that fails on any field left over: `deny_unknown_fields` for structs
/// with `#[serde(flatten)]` members.
#[derive(Debug, Clone, Default)]
pub struct NoUnknownFields;

impl<'de> Deserialize<'de> for NoUnknownFields {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Leftovers;
        impl<'de> serde::de::Visitor<'de> for Leftovers {
            type Value = NoUnknownFields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("no other fields")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                match map.next_key::<String>()? {
                    Some(key) => Err(serde::de::Error::custom(format!("unknown field `{key}`"))),
                    None => Ok(NoUnknownFields),
                }
            }
        }
        deserializer.deserialize_map(Leftovers)
    }
}

/// Print the answer of the worker's last finished turn (or of the turns asked for).
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReadArgs {
    /// The worker.
    pub name: String,
    /// Only turn N (1 = the first prompt of the conversation).
    #[arg(long, value_name = "N", conflicts_with_all = ["all", "since_turn"])]
    #[serde(default)]
    pub turn: Option<usize>,
    /// Every turn of the conversation, oldest first.
    #[arg(long, conflicts_with = "since_turn")]
    #[serde(default)]
    pub all: bool,
    /// The turns after turn N (0 = all of them), oldest first.
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub since_turn: Option<usize>,
}

impl ReadArgs {
    /// The last turn's answer of worker `name`.
    pub fn of(name: &str) -> Self {
        ReadArgs {
            name: name.to_string(),
            turn: None,
            all: false,
            since_turn: None,
        }
    }
}

/// List the tools the worker ran in its last turn (or in turn N): name, input, result.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ActionsArgs {
    /// The worker.
    pub name: String,
    /// Turn N instead of the last (1 = the first prompt of the conversation).
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub turn: Option<usize>,
}

/// Show what changed between two turns' answers, as a unified diff.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DiffArgs {
    /// The worker.
    pub name: String,
    /// The older turn (default: the one before `--to`).
    #[arg(long, value_name = "N")]
    #[serde(default)]
    pub from: Option<usize>,
    /// The newer turn (default: the last).
    #[arg(long, value_name = "M")]
    #[serde(default)]
    pub to: Option<usize>,
    /// The worker's changes in its worktree (`spawn --worktree`) against its base, as
    /// `git diff`: commits and uncommitted edits, new files included.
    #[arg(long, conflicts_with_all = ["from", "to"])]
    #[serde(default)]
    pub git: bool,
    /// With `--git`: a summary per file (`git diff --stat`) instead of the patch.
    #[arg(long, requires = "git")]
    #[serde(default)]
    pub stat: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wait_args_read_their_flattened_fields_and_refuse_unknown_ones() {
        let args: WaitArgs = serde_json::from_value(json!({
            "name": "w", "since": 3, "timeout": "5s", "idleTimeout": "1s",
            "guard": { "accept": "true" }
        }))
        .unwrap();
        assert_eq!(args.until.timeout.as_deref(), Some("5s"));
        assert_eq!(args.until.idle_timeout.as_deref(), Some("1s"));
        assert_eq!(args.since, Some(3));
        assert!(args.guard.is_set());
        let err =
            serde_json::from_value::<WaitArgs>(json!({ "name": "w", "timout": "5s" })).unwrap_err();
        assert!(err.to_string().contains("unknown field `timout`"), "{err}");
        let err = serde_json::from_value::<WaitArgs>(json!({ "name": "w", "since": "soon" }))
            .unwrap_err();
        assert!(err.to_string().contains("invalid type"), "{err}");
    }
}
