//! `umbel mcp`: the real binary as a child process under rmcp's client (and by hand over its
//! stdio), in each test's sandbox, driving fake claude workers. The schemas match the CLI flags;
//! a full turn works; failures, non-stop outcomes and malformed calls are error results while the
//! server keeps serving; calls run side by side; a cancelled wait leaves its worker alone.

mod budget;
pub(crate) mod client;
mod conversation;
mod guard;
mod in_process;
mod output;
mod park;
mod resources;
mod schema;
pub(crate) mod stdio;
mod turns;
mod worktree;
