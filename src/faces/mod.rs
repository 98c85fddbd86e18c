//! The faces: parse input, call the verbs, and turn results and errors into output and exit
//! codes. Nothing below this layer prints or exits.

pub mod cli;
pub mod doctor;
pub mod examples;
pub mod inspect;
pub mod mcp;
pub mod output;
pub mod print;
pub mod reference;
pub mod remote;
pub mod remote_exec;
pub mod run;
pub mod run_progress;
pub mod status_view;
pub mod turn_line;
pub mod verbs;
