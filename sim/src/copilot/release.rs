//! The GitHub Copilot CLI releases fake-copilot plays, and what differs between them at the
//! points umbel touches: one table, read through [`current`]. Recorded in
//! `tests/data/copilot/<version>/` (1.0.89 and the pinned 1.0.102). Every change below is in
//! 1.0.102 and not in 1.0.89 (but [`Copilot::EditPrompt`], not recorded on 1.0.89); which
//! release between them brought it was not bisected, so the table names 1.0.102, the first
//! recorded release that has it.

use crate::release::{self, Change, Version};

/// The release fake-copilot plays unless `UMBEL_SIM_VERSION` names another.
pub const PINNED: Version = Version::new(1, 0, 102);

/// A behaviour that changed in some release.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Copilot {
    /// `SessionStart` fires before the first `UserPromptSubmit` (1.0.89: after it).
    SessionStartFirst,
    /// The status line names the agent and approval modes (`Interactive · Manual Approval`).
    ModesInStatus,
    /// The busy hint is `esc esc interrupt` (1.0.89: `esc interrupt`).
    EscEscHint,
    /// Each model call leaves a `session.usage_record` in the session log.
    UsageRecords,
    /// A refused tool's block ends with `Approval check` / `└ - Confirmation cancelled for
    /// shell command`.
    ApprovalCheck,
    /// The startup `/app` tip stands above the instructions notice (1.0.89: below it).
    TipFirst,
    /// `session.error` names its `originatingMessageId`; `permission.requested` its
    /// `ownerSessionId`.
    OwnerIds,
    /// Esc Esc before the model answered takes the turn back (`esc esc edit prompt`): the
    /// prompt back in the input line, the turn gone from the screen and the session log.
    /// Recorded on 1.0.102 only; 1.0.89's Esc Esc before any text was not recorded, and the
    /// fake interrupts there as it does after text.
    EditPrompt,
}

const fn since_102(what: Copilot) -> Change<Copilot> {
    Change {
        what,
        since: Version::new(1, 0, 102),
    }
}

/// What changed, in which release.
pub const CHANGES: &[Change<Copilot>] = &[
    since_102(Copilot::SessionStartFirst),
    since_102(Copilot::ModesInStatus),
    since_102(Copilot::EscEscHint),
    since_102(Copilot::UsageRecords),
    since_102(Copilot::ApprovalCheck),
    since_102(Copilot::TipFirst),
    since_102(Copilot::OwnerIds),
    since_102(Copilot::EditPrompt),
];

/// A copilot release under [`CHANGES`].
pub type Release = release::Release<Copilot>;

/// The release `UMBEL_SIM_VERSION` names, else [`PINNED`].
pub fn current() -> Release {
    at(release::chosen(PINNED))
}

/// `version` under [`CHANGES`].
pub fn at(version: Version) -> Release {
    Release::new(version, CHANGES)
}

/// `copilot --version` (recorded: `version.txt`).
pub fn version_line(release: Release) -> String {
    format!(
        "GitHub Copilot CLI {}.\nRun 'copilot update' to check for updates.",
        release.version
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_lines_are_the_recorded_ones() {
        let recorded = crate::fixtures::repo_screen("copilot/1.0.102/version.txt").join("\n");
        assert_eq!(version_line(at(PINNED)), recorded);
    }

    #[test]
    fn older_releases_lack_the_changes() {
        let old = at(Version::new(1, 0, 89));
        assert!(!old.has(Copilot::SessionStartFirst));
        assert!(at(PINNED).has(Copilot::SessionStartFirst));
    }
}
