//! The pure core: no I/O, no clock, no environment reads. Everything here is a function of its
//! inputs and is tested on recorded data.

pub mod acp_args;
pub mod approval_args;
pub mod approvals;
pub mod args;
pub mod byte_tail;
pub mod composer_text;
pub mod diff;
pub mod doctor;
pub mod duration;
pub mod env_list;
pub mod errors;
pub mod events;
pub mod explain;
pub mod fleet;
pub mod fleet_events;
pub mod guard;
pub mod guard_args;
pub mod hints;
pub mod meta;
pub mod mode_args;
pub mod name;
pub mod outcome;
pub mod prices;
pub mod print;
pub mod providers;
pub mod questions;
pub mod remote;
pub mod remote_frame;
pub mod rules;
pub mod send_tally;
pub mod send_verdict;
pub mod socket;
pub mod status;
pub mod terminal_text;
#[cfg(test)]
pub mod test_data;
pub mod turn_progress;
pub mod turns;
pub mod until;
pub mod usage_tally;
pub mod wait;
pub mod warm;
pub mod worker_env;
pub mod workflow;
pub mod worktree;
