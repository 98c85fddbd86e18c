//! Shell completion that knows umbel's world: worker names for the verbs that take one, and
//! workflow files (`*.yaml`, `*.yml`) for `run`, besides the verbs and flags. It is clap's
//! dynamic completion: the shell calls `COMPLETE=<shell> umbel -- <words>` for each completion,
//! and `umbel completions <shell>` (or `COMPLETE=<shell> umbel`) prints the script that
//! registers this.

use crate::operations::Ctx;
use clap::Command;
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate, PathCompleter};
use clap_complete::env::{CompleteEnv, EnvCompleter};
use std::ffi::OsStr;

/// The variable the shell sets to ask for completions (clap's convention).
pub const VAR: &str = "COMPLETE";

/// Answers the shell's completion request and exits, when `COMPLETE` is set; returns otherwise.
pub fn answer_shell(factory: fn() -> Command) {
    CompleteEnv::with_factory(move || with_completers(factory()))
        .var(VAR)
        .complete();
}

/// `cmd` with completers on every worker-name argument and on `run`'s file.
pub fn with_completers(mut cmd: Command) -> Command {
    let verbs: Vec<String> = cmd
        .get_subcommands()
        .filter(|c| c.get_name() != "spawn" && has_arg(c, "name"))
        .map(|c| c.get_name().to_string())
        .collect();
    for verb in verbs {
        cmd = cmd.mut_subcommand(verb, |c| {
            with_completer(c, "name", ArgValueCompleter::new(workers))
        });
    }
    if cmd
        .find_subcommand("run")
        .is_some_and(|c| has_arg(c, "file"))
    {
        cmd = cmd.mut_subcommand("run", |c| {
            with_completer(c, "file", ArgValueCompleter::new(workflow_files()))
        });
    }
    cmd
}

/// `cmd` with `completer` on its argument `id`, changed in place: `mut_arg` would move the
/// argument to the end, renumbering the positionals.
fn with_completer(cmd: Command, id: &str, completer: ArgValueCompleter) -> Command {
    cmd.mut_args(|a| {
        if a.get_id() == id {
            a.add(completer.clone())
        } else {
            a
        }
    })
}

fn has_arg(cmd: &Command, id: &str) -> bool {
    cmd.get_arguments().any(|a| a.get_id() == id)
}

/// The workers in the state root umbel would use here, that start with `current`.
fn workers(current: &OsStr) -> Vec<CompletionCandidate> {
    let prefix = current.to_string_lossy();
    let env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let Ok(ctx) = Ctx::from_env(env) else {
        return Vec::new();
    };
    let names = ctx.state.list().unwrap_or_default();
    names
        .iter()
        .map(|n| n.as_str())
        .filter(|n| n.starts_with(&*prefix))
        .map(CompletionCandidate::new)
        .collect()
}

/// Files that look like workflows (`.yaml`, `.yml`), and folders to look in.
fn workflow_files() -> PathCompleter {
    PathCompleter::any()
        .filter(|path| path.is_dir() || path.extension().is_some_and(|e| e == "yaml" || e == "yml"))
}

/// The registration script for `shell` (`umbel completions bash`), calling this binary back.
pub fn script(shell: clap_complete::Shell, bin: &str) -> Vec<u8> {
    // As clap does: the binary as it was called (`umbel` is then looked up on PATH each time,
    // so an upgrade in place keeps working), made absolute when it was a relative path.
    let called = std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| bin.into());
    let completer = match std::env::current_dir() {
        Ok(dir) if called.components().count() > 1 => dir.join(&called),
        _ => called,
    };
    let completer = completer.to_string_lossy();
    let shells: [&dyn EnvCompleter; 5] = [
        &clap_complete::env::Bash,
        &clap_complete::env::Zsh,
        &clap_complete::env::Fish,
        &clap_complete::env::Elvish,
        &clap_complete::env::Powershell,
    ];
    let name = shell.to_string();
    let mut buf = Vec::new();
    if let Some(env) = shells.iter().find(|s| s.is(&name)) {
        // Writing to a Vec cannot fail.
        let _ = env.write_registration(VAR, bin, bin, &completer, &mut buf);
    }
    buf
}
