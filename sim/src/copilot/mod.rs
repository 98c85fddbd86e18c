//! fake-copilot: a stand-in for GitHub Copilot CLI 1.0.102 (npm `@github/copilot`), on the
//! shared fake engine ([`crate::engine`]), recorded in `tests/data/copilot/` (docs/sim-copilot.md).
//!
//! copilot fires Claude-format hooks from `$COPILOT_HOME/settings.json` ([`payloads`]) and
//! keeps a session log of its own ([`log`], [`records`], [`ephemeral`]). [`cli`] reads the
//! command line, [`home`] what copilot keeps in `COPILOT_HOME`, [`session`] holds one session,
//! [`turn`] (with [`tool`]) is one turn on the engine's timeline, [`screens`] draws (from a
//! [`view`]), [`tui`]
//! (with [`startup`]'s dialogs) is the interactive program and [`print`] is `-p`; [`release`]
//! says what 1.0.89 does differently; [`mode`] is the agent mode Shift+Tab cycles.

pub mod cli;
pub mod decision;
pub mod ephemeral;
#[cfg(test)]
mod fixture_tests;
pub mod held_paste;
pub mod home;
pub mod log;
pub mod mode;
pub mod payloads;
pub mod print;
pub mod records;
pub mod release;
pub mod screens;
pub mod session;
pub mod startup;
pub mod tool;
pub mod tui;
pub mod turn;
pub mod view;

use std::io::Read;
use std::process::ExitCode;

use crate::engine::entry;
use crate::scenario::Scenario;

/// The binary's `main`: a failure is one line on stderr, status 1.
pub fn main() -> ExitCode {
    entry::main(run, |msg| {
        entry::error_line("fake-copilot", msg, &["Error:", "error:"])
    })
}

/// The prompt piped in on stdin (when stdin is no terminal), else `None`.
fn piped_prompt() -> Result<Option<String>, String> {
    if crate::term::stdin_is_tty() {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Runs fake-copilot with `args` (without the program name); returns the exit status.
pub fn run(args: &[String]) -> Result<i32, String> {
    crate::release::check()?;
    let version = release::version_line(release::current());
    let Some(opts) = entry::options(cli::parse(args)?, &version) else {
        return Ok(0);
    };
    if let Some(dir) = &opts.dir {
        std::env::set_current_dir(dir)
            .map_err(|e| format!("error: cannot change directory to {dir}: {e}"))?;
    }
    let scenario = Scenario::from_env()?;
    scenario.start_children()?;
    // With -p, stdin is not read; without it, a piped stdin is the prompt.
    let prompt = match &opts.prompt {
        Some(p) => Some(p.clone()),
        None => piped_prompt()?,
    };
    match prompt {
        Some(p) if p.trim().is_empty() => Err("Error: No prompt provided".into()),
        Some(p) => print::run(&opts, scenario, p),
        None => tui::run(&opts, scenario),
    }
}
