//! The inputs of the approval verbs (`approve`, `deny`, `answer`, `approvals`): one struct each,
//! read by the CLI (clap), MCP (the tool's schema) and YAML alike.

use schemars::JsonSchema;
use serde::Deserialize;

/// Approve the tool a worker waits on, with its CLI's own key; returns once the CLI's own
/// evidence (the tool's hook, the turn going on) shows the tool ran.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ApproveArgs {
    /// The worker.
    pub name: String,
    /// Also let the CLI stop asking for this tool for the rest of its session (its own "don't
    /// ask again" / "allow for this session").
    #[arg(long)]
    #[serde(default)]
    pub always: bool,
    /// Answer only if the pending approval is still this one (the `id` that `approvals` and
    /// `wait --json` give); otherwise nothing is pressed.
    #[arg(long, value_name = "ID")]
    #[serde(default)]
    pub expect: Option<String>,
    /// Then wait for the turn to end and exit with its outcome, as `wait` does.
    #[arg(long)]
    #[serde(default)]
    pub wait: bool,
    /// How long the CLI has to show the answer took (default 15s); with `--wait`, how long the
    /// turn has to end (default 30m).
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub timeout: Option<String>,
}

/// Deny the tool a worker waits on, with its CLI's own key; returns once the CLI shows the
/// refusal. The worker is then ready for the next prompt (every CLI ends the turn on a refusal);
/// `--reason` is that next prompt.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DenyArgs {
    /// The worker.
    pub name: String,
    /// Tell the model why, or what to do instead: sent as the next prompt once the refusal took
    /// (the CLIs' own "tell it what to do differently").
    #[arg(long, value_name = "TEXT")]
    #[serde(default)]
    pub reason: Option<String>,
    /// Answer only if the pending approval is still this one (the `id` that `approvals` and
    /// `wait --json` give); otherwise nothing is pressed.
    #[arg(long, value_name = "ID")]
    #[serde(default)]
    pub expect: Option<String>,
    /// How long the CLI has to show the refusal took (default 15s).
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub timeout: Option<String>,
}

/// Answer the question a worker's model put to the user (claude's `AskUserQuestion`, gemini's
/// `ask_user`, qwen's `ask_user_question`, opencode's `question`) with one of its choices, with
/// the CLI's own keys; returns once the CLI's own evidence (the tool's hook) shows the answer
/// took. To decline the question, `deny` it.
#[derive(Debug, Clone, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AnswerArgs {
    /// The worker.
    pub name: String,
    /// The choice: its number as `approvals` lists it (1 is the first), or its label.
    pub choice: String,
    /// Answer only if the pending question is still this one (the `id` that `approvals` and
    /// `wait --json` give); otherwise nothing is pressed.
    #[arg(long, value_name = "ID")]
    #[serde(default)]
    pub expect: Option<String>,
    /// Then wait for the turn to end and exit with its outcome, as `wait` does.
    #[arg(long)]
    #[serde(default)]
    pub wait: bool,
    /// How long the CLI has to show the answer took (default 15s); with `--wait`, how long the
    /// turn has to end (default 30m).
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub timeout: Option<String>,
}

/// List every pending approval of the fleet, oldest first: worker, provider, tool, input
/// (secrets masked), how long it has waited, and its id.
#[derive(Debug, Clone, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ApprovalsArgs {
    /// Keep listing: print each approval as it is asked for and each answer as it is given,
    /// until interrupted.
    #[arg(short = 'f', long)]
    #[serde(default)]
    pub follow: bool,
}
