//! fake-opencode: a stand-in for OpenCode 1.18.33 (docs/sim-opencode.md), on the shared fake
//! engine ([`crate::engine`]).
//!
//! opencode is no hook CLI: everything it does is an event on its bus, and umbel hears those
//! events through a plugin it writes (`opencode-umbel.js`, loaded via
//! `OPENCODE_CONFIG_CONTENT`). So what is opencode's own here is data: its events' shapes
//! ([`bus`]), the plugin played on them ([`plugin`]: the same hooks and record lines), its
//! screens ([`screens`]) and `run`'s output ([`run`]). [`cli`] reads the command line,
//! [`agent`] names the agent (Build or Plan, switched with Tab), [`session`] holds the session
//! (and the store `--session` reopens), [`turn`] is one turn on the engine's timeline and
//! [`tui`] the interactive program on the engine's shell.

pub mod agent;
pub mod ask;
pub mod bus;
pub mod cli;
#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod permission_tests;
pub mod plugin;
pub mod run;
pub mod screens;
pub mod session;
pub mod tui;
pub mod turn;

use std::process::ExitCode;

use crate::engine::entry;
use crate::scenario::Scenario;
use session::Session;

/// The binary's `main`: a failure is one line on stderr, status 1.
pub fn main() -> ExitCode {
    entry::main(run, |msg| {
        entry::error_line(
            "fake-opencode",
            msg,
            &["Session not found", "Invalid values", "error:"],
        )
    })
}

/// Runs fake-opencode with `args` (without the program name); returns the exit status.
pub fn run(args: &[String]) -> Result<i32, String> {
    crate::release::check()?;
    let action = cli::parse(args)?;
    let Some(opts) = entry::options(action, cli::VERSION) else {
        return Ok(0);
    };
    let scenario = Scenario::from_env()?;
    scenario.start_children()?;
    let config = plugin::config()?;
    let resume = match opts.continue_last {
        true => Session::last_session(),
        false => opts.session.clone(),
    };
    std::thread::sleep(std::time::Duration::from_millis(scenario.startup.delay_ms));
    let sess = Session::open(scenario, opts.model.as_deref(), resume, &config)?;
    match opts.run {
        true => run::run(&opts, sess),
        false => tui::run(sess),
    }
}
