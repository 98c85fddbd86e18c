//! The command line: `umbel -p …` and the supervisor verbs, parsed with clap from the shared
//! input structs in `core::args`.

use super::cli_commands::{Cli, Command, ManArgs, WarmRefillArgs};
use super::output::report;
use super::print::{self, no_prompt};
use super::verbs;
use crate::core::args::{SendArgs, StatusArgs};
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::operations::{Ctx, doctor};
use clap::{CommandFactory, FromArgMatches, Parser};
use std::io::{IsTerminal, Read};
use std::process::ExitCode;

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
