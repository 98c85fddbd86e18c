//! fake-gemini: a stand-in for Gemini CLI 0.61.0 (see docs/sim-gemini.md).
//!
//! `cli` parses the command line; `home` finds `$GEMINI_CLI_HOME/.gemini`
//! and its settings, trusted folders and projects map; `session` holds one
//! session's state; `payloads`, `chat`, `screens` and `boxes` shape hook
//! payloads, chat records and screens like the real CLI; `turn` (with
//! `tool`) runs one scripted turn; `startup` draws the trust and auth
//! dialogs; `tui` is the interactive program and `headless` is `-p` (with
//! `output` for its JSON shapes).

pub mod ask;
pub mod boxes;
pub mod chat;
pub mod cli;
#[cfg(test)]
mod fixture_tests;
pub mod flavor;
pub mod headless;
pub mod home;
pub mod model_picker;
pub mod output;
pub mod payloads;
pub mod release;
pub mod screens;
pub mod session;
pub mod startup;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod timeline_tests;
pub mod tool;
pub mod tui;
pub mod turn;

use std::process::ExitCode;

use crate::engine::entry;
use crate::scenario::Scenario;

/// The binary's `main`: usage errors and other failures print one line on
/// stderr (`fake-gemini: …` for the fake's own) and exit 1.
pub fn main() -> ExitCode {
    entry::main(run, |failure| match failure {
        Failure::Usage(msg) => msg,
        Failure::Fake(msg) => format!("fake-gemini: {msg}"),
    })
}

/// Why `run` failed.
#[derive(Debug, PartialEq)]
pub enum Failure {
    /// A usage error, printed as the real CLI words it.
    Usage(String),
    /// Anything else (files, terminal, scenario).
    Fake(String),
}

/// Runs fake-gemini with `args` (without the program name); returns the exit status.
pub fn run(args: &[String]) -> Result<i32, Failure> {
    crate::release::check().map_err(Failure::Fake)?;
    let action = cli::parse(args).map_err(Failure::Usage)?;
    let Some(opts) = entry::options(action, &release::current().to_string()) else {
        return Ok(0);
    };
    let scenario = Scenario::from_env().map_err(Failure::Fake)?;
    scenario.start_children().map_err(Failure::Fake)?;
    let headless = opts.prompt.is_some() || !crate::term::stdin_is_tty();
    if headless {
        headless::run(&opts, scenario).map_err(Failure::Fake)
    } else {
        tui::run(&opts, scenario).map_err(Failure::Fake)
    }
}
