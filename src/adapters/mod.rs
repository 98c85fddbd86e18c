//! The only places with side effects: tmux, the state folder, other files, file watching,
//! transcripts, child processes and signals to a worker's processes, and the host (current
//! directory, wall clock). `tests/architecture.rs` keeps `std::fs`, `std::process`, `std::env`
//! and `SystemTime::now` out of `core/` and `operations/`.

pub mod atomic;
pub mod cli_versions;
pub mod event_log;
pub mod exec;
pub mod files;
pub mod fleet_watch;
pub mod git;
pub mod host;
pub mod installed;
pub mod pause;
pub mod pools;
pub mod process;
pub mod remote_records;
pub mod runs;
pub mod send_queue;
pub mod send_tally;
pub mod ssh;
pub mod state;
pub mod timing;
pub mod tmux;
pub mod transcript;
pub mod watch;
