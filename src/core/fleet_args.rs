//! The inputs of the verbs that look at, stop, park or end workers and runs (`attach`,
//! `status`, `top`, `kill`, `park`, `resume`, `interrupt`, `capture`, `explain`, `logs`,
//! `events`, `prune`, `run`): one struct per verb, deriving `clap::Args`, `Deserialize` and
//! `JsonSchema` as those of `args.rs` do (re-exported there).

use super::providers::Provider;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;

/// Hand this terminal to the worker's tmux pane (detach with the tmux prefix key, then `d`).
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AttachArgs {
    /// The worker.
    pub name: String,
}

/// Show what workers are doing.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StatusArgs {
    /// One worker; all when omitted.
    #[serde(default)]
    pub name: Option<String>,
}

/// A live view of every worker (`umbel top`).
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TopArgs {
    /// Print one frame as plain text and exit (for scripts; no terminal needed).
    #[arg(long)]
    #[serde(default)]
    pub once: bool,
    /// Width of the `--once` frame, at least 40 (default: the terminal's, else 120).
    #[arg(long, value_name = "COLUMNS", requires = "once")]
    #[serde(default)]
    pub width: Option<u16>,
}

/// Stop a worker (SIGTERM to its processes, SIGKILL to any left after 3 s); its folder stays as
/// a tombstone unless purged.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KillArgs {
    /// The worker.
    #[arg(required_unless_present = "all")]
    #[serde(default)]
    pub name: Option<String>,
    /// Kill every worker of this state root.
    #[arg(long, conflicts_with = "name")]
    #[serde(default)]
    pub all: bool,
    /// Also delete the worker's folder (no tombstone), and its worktree and branch when they
    /// hold nothing unmerged (else both stay, and umbel says where and how to remove them).
    #[arg(long)]
    #[serde(default)]
    pub purge: bool,
    /// With `--purge`: delete the worktree and its branch even with uncommitted changes or
    /// unmerged commits (that work is lost).
    #[arg(long, requires = "purge")]
    #[serde(default)]
    pub discard: bool,
}

/// End the CLI of idle workers and keep their conversations: the next prompt (`send`, `-p
/// --name`, a workflow step) starts each again on the same conversation. A busy worker, or one
/// waiting for a person, is refused.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ParkArgs {
    /// The workers to park.
    #[arg(required_unless_present = "idle_for")]
    #[serde(default)]
    pub names: Vec<String>,
    /// Park every worker whose last turn ended (or that started) at least this long ago
    /// (`30m`, `2h`): for a cron job or a supervising agent.
    #[arg(long, value_name = "DURATION", conflicts_with = "names")]
    #[serde(default)]
    pub idle_for: Option<String>,
}

/// Start the CLI of a parked or dead worker again on its conversation (the CLI's own resume by
/// session id), with the flags, environment and folder it was spawned with.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResumeArgs {
    /// The worker.
    pub name: String,
}

/// Interrupt the turn a worker is running, with the CLI's own interrupt key.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InterruptArgs {
    /// The worker.
    pub name: String,
    /// How long the CLI has to report the turn interrupted (default 15s).
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub timeout: Option<String>,
}

/// Print the worker's screen, for a person to look at (umbel never decides anything from it).
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CaptureArgs {
    /// The worker.
    pub name: String,
    /// Include the scroll-back, not only the visible screen.
    #[arg(long)]
    #[serde(default)]
    pub history: bool,
}

/// Show the evidence behind a worker's state: its CLI and version, its last hook events and what
/// each meant, the transcript record that ended or opened its last turn, the screen rule that
/// matched and its line, the state `status` derives, and what umbel would do next. With
/// `--screen FILE --provider P`, classifies a saved screen the same way.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExplainArgs {
    /// The worker.
    #[arg(
        required_unless_present_any = ["screen", "screen_text"],
        conflicts_with_all = ["screen", "screen_text"]
    )]
    #[serde(default)]
    pub name: Option<String>,
    /// A saved screen to classify instead of a worker's: plain text as `tmux capture-pane -p`
    /// prints it (or `umbel capture`). Needs `--provider`.
    /// Only a regular file is read, and only its last 256 KiB. Over MCP a path is refused:
    /// pass `screenText`.
    #[arg(
        long,
        value_name = "FILE",
        requires = "provider",
        conflicts_with = "screen_text"
    )]
    #[serde(default)]
    pub screen: Option<PathBuf>,
    /// A saved screen's text itself, instead of a file (what MCP takes; its last 256 KiB).
    #[arg(long, value_name = "TEXT", requires = "provider")]
    #[serde(default)]
    pub screen_text: Option<String>,
    /// The CLI the saved screen is from (with `--screen`).
    #[arg(long, value_enum)]
    #[serde(default)]
    pub provider: Option<Provider>,
    /// The CLI's version the saved screen is from (with `--screen`), as its `--version` prints
    /// it; judged against the releases umbel supports and shown with the verdict, for a report
    /// of a new release's screen.
    #[arg(long, value_name = "V")]
    #[serde(default)]
    pub version: Option<String>,
}

/// Print the worker's event log: one line per hook event (`<ns> <Event> <payload file>`).
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogsArgs {
    /// The worker.
    pub name: String,
    /// Keep printing new events as they arrive (until Ctrl-C).
    #[arg(short, long)]
    #[serde(default)]
    pub follow: bool,
}

/// Every worker's state changes, one line each, oldest first (`umbel events`).
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EventsArgs {
    /// Only these workers (default: every worker, and, with `-f`, those spawned meanwhile).
    #[arg(value_name = "NAME")]
    #[serde(default)]
    pub names: Vec<String>,
    /// Keep printing events as they happen (until Ctrl-C); workers spawned meanwhile are
    /// followed too.
    #[arg(short, long)]
    #[serde(default)]
    pub follow: bool,
    /// Only events from this time on: a duration ago (`10m`, `2h`) or a UTC time
    /// (`2026-12-04T21:00:00Z`).
    #[arg(long, value_name = "TIME")]
    #[serde(default)]
    pub since: Option<String>,
    /// With `-f`: run this shell command once per event, the event's JSON on its stdin and
    /// UMBEL_EVENT, UMBEL_WORKER, UMBEL_OUTCOME, UMBEL_REASON in its environment; one at a
    /// time per worker, in order (a worker's events wait for its running command; past 16
    /// waiting, more are skipped and reported), never holding up the stream (see
    /// docs/notifications.md).
    #[arg(long, value_name = "CMD", requires = "follow")]
    #[serde(default)]
    pub exec: Option<String>,
    /// How long one `--exec` command may run before it is ended and reported (default 60s).
    #[arg(long, value_name = "DURATION", requires = "exec")]
    #[serde(default)]
    pub exec_timeout: Option<String>,
}

/// Remove dead workers and tombstones (their folders and transcripts in them); a parked worker
/// is kept (its conversation is all it is).
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PruneArgs {
    /// Only those that died (or were killed) at least this long ago, e.g. `1d`, `2h`.
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub older_than: Option<String>,
}

/// Run a workflow file: its workers spawned as needed, its steps in dependency waves.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunArgs {
    /// The workflow file (YAML; see docs/workflows.md); `-` reads it from standard input. With
    /// `--resume`, defaults to the copy kept in the run's folder.
    #[arg(required_unless_present = "resume")]
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// Only check the file (and the environment and folders it names); run nothing.
    #[arg(long, conflicts_with = "resume")]
    #[serde(default)]
    pub check: bool,
    /// Rerun what did not finish in an earlier run (its id, e.g. `wf-k3x9aa`).
    #[arg(long, value_name = "RUN_ID")]
    #[serde(default)]
    pub resume: Option<String>,
    /// Leave the workers running after a successful run (they are always stopped after a
    /// failure or Ctrl-C).
    #[arg(long)]
    #[serde(default)]
    pub keep: bool,
}
