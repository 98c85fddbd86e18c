//! Which release of its CLI a fake plays: `UMBEL_SIM_VERSION` (unset = the pinned release),
//! and the release numbers the fakes' own tables (`claude/release.rs`, `codex/release.rs`,
//! `gemini/release.rs`) compare it with.

use std::fmt;
use std::sync::OnceLock;

/// The variable every fake reads: the release to behave like, e.g. `2.1.246`.
pub const VAR: &str = "UMBEL_SIM_VERSION";

/// A `major.minor.patch` release number, ordered as releases are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    major: u32,
    minor: u32,
    patch: u32,
}

impl Version {
    /// `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Version {
        Version {
            major,
            minor,
            patch,
        }
    }

    /// Parses `1.2.3` (surrounding spaces allowed); anything else is `None`.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.trim().split('.').map(|p| {
            (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse::<u32>().ok())
                .flatten()
        });
        let (major, minor, patch) = (parts.next()??, parts.next()??, parts.next()??);
        parts
            .next()
            .is_none()
            .then_some(Version::new(major, minor, patch))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// One behaviour that changed between releases, and the first release that has it.
#[derive(Debug, PartialEq, Eq)]
pub struct Change<C: 'static> {
    /// What changed (a provider's own enum).
    pub what: C,
    /// The first release with the new behaviour; older releases keep the old one.
    pub since: Version,
}

/// The release a fake plays: the pinned one, or `UMBEL_SIM_VERSION`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release<C: PartialEq + 'static> {
    /// The release number.
    pub version: Version,
    changes: &'static [Change<C>],
}

impl<C: PartialEq + 'static> Release<C> {
    /// `version` under the table `changes`.
    pub const fn new(version: Version, changes: &'static [Change<C>]) -> Release<C> {
        Release { version, changes }
    }

    /// True when this release has `what` (a change not in the table is in every release).
    pub fn has(&self, what: C) -> bool {
        self.changes
            .iter()
            .find(|c| c.what == what)
            .is_none_or(|c| self.version >= c.since)
    }
}

/// The release `UMBEL_SIM_VERSION` names, else `pinned` (a bad setting is reported by [`check`]
/// at startup).
pub fn chosen(pinned: Version) -> Version {
    from_env().ok().flatten().unwrap_or(pinned)
}

/// Fails on an `UMBEL_SIM_VERSION` that is not a release number.
pub fn check() -> Result<(), String> {
    from_env().map(|_| ())
}

/// `UMBEL_SIM_VERSION` as read once by this process: `Ok(None)` when unset or empty.
pub fn from_env() -> Result<Option<Version>, String> {
    static READ: OnceLock<Result<Option<Version>, String>> = OnceLock::new();
    READ.get_or_init(|| parse_setting(std::env::var(VAR).ok().as_deref()))
        .clone()
}

/// The setting's value read: unset or empty = `None`; else a release number.
pub fn parse_setting(value: Option<&str>) -> Result<Option<Version>, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => Version::parse(text)
            .map(Some)
            .ok_or_else(|| format!("{VAR}={text} is not a release number (expected e.g. 2.1.246)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Feature {
        Flag,
        Unlisted,
    }

    const TABLE: &[Change<Feature>] = &[Change {
        what: Feature::Flag,
        since: Version::new(0, 156, 0),
    }];

    #[test]
    fn versions_order_numerically_not_as_text() {
        let v = |s| Version::parse(s).unwrap();
        assert!(v("0.155.1") < v("0.156.0"));
        assert!(v("2.1.99") < v("2.1.246"));
        assert_eq!(v(" 2.1.246 ").to_string(), "2.1.246");
        for bad in ["", "2.1", "2.1.x", "2.1.2.3", "v2.1.3", "2..1", "-1.0.0"] {
            assert_eq!(Version::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_change_is_had_from_its_release_on_and_an_unlisted_one_always() {
        let at = |s| Release::new(Version::parse(s).unwrap(), TABLE);
        assert!(!at("0.155.1").has(Feature::Flag));
        assert!(at("0.156.0").has(Feature::Flag));
        assert!(at("0.171.0").has(Feature::Flag));
        assert!(at("0.1.0").has(Feature::Unlisted));
    }

    #[test]
    fn the_setting_is_optional_but_never_garbage() {
        assert_eq!(parse_setting(None), Ok(None));
        assert_eq!(parse_setting(Some("")), Ok(None));
        assert_eq!(
            parse_setting(Some("0.149.0")),
            Ok(Some(Version::new(0, 149, 0)))
        );
        let err = parse_setting(Some("latest")).unwrap_err();
        assert!(err.contains("UMBEL_SIM_VERSION=latest"), "{err}");
    }
}
