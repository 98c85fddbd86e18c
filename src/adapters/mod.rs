//! The only places with side effects: tmux, the state folder, file watching and transcripts.

pub mod exec;
pub mod runs;
pub mod state;
pub mod tmux;
pub mod transcript;
pub mod watch;
