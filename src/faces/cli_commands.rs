//! The command line's shape: the top-level flags (`-p` and its flags), every verb and its
//! input struct, as clap parses them. `cli.rs` reads and dispatches them.

use super::examples;
use super::print::PrintArgs;
use crate::core::acp_args::AcpArgs;
use crate::core::approval_args::{AnswerArgs, ApprovalsArgs, ApproveArgs, DenyArgs};
use crate::core::args::{
    ActionsArgs, AttachArgs, CaptureArgs, DiffArgs, EventsArgs, ExplainArgs, InterruptArgs,
    KillArgs, LogsArgs, ParkArgs, PruneArgs, ReadArgs, ResumeArgs, RunArgs, SendArgs, SpawnArgs,
    StatusArgs, WaitArgs,
};
use crate::core::budget_args::BudgetArgs;
use crate::core::mode_args::ModeArgs;
use crate::core::model_args::ModelArgs;
use clap::{Args, Parser, Subcommand};

/// Remote-control interactive agent TUIs (claude, codex, gemini, qwen, opencode, copilot) in tmux.
///
/// umbel runs each worker's interactive CLI in a tmux pane on a private socket, knows a turn
/// ended from the CLI's own hooks, and reads answers from its own transcript.
#[derive(Debug, Parser)]
#[command(name = "umbel", version, args_conflicts_with_subcommands = true, after_help = examples::MAIN)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub print: PrintArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start a worker and wait until it is ready for prompts; prints its name.
    #[command(after_help = examples::SPAWN)]
    Spawn(WithJson<SpawnArgs>),
    /// Send a prompt and confirm it was submitted; prints the event position to `wait --since`.
    #[command(after_help = examples::SEND)]
    Send(WithJson<SendArgs>),
    /// Wait for the worker's turn to end; the exit code says how (stop 0, dead 125, …).
    #[command(after_help = examples::WAIT)]
    Wait(WithJson<WaitArgs>),
    /// Interrupt the worker's running turn with the CLI's own key (Esc) and wait until the CLI
    /// reports it interrupted; the worker stays for the next prompt. Prints the event position.
    #[command(after_help = examples::INTERRUPT)]
    Interrupt(WithJson<InterruptArgs>),
    /// Show the worker's permission mode (or agent) as its screen shows it, or switch it with the
    /// CLI's own key (Shift+Tab; opencode's Tab) until its screen shows the mode asked for.
    #[command(after_help = examples::MODE)]
    Mode(WithJson<ModeArgs>),
    /// Show the worker's model and the models its CLI's /model offers, or switch its session's
    /// model with that /model (claude, codex, gemini: the picker walked row by row and taken for
    /// this session only; copilot: `/model --session`). qwen and opencode keep spawn's --model.
    #[command(after_help = examples::MODEL)]
    Model(WithJson<ModelArgs>),
    /// Show the worker's budget — its limits and what it used (tokens and list-price dollars
    /// from its CLI's transcript, prompts from its log) — or change its limits; `--fleet`: the
    /// limits every worker of the state root shares. A limit reached stops the running turns it
    /// covers and refuses every send until it is raised.
    #[command(after_help = examples::BUDGET)]
    Budget(WithJson<BudgetArgs>),
    /// Approve the tool the worker waits on, with its CLI's own key; returns once the CLI's
    /// hooks show the tool ran. Prints what was approved.
    #[command(after_help = examples::APPROVE)]
    Approve(WithJson<ApproveArgs>),
    /// Deny the tool the worker waits on, with its CLI's own key; returns once the CLI shows
    /// the refusal (the turn ends; `--reason` is sent as the next prompt).
    #[command(after_help = examples::DENY)]
    Deny(WithJson<DenyArgs>),
    /// Answer the question the worker's model asked (claude's AskUserQuestion and the others')
    /// with one of its choices, by number or label; returns once the CLI's hooks show the
    /// answer took (`deny` declines the question instead).
    #[command(after_help = examples::ANSWER)]
    Answer(WithJson<AnswerArgs>),
    /// List every worker waiting on a tool's approval, oldest first, with the approval's id
    /// (`-f` follows: a line per approval asked for and per answer).
    #[command(after_help = examples::APPROVALS)]
    Approvals(WithJson<ApprovalsArgs>),
    /// Print the answer of the worker's last finished turn (`--turn N`, `--all`, `--since-turn N`
    /// for others).
    #[command(after_help = examples::READ)]
    Read(WithJson<ReadArgs>),
    /// List the tools the worker ran in its last turn (or `--turn N`): status, tool, input.
    #[command(after_help = examples::ACTIONS)]
    Actions(WithJson<ActionsArgs>),
    /// Show what changed between two turns' answers (default: the last two), as a unified diff.
    #[command(after_help = examples::DIFF)]
    Diff(WithJson<DiffArgs>),
    /// Take over the worker's pane in this terminal (tmux attach; detach with C-b d).
    #[command(after_help = examples::ATTACH)]
    Attach(WithJson<AttachArgs>),
    /// Show one worker's state (or all workers').
    #[command(after_help = examples::STATUS)]
    Status(WithJson<StatusArgs>),
    /// List workers.
    #[command(after_help = examples::LS)]
    Ls(JsonOnly),
    /// A live view of every worker: state, turn age, tokens, cost; keys to attach, send, kill,
    /// read (see docs/top.md).
    #[cfg(feature = "top")]
    #[command(after_help = examples::TOP)]
    Top(crate::core::args::TopArgs),
    /// Stop a worker (its folder stays as a tombstone unless --purge).
    #[command(after_help = examples::KILL)]
    Kill(WithJson<KillArgs>),
    /// End the CLI of idle workers, keeping their conversations (state `parked`); the next
    /// prompt starts each again on the same conversation (see docs/park.md).
    #[command(after_help = examples::PARK)]
    Park(WithJson<ParkArgs>),
    /// Start a parked or dead worker's CLI again on its conversation (the CLI's own resume by
    /// session id). Prints how long it took.
    #[command(after_help = examples::RESUME)]
    Resume(WithJson<ResumeArgs>),
    /// Print a worker's screen, for a person to look at.
    #[command(after_help = examples::CAPTURE)]
    Capture(WithJson<CaptureArgs>),
    /// Show the evidence behind a worker's state: CLI version, last hook events, the
    /// transcript record, the screen rule and its line, and what umbel would do next
    /// (`--screen FILE --provider P` classifies a saved screen).
    #[command(after_help = examples::EXPLAIN)]
    Explain(WithJson<ExplainArgs>),
    /// Print a worker's event log (`-f` follows it).
    #[command(after_help = examples::LOGS)]
    Logs(WithJson<LogsArgs>),
    /// Print every worker's state changes, one line each, oldest first (`-f` follows them,
    /// `--exec` runs a command per event): spawned, ready, submitted, turn-ended, needs-input,
    /// interrupted, dead, killed.
    #[command(after_help = examples::EVENTS)]
    Events(WithJson<EventsArgs>),
    /// Remove dead workers and tombstones (a parked worker is kept).
    #[command(after_help = examples::PRUNE)]
    Prune(WithJson<PruneArgs>),
    /// Run a workflow file: workers spawned as needed, steps in dependency waves (see
    /// docs/workflows.md). Prints what the final steps ended with (the run id on stderr);
    /// exit code = the failed step's.
    #[command(after_help = examples::RUN)]
    Run(RunCommand),
    /// Check tmux, the private socket, the provider binaries, the hooks, the state root and
    /// every host with workers (its own doctor, over ssh); one line per check (`ok`, `warn`,
    /// `fail` and what to do). Exit 1 if any check fails.
    #[command(after_help = examples::DOCTOR)]
    Doctor(JsonOnly),
    /// List the releases of each CLI umbel supports: the oldest, the newest tested, and those
    /// the tests ran on (see docs/providers.md). An older release is refused by spawn and -p.
    #[command(after_help = examples::RELEASES)]
    Releases(JsonOnly),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell); it completes
    /// verbs, flags, worker names and workflow files.
    #[command(after_help = examples::COMPLETIONS)]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), or write one page per verb (`--out-dir`), or the Markdown CLI
    /// reference (`--markdown`, what docs/cli.md holds).
    #[command(hide = true)]
    Man(ManArgs),
    /// Serve the verbs as MCP tools over stdio, for agent hosts (see docs/mcp.md).
    #[command(after_help = examples::MCP)]
    Mcp,
    /// Serve the Agent Client Protocol over stdio, for editors (Zed, JetBrains, Neovim): each
    /// session is a worker spawned with these flags in the session's directory (see
    /// docs/acp.md).
    #[command(after_help = examples::ACP)]
    Acp(AcpArgs),
    /// Serve the fleet to a browser: every worker, its turns and screen, its pending approval,
    /// and forms to send, interrupt, approve, deny, park, resume and kill (see docs/web.md).
    /// Prints the URL with a fresh access token on the first line of stdout.
    #[command(after_help = examples::SERVE)]
    Serve(crate::core::serve_args::ServeArgs),
    /// Run a verb another umbel forwarded over ssh (its request on stdin; docs/remote.md).
    #[command(hide = true)]
    RemoteExec,
    /// End a warm `-p`'s worker and start the next warm one (started detached by `-p --warm`).
    #[command(hide = true)]
    WarmRefill(WarmRefillArgs),
    /// End a warm worker nobody took once its time is up (run by the tmux server).
    #[command(hide = true)]
    WarmExpire(WarmExpireArgs),
    /// Answer a worker's pending approval by its rules (started by its permission hook).
    #[command(hide = true)]
    RuleAnswer {
        /// The worker.
        name: String,
    },
}

#[derive(Debug, Args)]
pub struct WarmRefillArgs {
    /// The `-p`'s own worker, to end first.
    #[arg(long)]
    pub retire: Option<String>,
    /// How long the new warm worker waits for its `-p`.
    #[arg(long)]
    pub ttl_ms: u64,
    /// When the `-p` handed over (ms since the epoch): a `kill --all` since stops the refill.
    #[arg(long, default_value_t = 0)]
    pub after_ms: u64,
    /// The `-p`'s arguments.
    #[arg(last = true, allow_hyphen_values = true)]
    pub argv: Vec<String>,
}

#[derive(Debug, Args)]
pub struct WarmExpireArgs {
    /// The warm worker.
    pub name: String,
    /// Its CLI session id: a timer never ends a later worker of the same name.
    #[arg(long)]
    pub token: String,
    /// When its time is up (ms since the epoch).
    #[arg(long)]
    pub at: u64,
}

#[derive(Debug, Args)]
pub struct WithJson<T: Args> {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    // After `json`, so a help heading the verb's flags open does not take `--json` along.
    #[command(flatten)]
    pub args: T,
}

#[derive(Debug, Args)]
pub struct RunCommand {
    #[command(flatten)]
    pub args: RunArgs,
    /// Print the run record (or, with --check, the waves) as JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress display on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Print the CLI reference as Markdown instead.
    #[arg(long, conflicts_with = "out_dir")]
    pub markdown: bool,
    /// Write umbel.1 and umbel-<verb>.1 into this folder instead of printing.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct JsonOnly {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
