//! umbel remote-controls the interactive agent TUIs (Claude Code, Codex CLI, Gemini CLI) inside
//! tmux, so scripts and supervising agents get print-mode convenience on the subscription path.
//!
//! Layers, each knowing nothing of the ones above it:
//! - [`core`]: pure types and decisions (errors, names, outcomes, env filtering, provider parsers);
//! - [`adapters`]: the only side effects (tmux, state files, file watching, transcripts);
//! - [`operations`]: the verbs, composed from adapters and core;
//! - [`faces`]: the command line and `-p`, mapping errors to exit codes.

pub mod adapters;
pub mod core;
pub mod faces;
pub mod operations;

#[cfg(test)]
mod architecture_tests;
