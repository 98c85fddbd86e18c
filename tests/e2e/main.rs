//! End-to-end tests: the real `umbel` binary driving the `sim` crate's fake CLIs in real tmux
//! panes. Each test owns a temporary state root, HOME and TMUX_TMPDIR, so it has its own private
//! tmux server and runs in parallel with the others. Build the fakes first (`just test` does).

mod harness;

mod acp;
mod approvals;
mod attach;
mod budgets;
mod cli_answers;
mod conversation;
mod delivery;
mod dialogs;
mod doctor;
mod events;
mod explain;
mod faults;
mod faults_checks;
mod faults_input;
mod faults_round3;
mod faults_state;
mod flags;
mod fleet;
mod guard;
mod hooks;
mod inspect;
mod interrupts;
mod json_output;
mod lifecycle;
mod limits;
mod load;
mod mcp;
mod meta_reads;
mod outcomes;
mod park;
mod print;
mod print_json;
mod progress;
mod queue;
mod real;
mod reference;
mod releases;
mod remote;
mod secrets;
mod self_turns;
mod send_verdict;
mod snapshots;
mod startup;
mod tiers;
mod top;
mod top_pane;
mod warm;
mod web;
mod web_client;
mod window;
mod workflow;
mod worktree;
