//! The binary's `main`, the same for every fake.
//!
//! Reads argv (lossily, as the real CLIs accept any bytes), records it for
//! the tests (`UMBEL_SIM_RECORD_DIR`), runs the fake and turns its result into
//! the exit status: a failure is one line on stderr, worded by the provider,
//! and status 1. [`Action`] is what a command line asks for: a help page,
//! the version, or a run.

use std::process::ExitCode;

/// Runs `run` on argv; `report` words a failure's stderr line.
pub fn main<E>(run: fn(&[String]) -> Result<i32, E>, report: fn(E) -> String) -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    crate::record::record_argv(&args);
    match run(&args) {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("{}", report(e));
            ExitCode::from(1)
        }
    }
}

/// `msg` as is when it starts with one of `raw` (the real CLI's own wording),
/// else as the fake's own: `<name>: msg`.
pub fn error_line(name: &str, msg: String, raw: &[&str]) -> String {
    if raw.iter().any(|p| msg.starts_with(p)) {
        msg
    } else {
        format!("{name}: {msg}")
    }
}

/// What a fake's command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Action<O> {
    /// Print this text (a help page) and exit 0.
    Print(&'static str),
    /// Print the version line and exit 0.
    Version,
    /// Run with these options.
    Run(O),
}

/// The options to run with, or `None` once the help page or the `version`
/// line is printed (the run is over, status 0).
pub fn options<O>(action: Action<O>, version: &str) -> Option<O> {
    match action {
        Action::Print(text) => print!("{text}"),
        Action::Version => println!("{version}"),
        Action::Run(opts) => return Some(opts),
    }
    None
}
