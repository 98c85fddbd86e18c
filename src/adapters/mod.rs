//! The only places with side effects: tmux, the state folder, file watching, transcripts and
//! signals to a worker's processes.

pub mod exec;
pub mod process;
pub mod runs;
pub mod ssh;
pub mod state;
pub mod tmux;
pub mod transcript;
pub mod watch;
