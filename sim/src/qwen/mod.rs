//! fake-qwen: a stand-in for Qwen Code 0.24.4, a Gemini CLI fork, played by fake-gemini's
//! engine ([`crate::gemini`]) in its Qwen [`Flavor`](crate::gemini::flavor::Flavor).
//!
//! What differs is data, recorded from the real qwen against fake-model
//! (`tests/data/qwen/`): its home (`$QWEN_HOME`, else `~/.qwen`, no folder trust by default),
//! its release and header, its sign-in check and "Connect a Provider" box, the `›` cursor of
//! its choices, its Claude-style hook names and payloads ([`hooks`]) and its chat records
//! ([`records`]). Both translate what fake-gemini's turn produces, so the turn, tool and
//! dialog logic is fake-gemini's own. Its approval modes, their Shift+Tab cycle and the line
//! naming them are in [`modes`].

pub mod data;
pub mod hooks;
pub mod modes;
pub mod records;

use std::process::ExitCode;

use crate::engine::entry;
use crate::gemini::{Failure, flavor};

/// The binary's `main`: fake-gemini's, playing Qwen Code.
pub fn main() -> ExitCode {
    flavor::set(flavor::Flavor::Qwen);
    entry::main(crate::gemini::run, |failure| match failure {
        Failure::Usage(msg) => msg,
        Failure::Fake(msg) => format!("fake-qwen: {msg}"),
    })
}
