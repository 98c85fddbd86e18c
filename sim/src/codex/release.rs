//! The Codex CLI releases fake-codex plays, and what differs between them at the points umbel
//! touches: one table, read through [`current`]. Recorded in `tests/data/codex/<version>/`
//! (0.149.0, 0.155.1, 0.161.0) against the pinned 0.171.0; the first release of each change
//! was found by installing the releases between with npm.

use crate::release::{self, Change, Version};

/// The release fake-codex plays unless `UMBEL_SIM_VERSION` names another.
pub const PINNED: Version = Version::new(0, 171, 0);

/// A behaviour that changed in some release.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Codex {
    /// The `Interrupt` hook runs when Esc aborts a turn (0.149.x runs no hook then).
    InterruptHook,
    /// `--no-daemon` exists (0.155.1 and older reject it: clap's "unexpected argument", exit 2).
    NoDaemonFlag,
    /// The trust dialog reads "Folder access … Trust this folder? › 1. Trust and continue".
    /// Before: "Welcome to Codex … Do you trust the contents of this directory? › 1. Yes,
    /// continue / 2. No, quit / Press enter to continue".
    FolderAccessDialog,
    /// An Enter on a prompt typed before the session is configured holds it ("Waiting for
    /// startup") and submits it once the session is. Before (0.155.1), that Enter is lost.
    HoldsEarlyPrompt,
}

/// What changed, in which release.
pub const CHANGES: &[Change<Codex>] = &[
    Change {
        what: Codex::InterruptHook,
        since: Version::new(0, 150, 0),
    },
    Change {
        what: Codex::NoDaemonFlag,
        since: Version::new(0, 156, 0),
    },
    Change {
        what: Codex::FolderAccessDialog,
        since: Version::new(0, 156, 0),
    },
    Change {
        what: Codex::HoldsEarlyPrompt,
        since: Version::new(0, 156, 0),
    },
];

/// A codex release under [`CHANGES`].
pub type Release = release::Release<Codex>;

/// The release `UMBEL_SIM_VERSION` names, else [`PINNED`].
pub fn current() -> Release {
    at(release::chosen(PINNED))
}

/// `version` under [`CHANGES`].
pub fn at(version: Version) -> Release {
    Release::new(version, CHANGES)
}

/// `codex --version`: `codex-cli 0.171.0`.
pub fn version_line(release: Release) -> String {
    format!("codex-cli {}", release.version)
}

#[cfg(test)]
#[path = "release_tests.rs"]
mod tests;
