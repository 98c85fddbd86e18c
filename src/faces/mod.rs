//! The faces: parse input, call the verbs, and turn results and errors into output and exit
//! codes. Nothing below this layer prints or exits.

/// `eprintln!` that never panics: stderr closed under umbel (a terminal gone after SIGHUP gives
/// EIO, a full disk ENOSPC) loses the line, never the command — a panic there would skip
/// `-p`'s teardown and leave its worker running. Every face writes stderr through this.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that never panics ([`errln`]).
macro_rules! errp {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

pub mod acp;
pub mod approvals;
pub mod cli;
mod cli_commands;
pub mod completion;
pub mod doctor;
pub mod error_json;
pub mod examples;
pub mod explain;
pub mod inspect;
pub mod json_schema;
pub mod json_verbs;
pub mod mcp;
pub mod output;
pub mod print;
pub mod reference;
pub mod remote;
pub mod remote_exec;
pub mod run;
pub mod run_progress;
pub mod signals;
pub mod status_view;
pub mod suggest;
#[cfg(feature = "top")]
pub mod top;
pub mod turn_line;
pub mod usage_errors;
pub mod verbs;
pub mod web;
