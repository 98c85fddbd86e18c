//! The command line: `umbel -p …` and the supervisor verbs, parsed with clap from the shared
//! input structs in `core::args`.

use super::examples;
use super::output::report;
use super::print::{self, PrintArgs, no_prompt};
use super::verbs;
use crate::core::acp_args::AcpArgs;
use crate::core::approval_args::{AnswerArgs, ApprovalsArgs, ApproveArgs, DenyArgs};
use crate::core::args::{
    ActionsArgs, AttachArgs, CaptureArgs, DiffArgs, EventsArgs, ExplainArgs, InterruptArgs,
    KillArgs, LogsArgs, ParkArgs, PruneArgs, ReadArgs, ResumeArgs, RunArgs, SendArgs, SpawnArgs,
    StatusArgs, WaitArgs,
};
use crate::core::budget_args::BudgetArgs;
use crate::core::errors::{Error, Result};
use crate::core::mode_args::ModeArgs;
use crate::core::model_args::ModelArgs;
use crate::core::name::WorkerName;
use crate::operations::{Ctx, doctor};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::{IsTerminal, Read};
use std::process::ExitCode;

/// Remote-control interactive agent TUIs (claude, codex, gemini, qwen, opencode, copilot) in tmux.
///
/// umbel runs each worker's interactive CLI in a tmux pane on a private socket, knows a turn
/// ended from the CLI's own hooks, and reads answers from its own transcript.
#[derive(Debug, Parser)]
#[command(name = "umbel", version, args_conflicts_with_subcommands = true, after_help = examples::MAIN)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    print: PrintArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
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
struct WarmRefillArgs {
    /// The `-p`'s own worker, to end first.
    #[arg(long)]
    retire: Option<String>,
    /// How long the new warm worker waits for its `-p`.
    #[arg(long)]
    ttl_ms: u64,
    /// When the `-p` handed over (ms since the epoch): a `kill --all` since stops the refill.
    #[arg(long, default_value_t = 0)]
    after_ms: u64,
    /// The `-p`'s arguments.
    #[arg(last = true, allow_hyphen_values = true)]
    argv: Vec<String>,
}

#[derive(Debug, Args)]
struct WarmExpireArgs {
    /// The warm worker.
    name: String,
    /// Its CLI session id: a timer never ends a later worker of the same name.
    #[arg(long)]
    token: String,
    /// When its time is up (ms since the epoch).
    #[arg(long)]
    at: u64,
}

#[derive(Debug, Args)]
struct WithJson<T: Args> {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    // After `json`, so a help heading the verb's flags open does not take `--json` along.
    #[command(flatten)]
    args: T,
}

#[derive(Debug, Args)]
struct RunCommand {
    #[command(flatten)]
    args: RunArgs,
    /// Print the run record (or, with --check, the waves) as JSON.
    #[arg(long)]
    json: bool,
    /// No progress display on stderr.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Debug, Args)]
struct ManArgs {
    /// Print the CLI reference as Markdown instead.
    #[arg(long, conflicts_with = "out_dir")]
    markdown: bool,
    /// Write umbel.1 and umbel-<verb>.1 into this folder instead of printing.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
struct JsonOnly {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// `--version` also says how umbel was installed and how to update it (looked up only when
/// asked: it reads a file or two).
fn with_long_version(command: clap::Command) -> clap::Command {
    if !std::env::args_os().any(|a| a == "--version") {
        return command;
    }
    let line = crate::adapters::installed::this_umbel().line();
    let long = format!("{}\n{line}", env!("CARGO_PKG_VERSION"));
    // Once per process, for clap's 'static version text.
    command.long_version(&*Box::leak(long.into_boxed_str()))
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    super::completion::answer_shell(Cli::command);
    if let Some(code) = unknown_verb() {
        return code;
    }
    let matches = match with_long_version(Cli::command()).try_get_matches() {
        Ok(matches) => matches,
        Err(e) => return super::usage_errors::report(&e),
    };
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return super::usage_errors::report(&e),
    };
    cli.print.provider_given =
        matches.value_source("provider") == Some(clap::parser::ValueSource::CommandLine);
    let env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let json = wants_json(&cli);
    // These need no state root: do not create one.
    match &cli.command {
        Some(Command::Completions { shell }) => {
            completions(*shell);
            return ExitCode::SUCCESS;
        }
        Some(Command::Man(args)) => return ExitCode::from(man(args)),
        Some(Command::RemoteExec) => return ExitCode::from(remote_exec(env)),
        _ => {}
    }
    let ctx = match context(&cli, env, json) {
        Ok(ctx) => ctx,
        Err(code) => return code,
    };
    super::signals::on_signals(&ctx, !runs_top(&cli));
    let typed: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(target) = remote_target(&cli)
        && let Some(code) = super::remote::route(&ctx, target, &typed, json, read_stdin)
    {
        return ExitCode::from(code);
    }
    cli.print.typed = typed;
    let status = dispatch(&ctx, cli);
    if ctx.var(DEBUG_META_READS).is_some() {
        errln!(
            "umbel: debug: meta.json reads: {}",
            crate::adapters::state::meta_reads()
        );
    }
    ExitCode::from(with_output_written(status))
}

/// The exit code once stdout is judged: a command whose output could not all be written (but
/// for a broken pipe) says so and exits 1 rather than 0.
fn with_output_written(status: u8) -> u8 {
    match super::output::stdout_failure() {
        Some(why) if status == 0 => {
            errln!("umbel: the output could not all be written: {why}");
            1
        }
        _ => status,
    }
}

/// The context of every verb that has a state root; `doctor` only looks (it creates none), and
/// reports a state root it cannot use as its one failed check.
fn context(cli: &Cli, env: Vec<(String, String)>, json: bool) -> Result<Ctx, ExitCode> {
    let only_looks = matches!(cli.command, Some(Command::Doctor(_)));
    let ctx = match only_looks {
        true => Ctx::from_env_looking(env),
        false => Ctx::from_env(env),
    };
    ctx.map_err(|e| match only_looks {
        true => ExitCode::from(super::doctor::print(&[doctor::unusable_state(&e)], json)),
        false => ExitCode::from(report(&e, json)),
    })
}

/// Whether the command is `top` (a build without the `top` feature has no such verb).
fn runs_top(cli: &Cli) -> bool {
    match cli.command {
        #[cfg(feature = "top")]
        Some(Command::Top(_)) => true,
        _ => false,
    }
}

/// What the command line asks of workers on other hosts (docs/remote.md).
fn remote_target(cli: &Cli) -> Option<super::remote::Target<'_>> {
    use super::remote::{Target, Verb};
    fn named(name: &str, verb: Verb) -> Option<Target<'_>> {
        Some(Target::Named { name, verb })
    }
    match &cli.command {
        // `-p --name W` runs on W's host when W is a remote worker.
        None if cli.print.spawn.host.is_some() || cli.print.print => Some(Target::Print {
            host: cli.print.spawn.host.as_deref(),
            args: &cli.print,
        }),
        Some(Command::Send(c)) => named(
            &c.args.name,
            match c.args.prompt.as_deref() {
                Some(p) if p != "-" => Verb::Other,
                _ => Verb::SendStdin,
            },
        ),
        // Several workers are waited on here, under one watch (local workers only).
        Some(Command::Wait(c)) if c.args.is_many() => None,
        Some(Command::Wait(c)) => named(&c.args.name, Verb::Other),
        Some(Command::Read(c)) => named(&c.args.name, Verb::Other),
        Some(Command::Actions(c)) => named(&c.args.name, Verb::Other),
        Some(Command::Diff(c)) => named(&c.args.name, Verb::Other),
        Some(Command::Attach(a)) => named(&a.args.name, Verb::Attach),
        Some(Command::Status(c)) => match &c.args.name {
            Some(name) => named(name, Verb::Other),
            None => Some(Target::Fleet),
        },
        Some(Command::Ls(_)) => Some(Target::Fleet),
        Some(Command::Kill(a)) => match &a.args.name {
            Some(name) => named(
                name,
                Verb::Kill {
                    purge: a.args.purge,
                },
            ),
            None => Some(Target::KillAll {
                purge: a.args.purge,
            }),
        },
        Some(Command::Capture(a)) => named(&a.args.name, Verb::Other),
        Some(Command::Logs(a)) => named(&a.args.name, Verb::Other),
        Some(Command::Mode(a)) => named(&a.args.name, Verb::Other),
        Some(Command::Model(a)) => named(&a.args.name, Verb::Other),
        Some(Command::Budget(a)) => named(a.args.name.as_ref()?, Verb::Other),
        // `explain` asks a remote worker's host itself (operations::explain), naming the host.
        _ => None,
    }
}

/// `umbel remote-exec`: the verb another umbel forwarded, run here with its request's
/// variables and standard input, and cancelled when the channel closes.
fn remote_exec(env: Vec<(String, String)>) -> u8 {
    use crate::operations::remote::output_file;
    let received = match super::remote_exec::receive(env) {
        Ok(received) => received,
        Err(e) => return report(&e, false),
    };
    if received.argv.first().map(String::as_str) == Some(output_file::VERB) {
        return super::remote_exec::output_file(received);
    }
    let argv = std::iter::once("umbel".to_string()).chain(received.argv.clone());
    let matches = match Cli::command().try_get_matches_from(argv) {
        Ok(matches) => matches,
        Err(e) => {
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return 2;
        }
    };
    cli.print.provider_given =
        matches.value_source("provider") == Some(clap::parser::ValueSource::CommandLine);
    cli.print.typed = received.argv;
    let json = wants_json(&cli);
    if matches!(
        cli.command,
        Some(
            Command::RemoteExec
                | Command::Mcp
                | Command::Acp(_)
                | Command::Serve(_)
                | Command::Attach(_)
        )
    ) {
        let e = Error::usage("this verb is not forwarded to another host");
        return report(&e, json);
    }
    let ctx = match Ctx::from_env(received.env) {
        Ok(ctx) => ctx,
        Err(e) => return report(&e, json),
    };
    super::signals::on_signals(&ctx, true);
    if let Some(super::remote::Target::Named { name, .. }) = remote_target(&cli) {
        super::remote_exec::enter_folder_of(&ctx, name);
    }
    super::remote_exec::set_forwarded_stdin(received.stdin);
    super::remote_exec::cancel_on_eof(ctx.cancel.clone());
    dispatch(&ctx, cli)
}

/// Set, the CLI prints how many times it read a meta.json (a worker is loaded once per command).
const DEBUG_META_READS: &str = "UMBEL_DEBUG_META_READS";

/// Answers before clap parses: bare `umbel` gets the short help, `umbel spwan w` (a first word
/// that is no verb, without `-p`) "did you mean"; both exit 2.
fn unknown_verb() -> Option<ExitCode> {
    let command = Cli::command();
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.is_empty() {
        errp!("{}", super::suggest::short_help(&command));
        return Some(ExitCode::from(2));
    }
    let message = super::suggest::mistyped_verb(&command, &args)?;
    errln!("umbel: {message}");
    errln!("umbel: see `umbel --help`");
    Some(ExitCode::from(2))
}

fn wants_json(cli: &Cli) -> bool {
    match &cli.command {
        Some(Command::Spawn(c)) => c.json,
        Some(Command::Send(c)) => c.json,
        Some(Command::Wait(c)) => c.json,
        Some(Command::Events(c)) => c.json,
        Some(Command::Interrupt(c)) => c.json,
        Some(Command::Mode(c)) => c.json,
        Some(Command::Model(c)) => c.json,
        Some(Command::Budget(c)) => c.json,
        Some(Command::Approve(c)) => c.json,
        Some(Command::Deny(c)) => c.json,
        Some(Command::Answer(c)) => c.json,
        Some(Command::Approvals(c)) => c.json,
        Some(Command::Read(c)) => c.json,
        Some(Command::Actions(c)) => c.json,
        Some(Command::Diff(c)) => c.json,
        Some(Command::Attach(c)) => c.json,
        Some(Command::Status(c)) => c.json,
        Some(Command::Ls(c)) => c.json,
        Some(Command::Kill(c)) => c.json,
        Some(Command::Park(c)) => c.json,
        Some(Command::Resume(c)) => c.json,
        #[cfg(feature = "top")]
        Some(Command::Top(_)) => false,
        Some(Command::Doctor(c)) => c.json,
        Some(Command::Releases(c)) => c.json,
        Some(Command::Prune(c)) => c.json,
        Some(Command::Run(c)) => c.json,
        Some(Command::Capture(c)) => c.json,
        Some(Command::Logs(c)) => c.json,
        Some(Command::Explain(c)) => c.json,
        Some(Command::Completions { .. }) => false,
        Some(Command::Man(_)) => false,
        Some(Command::Mcp | Command::Acp(_) | Command::Serve(_) | Command::RemoteExec) => false,
        Some(Command::WarmRefill(_) | Command::WarmExpire(_) | Command::RuleAnswer { .. }) => false,
        None => cli.print.output_format != print::OutputFormat::Text,
    }
}

fn dispatch(ctx: &Ctx, cli: Cli) -> u8 {
    let json = wants_json(&cli);
    let result = match cli.command {
        None if cli.print.print => return print::run(ctx, cli.print, read_stdin),
        None => verbs::nothing(cli.print.prompt.is_some()),
        Some(Command::Spawn(c)) => verbs::spawn(ctx, &c.args, json),
        Some(Command::Send(c)) => {
            prompt_of(&c.args).and_then(|prompt| verbs::send(ctx, &c.args, &prompt, json))
        }
        Some(Command::Wait(c)) => verbs::wait(ctx, &c.args, json),
        Some(Command::Interrupt(c)) => verbs::interrupt(ctx, &c.args, json),
        Some(Command::Mode(c)) => verbs::mode(ctx, &c.args, json),
        Some(Command::Model(c)) => verbs::model(ctx, &c.args, json),
        Some(Command::Budget(c)) => verbs::budget(ctx, &c.args, json),
        Some(Command::Approve(c)) => super::approvals::approve(ctx, &c.args, json),
        Some(Command::Deny(c)) => super::approvals::deny(ctx, &c.args, json),
        Some(Command::Answer(c)) => super::approvals::answer(ctx, &c.args, json),
        Some(Command::Approvals(c)) => super::approvals::list(ctx, &c.args, json),
        Some(Command::Read(c)) => verbs::read(ctx, &c.args, json),
        Some(Command::Actions(c)) => verbs::actions(ctx, &c.args, json),
        Some(Command::Diff(c)) => verbs::diff(ctx, &c.args, json),
        Some(Command::Attach(c)) => verbs::attach(ctx, &c.args),
        Some(Command::Status(c)) => verbs::status(ctx, &c.args, json),
        Some(Command::Ls(c)) => verbs::status(ctx, &StatusArgs::default(), c.json),
        #[cfg(feature = "top")]
        Some(Command::Top(args)) => super::top::run(ctx, &args),
        Some(Command::Kill(c)) => verbs::kill(ctx, &c.args, json),
        Some(Command::Park(c)) => verbs::park(ctx, &c.args, json),
        Some(Command::Resume(c)) => verbs::resume(ctx, &c.args, json),
        Some(Command::Capture(c)) => verbs::capture(ctx, &c.args, json),
        Some(Command::Logs(c)) => verbs::logs(ctx, &c.args, json),
        Some(Command::Events(c)) => verbs::events(ctx, &c.args, json),
        Some(Command::Explain(c)) => verbs::explain(ctx, &c.args, json),
        Some(Command::Prune(c)) => verbs::prune(ctx, &c.args, json),
        Some(Command::Run(c)) => super::run::run(ctx, &c.args, json, c.quiet),
        Some(Command::Doctor(c)) => Ok(super::doctor::print(&doctor::doctor(ctx), c.json)),
        Some(Command::Releases(c)) => Ok(super::doctor::releases(c.json)),
        Some(Command::Completions { shell }) => {
            completions(shell);
            Ok(0)
        }
        Some(Command::Man(args)) => Ok(man(&args)),
        Some(Command::Mcp) => Ok(super::mcp::serve(ctx)),
        Some(Command::Acp(args)) => super::acp::serve(ctx, &args),
        Some(Command::Serve(args)) => super::web::serve(ctx, &args),
        Some(Command::RemoteExec) => Err(Error::usage(
            "`umbel remote-exec` runs a verb forwarded by another umbel; it is not run by hand",
        )),
        Some(Command::WarmRefill(args)) => warm_refill(ctx, args),
        Some(Command::WarmExpire(args)) => WorkerName::parse(&args.name).and_then(|name| {
            crate::operations::warm::expire(ctx, &name, &args.token, args.at).map(|()| 0)
        }),
        Some(Command::RuleAnswer { name }) => super::approvals::by_rules(ctx, &name, json),
    };
    result.unwrap_or_else(|e| report(&e, json))
}

/// `umbel warm-refill`: the `-p`'s arguments parsed again, as the `-p` parsed them.
fn warm_refill(ctx: &Ctx, args: WarmRefillArgs) -> Result<u8> {
    let argv = std::iter::once("umbel".to_string()).chain(args.argv);
    let cli = Cli::try_parse_from(argv).map_err(|e| Error::usage(e.to_string()))?;
    let ttl = std::time::Duration::from_millis(args.ttl_ms);
    print::warm::refill(
        ctx,
        &cli.print,
        (args.retire.as_deref(), args.after_ms),
        ttl,
    )
}

fn completions(shell: clap_complete::Shell) {
    let script = super::completion::script(shell, "umbel");
    super::output::out(&String::from_utf8_lossy(&script));
}

fn man(args: &ManArgs) -> u8 {
    let command = <Cli as clap::CommandFactory>::command();
    super::reference::man(&command, args.markdown, args.out_dir.as_deref())
}

/// The prompt of `send`: the argument, or standard input for `-`/none.
fn prompt_of(args: &SendArgs) -> Result<Vec<u8>> {
    match args.prompt.as_deref() {
        Some(p) if p != "-" => Ok(p.as_bytes().to_vec()),
        _ => read_stdin(),
    }
}

fn read_stdin() -> Result<Vec<u8>> {
    if let Some(bytes) = super::remote_exec::forwarded_stdin() {
        return Ok(bytes);
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(no_prompt());
    }
    // A prompt is at most MAX_PROMPT bytes: reading stops one past it (an endless pipe is
    // refused, not held in memory).
    let limit = crate::operations::send::MAX_PROMPT;
    let mut buf = Vec::new();
    stdin
        .lock()
        .take(limit as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io("cannot read", "standard input", e))?;
    if buf.len() > limit {
        return Err(Error::usage(format!(
            "standard input holds more than {limit} bytes; umbel pastes at most 1 MiB into a TUI — \
             put the text in a file and point the prompt at it"
        )));
    }
    Ok(buf)
}

#[cfg(test)]
#[path = "cli_tests.rs"]
mod tests;
