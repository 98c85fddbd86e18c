//! The Gemini CLI releases fake-gemini plays. Recorded in `tests/data/gemini/<version>/`
//! (0.55.1, 0.58.0) against the pinned 0.61.0: their trust dialog, composer, busy line,
//! permission box, hook events and payload fields and chat records are those of 0.61.0, so
//! only the release number differs (`--version`, the header).

use crate::release::{self, Version};

/// The release fake-gemini plays unless `UMBEL_SIM_VERSION` names another.
pub const PINNED: Version = Version::new(0, 61, 0);

/// The release `UMBEL_SIM_VERSION` names, else [`PINNED`].
pub fn current() -> Version {
    if super::flavor::qwen() {
        return release::chosen(crate::qwen::data::PINNED);
    }
    release::chosen(PINNED)
}

/// The header's title: `Gemini CLI v0.61.0`.
pub fn title(version: Version) -> String {
    if super::flavor::qwen() {
        return format!(">_ Qwen Code (v{version})");
    }
    format!("Gemini CLI v{version}")
}

#[cfg(test)]
#[path = "release_tests.rs"]
mod tests;
