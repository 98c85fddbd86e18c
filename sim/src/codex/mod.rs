//! fake-codex: a stand-in for Codex CLI 0.171.0 (see docs/sim-codex.md).
//!
//! `cli` parses the command line (clap's wording, exit 2); `config_toml`, `config`
//! and `hookcfg` read `$CODEX_HOME` (`config.toml`, `hooks.json`, hook
//! trust); `session` holds one thread's state; `payloads`, `context` and
//! `rollout` shape hook payloads and rollout records like the real CLI;
//! `turn` (with `tool`) runs one scripted turn; `screens`,
//! `render` and `dialogs` draw; `tui` is the interactive program and `exec`
//! is `codex exec`.

pub mod cli;
pub mod config;
pub mod config_toml;
pub mod context;
pub mod dialogs;
pub mod exec;
#[cfg(test)]
mod fixture_tests;
pub mod hookcfg;
pub mod model_picker;
pub mod payloads;
pub mod release;
pub mod render;
pub mod rollout;
pub mod screens;
pub mod session;
#[cfg(test)]
mod testvt;
pub mod tool;
pub mod tui;
pub mod turn;

use std::process::ExitCode;

use crate::engine::entry;
use crate::scenario::Scenario;
use config::Config;
use hookcfg::HookFile;
use session::Session;

/// The binary's `main`.
pub fn main() -> ExitCode {
    entry::main(run, |msg| {
        entry::error_line("fake-codex", msg, &["Error", "error:"])
    })
}

/// Runs fake-codex with `args` (without the program name); returns the exit status.
pub fn run(args: &[String]) -> Result<i32, String> {
    crate::release::check()?;
    let action = match cli::parse(args) {
        Ok(action) => action,
        Err(cli::Usage(msg)) => {
            eprintln!("{msg}");
            return Ok(2);
        }
    };
    let Some(opts) = entry::options(action, &release::version_line(release::current())) else {
        return Ok(0);
    };
    if let Some(dir) = &opts.cd {
        std::env::set_current_dir(dir).map_err(|e| format!("cannot use -C {dir}: {e}"))?;
    }
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    cli::overrides(&opts.overrides)?;
    let scenario = Scenario::from_env()?;
    scenario.start_children()?;
    let home = config::codex_home(&cwd)?;
    let config = Config::load(&home)?;
    let hook_file = HookFile::load(&home, &config)?;
    let sess = Session::open(&opts, scenario, (cwd, home, config, hook_file), !opts.exec)?;
    if opts.exec {
        exec::run(&opts, sess)
    } else {
        tui::run(&opts, sess)
    }
}
