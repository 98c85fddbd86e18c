//! The CLI's one hook for workers on other hosts: a verb on a remote worker (or `spawn
//! --host`) is run by the umbel on its host, its output and exit status passed through
//! unchanged; `status`/`ls` add every host's workers. Everything else stays local.

use super::output::{out_json, outln, report};
use super::print::PrintArgs;
use super::status_view::{print_table, warn_problems};
use crate::adapters::ssh::{Ssh, Stdout};
use crate::core::args::StatusArgs;
use crate::core::errors::Result;
use crate::core::remote::{check_host, classify, forwarded_argv, map_flag};
use crate::operations::Ctx;
use crate::operations::remote::forward::Request;
use crate::operations::remote::{self, fleet, guard, records};

/// What a command line asks of workers, as far as hosts matter.
#[derive(Debug)]
pub enum Target<'a> {
    /// `-p --host HOST …`, or `-p --name W` for a remote worker `W`: the whole print run on
    /// the host (without either, `-p` is local).
    Print {
        host: Option<&'a str>,
        args: &'a PrintArgs,
    },
    /// A verb on one named worker.
    Named { name: &'a str, verb: Verb },
    /// `status` (all) or `ls`.
    Fleet,
    /// `kill --all`.
    KillAll { purge: bool },
}

/// The named verbs that need more than passing the command line on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// `send` whose prompt is on standard input (read here, sent along).
    SendStdin,
    /// `attach` (a terminal, over `ssh -tt`).
    Attach,
    /// `kill` (`--purge` forgets the record too).
    Kill {
        purge: bool,
    },
    Other,
}

/// Runs `target` on the hosts it concerns and returns the exit status, or `None` when it is
/// purely local (the caller goes on as usual). `typed` is the command line after `umbel`.
pub fn route(
    ctx: &Ctx,
    target: Target,
    typed: &[String],
    json: bool,
    read_stdin: fn() -> Result<Vec<u8>>,
) -> Option<u8> {
    let done = match target {
        Target::Print { host, args } => match print_host(ctx, host, args) {
            Ok(None) => return None,
            Ok(Some(host)) => print(ctx, &host, args, typed, read_stdin),
            Err(e) => Err(e),
        },
        Target::Named { name, verb } => match records::find(ctx, name) {
            Ok(None) => return None,
            Ok(Some(record)) => named(ctx, &record.host, name, verb, typed, read_stdin),
            Err(e) => Err(e),
        },
        Target::Fleet if records::list(ctx).is_empty() => return None,
        Target::Fleet => fleet_view(ctx, json),
        Target::KillAll { purge } => {
            kill_all(ctx, purge);
            return None;
        }
    };
    Some(done.unwrap_or_else(|e| report(&e, json)))
}

/// Where a print run happens: `--host`, else the host of the remote worker `--name` names;
/// `None` here.
fn print_host(ctx: &Ctx, host: Option<&str>, args: &PrintArgs) -> Result<Option<String>> {
    if let Some(host) = host {
        return Ok(Some(host.to_string()));
    }
    let Some(name) = args.spawn.name.as_deref() else {
        return Ok(None);
    };
    Ok(records::find(ctx, name)?.map(|record| record.host))
}

fn print(
    ctx: &Ctx,
    host: &str,
    args: &PrintArgs,
    typed: &[String],
    read_stdin: fn() -> Result<Vec<u8>>,
) -> Result<u8> {
    check_host(host)?;
    let env = remote::verbs::secrets(ctx, &args.spawn)?;
    let provider = args.spawn.provider;
    let stdin = super::print::piped_stdin(args.prompt.is_some(), provider, read_stdin)?;
    let request = Request {
        argv: schema_as_content(&forwarded_argv(typed))?,
        env,
        stdin,
        ..Request::default()
    };
    Ok(remote::forward(ctx, host, request, Stdout::Pass)?.code)
}

fn named(
    ctx: &Ctx,
    host: &str,
    name: &str,
    verb: Verb,
    typed: &[String],
    read_stdin: fn() -> Result<Vec<u8>>,
) -> Result<u8> {
    if verb == Verb::Attach {
        use std::io::IsTerminal;
        let terminal = crate::operations::attach::Terminal {
            stdin: std::io::stdin().is_terminal(),
            stdout: std::io::stdout().is_terminal(),
        };
        crate::operations::attach::needs_terminal(terminal, name)?;
        let code = Ssh::from_env(ctx.state.path(), &ctx.env).attach(host, name)?;
        return match classify(host, code, "") {
            Some(err) => Err(err),
            None => Ok(code.and_then(|c| u8::try_from(c).ok()).unwrap_or(1)),
        };
    }
    let stdin = match verb {
        Verb::SendStdin => read_stdin()?,
        _ => Vec::new(),
    };
    let request = Request {
        argv: schema_as_content(typed)?,
        stdin,
        ..Request::default()
    };
    let done = remote::forward(ctx, host, request, Stdout::Pass)?;
    if verb == (Verb::Kill { purge: true }) && done.code == 0 {
        remote::verbs::forget_unless_kept(ctx, host, name)?;
    }
    Ok(done.code)
}

/// The command line with a `--schema FILE` (a file here, relative to this folder) turned into
/// the schema's content (inline JSON, which the host's `--schema` reads): the host cannot read
/// a path from here. Everything after `--` is left alone.
fn schema_as_content(typed: &[String]) -> Result<Vec<String>> {
    map_flag(typed, "schema", |given| {
        let here = crate::adapters::host::current_dir_or_error()?;
        guard::schema_flag(std::path::Path::new(given), &here).map(Some)
    })
}

/// `kill --all`: every remote worker first (a host that cannot be reached is reported and
/// keeps its records), then the local ones as usual.
fn kill_all(ctx: &Ctx, purge: bool) {
    let what = if purge { "purged" } else { "killed" };
    for record in records::list(ctx) {
        match remote::verbs::kill(ctx, &record, purge, false) {
            Ok(()) => outln(&format!("{what} {}", record.name)),
            Err(e) => {
                report(&e, false);
            }
        }
    }
}

/// `status`/`ls` with hosts: the local workers, then each host's, with a HOST column.
fn fleet_view(ctx: &Ctx, json: bool) -> Result<u8> {
    let list = fleet::status_everywhere(ctx, &StatusArgs::default())?;
    warn_problems(&list);
    if json {
        out_json(&list);
    } else {
        print_table(&list);
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_without_a_schema_or_with_one_after_dashes_is_forwarded_as_typed() {
        let typed: Vec<String> = ["send", "w", "--accept=true", "--", "--schema", "s.json"]
            .map(String::from)
            .to_vec();
        assert_eq!(schema_as_content(&typed).unwrap(), typed);
    }

    #[cfg(feature = "schema")]
    #[test]
    fn an_inline_schema_stays_inline_and_a_missing_file_is_refused_here() {
        let typed = ["wait", "w", "--schema", "true"].map(String::from).to_vec();
        let err = schema_as_content(&typed).unwrap_err().to_string();
        assert!(err.contains("--schema true"), "{err}");
        let inline = ["wait", "w", r#"--schema={"type": "object"}"#].map(String::from);
        assert_eq!(
            schema_as_content(&inline).unwrap(),
            ["wait", "w", r#"--schema={"type":"object"}"#]
        );
    }
}
