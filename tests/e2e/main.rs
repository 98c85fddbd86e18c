//! End-to-end tests: the real `umbel` binary driving the `sim` crate's fake CLIs in real tmux
//! panes. Each test owns a temporary state root, HOME and TMUX_TMPDIR, so it has its own private
//! tmux server and runs in parallel with the others. Build the fakes first (`just test` does).

mod harness;

mod attach;
mod conversation;
mod delivery;
mod faults;
mod fleet;
mod inspect;
mod lifecycle;
mod load;
mod mcp;
mod outcomes;
mod print;
mod secrets;
mod startup;
mod workflow;
