//! The Claude Code releases fake-claude plays, and what differs between them at the points
//! umbel touches: one table, read through [`current`]. Recorded in
//! `tests/data/claude/<version>/` (2.1.246, 2.1.290) against the pinned 2.1.332.

use crate::release::{self, Change, Version};

/// The release fake-claude plays unless `UMBEL_SIM_VERSION` names another.
pub const PINNED: Version = Version::new(2, 1, 332);

/// A behaviour that changed in some release.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Claude {
    /// The trust dialog lists `❯ No, exit` then `Yes, I trust this folder`, cursor on "No".
    /// Before (2.1.247 and older, bisected with npm installs): `❯ 1. Yes, I trust this
    /// folder` then `2. No, exit`, cursor on "Yes".
    TrustNoFirst,
    /// A fork (`--fork-session`) writes the copied conversation when it starts. Before (seen on
    /// 2.1.246 in about 1 run of 4, not on 2.1.290), the copy went in with the first records of
    /// the fork's own turn, after its first answer: the answer stood above the history its
    /// `parentUuid` chain runs through. The fake does so every time on those releases.
    ForkCopyFirst,
}

/// How long a release before [`Claude::TrustNoFirst`] keeps its trust dialog up, the taken
/// option marked `✔`, before it goes on (2.1.246 on an idle machine: the prompt 0.74–0.93 s
/// after Enter; seconds under load).
pub const TAKEN_TRUST_HELD_MS: u64 = 700;

/// What changed, in which release.
pub const CHANGES: &[Change<Claude>] = &[
    Change {
        what: Claude::TrustNoFirst,
        since: Version::new(2, 1, 248),
    },
    Change {
        what: Claude::ForkCopyFirst,
        since: Version::new(2, 1, 290),
    },
];

/// A claude release under [`CHANGES`].
pub type Release = release::Release<Claude>;

/// The release `UMBEL_SIM_VERSION` names, else [`PINNED`].
pub fn current() -> Release {
    at(release::chosen(PINNED))
}

/// `version` under [`CHANGES`].
pub fn at(version: Version) -> Release {
    Release::new(version, CHANGES)
}

/// `claude --version`: `2.1.332 (Claude Code)`.
pub fn version_line(release: Release) -> String {
    format!("{} (Claude Code)", release.version)
}

#[cfg(test)]
#[path = "release_tests.rs"]
mod tests;
