//! The faces: parse input, call the verbs, and turn results and errors into output and exit
//! codes. Nothing below this layer prints or exits.

pub mod approvals;
pub mod cli;
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
pub mod status_view;
pub mod suggest;
pub mod top;
pub mod turn_line;
pub mod usage_errors;
pub mod verbs;
