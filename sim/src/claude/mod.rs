//! fake-claude: a stand-in for Claude Code 2.1.332.
//!
//! `cli` parses the command line; `config` finds the config dir, `.claude.json`
//! and settings; `session` holds one session's state; `payloads`,
//! `transcript` and `screens` shape hook payloads, JSONL records and screens
//! like the real CLI; `turn` runs one scripted turn; `tui` (with `dialogs`)
//! is the interactive program and `print` is `-p`.

pub mod ask;
pub mod cli;
pub mod config;
pub mod dialogs;
#[cfg(test)]
mod fixture_tests;
pub mod gates;
pub mod model_picker;
pub mod notice;
pub mod payloads;
pub mod print;
pub mod question;
pub mod release;
pub mod screens;
pub mod session;
pub mod tool;
pub mod transcript;
pub mod tui;
pub mod turn;

use std::process::ExitCode;

use crate::engine::entry;
use crate::scenario::Scenario;

/// The binary's `main`.
pub fn main() -> ExitCode {
    entry::main(run, |msg| {
        entry::error_line("fake-claude", msg, &["Error:", "error:"])
    })
}

/// Runs fake-claude with `args` (without the program name); returns the exit status.
pub fn run(args: &[String]) -> Result<i32, String> {
    crate::release::check()?;
    let version = release::version_line(release::current());
    let Some(opts) = entry::options(cli::parse(args)?, &version) else {
        return Ok(0);
    };
    let scenario = Scenario::from_env()?;
    scenario.start_children()?;
    if opts.print || !crate::term::stdout_is_tty() {
        print::run(&opts, scenario)
    } else {
        tui::run(&opts, scenario)
    }
}
