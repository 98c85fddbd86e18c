//! Which releases of a CLI umbel supports, and what changed between them. Each provider module
//! holds one [`Releases`] table: the oldest supported release, the newest one the tests ran on,
//! the releases they ran on, and the [`Change`]s umbel must follow (a flag that appeared, a dialog
//! that was reworded). It is the only place a release number appears in the code; nothing
//! outside `core/providers/` branches on a version.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A CLI's release number, `major.minor.patch` (a pre-release suffix is ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    /// A version written in a table, `"2.1.246"`; a malformed one fails the build (it is
    /// evaluated in a `const`).
    pub const fn of(text: &str) -> Version {
        let bytes = text.as_bytes();
        let mut parts = [0u32; 3];
        let (mut part, mut i) = (0, 0);
        while i < bytes.len() {
            match bytes[i] {
                b'.' if part < 2 => part += 1,
                d @ b'0'..=b'9' => parts[part] = parts[part] * 10 + (d - b'0') as u32,
                _ => panic!("a table version is major.minor.patch"),
            }
            i += 1;
        }
        assert!(part == 2, "a table version is major.minor.patch");
        Version {
            major: parts[0],
            minor: parts[1],
            patch: parts[2],
        }
    }

    /// The first `N.N.N` in a CLI's `--version` output (`2.1.332 (Claude Code)`,
    /// `codex-cli 0.171.0`, `0.61.0`, `0.62.0-nightly.20261001`).
    pub fn find(text: &str) -> Option<Version> {
        text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .find_map(Version::parse_exact)
    }

    /// `N.N.N` exactly (trailing dots tolerated, as a sentence may end with one).
    fn parse_exact(word: &str) -> Option<Version> {
        let mut parts = word.trim_end_matches('.').split('.');
        let mut next = || parts.next()?.parse::<u32>().ok();
        let version = Version {
            major: next()?,
            minor: next()?,
            patch: next()?,
        };
        parts.next().is_none().then_some(version)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Version::find(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a version")))
    }
}

impl schemars::JsonSchema for Version {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Version".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+$",
            "description": "A CLI release, major.minor.patch."
        })
    }
}

/// One thing that changed in a release, which umbel follows (`what` is the name the provider's
/// code asks [`Releases::has`] about).
#[derive(Debug, Clone, Copy)]
pub struct Change {
    /// The first release with it.
    pub since: Version,
    /// What it is, in a few words (also how the provider's code names it).
    pub what: &'static str,
}

/// A CLI's supported window and the changes within it.
#[derive(Debug)]
pub struct Releases {
    /// The npm package the CLI comes from (for the upgrade command).
    pub package: &'static str,
    /// The oldest release umbel supports.
    pub oldest: Version,
    /// The newest release the tests ran on (the pinned one).
    pub newest_tested: Version,
    /// Every release the tests ran on, oldest first.
    pub tested: &'static [Version],
    /// What changed inside the window, oldest first.
    pub changes: &'static [Change],
}

/// How a detected release stands against the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Inside the window.
    Supported,
    /// Older than the oldest supported release: umbel refuses it.
    TooOld,
    /// Newer than the newest tested release: umbel tries it.
    Newer,
    /// The version could not be learnt: umbel tries it as the newest tested release.
    Unknown,
}

impl Releases {
    /// Whether `release` has the change named `what`. An unknown release is taken as the newest
    /// tested one, so it has every change.
    pub fn has(&self, release: Option<Version>, what: &str) -> bool {
        let since = self
            .changes
            .iter()
            .find(|c| c.what == what)
            .map(|c| c.since);
        debug_assert!(since.is_some(), "`{what}` is not in the release table");
        match (release, since) {
            (Some(release), Some(since)) => release >= since,
            _ => true,
        }
    }

    /// The tested releases that cover every behaviour the table knows: the oldest (the window's
    /// edge, standing for the releases that behave as it does), the newest tested, and for each
    /// stretch between two [`Change`]s in between the newest tested release in it. The others
    /// behave as one of these at every point umbel knows of (CI's matrix runs only these).
    pub fn covering(&self) -> Vec<Version> {
        let behaviour = |v: Version| self.changes.iter().filter(|c| v >= c.since).count();
        let Some(&oldest) = self.tested.first() else {
            return Vec::new();
        };
        let mut covering = vec![oldest];
        for (i, &v) in self.tested.iter().enumerate().skip(1) {
            let next = self.tested.get(i + 1);
            let last_of_its_kind = next.is_none_or(|&n| behaviour(n) != behaviour(v));
            let newest = next.is_none();
            if newest || (last_of_its_kind && behaviour(v) != behaviour(oldest)) {
                covering.push(v);
            }
        }
        covering
    }

    /// Where `release` stands against the window.
    pub fn support(&self, release: Option<Version>) -> Support {
        match release {
            None => Support::Unknown,
            Some(v) if v < self.oldest => Support::TooOld,
            Some(v) if v > self.newest_tested => Support::Newer,
            Some(_) => Support::Supported,
        }
    }

    /// The command that upgrades the CLI.
    pub fn upgrade_command(&self) -> String {
        format!("npm i -g {}", self.package)
    }

    /// The window in words: `2.1.246 to 2.1.332`.
    pub fn window(&self) -> String {
        format!("{} to {}", self.oldest, self.newest_tested)
    }

    /// The release of the CLI's own npm package among `package.json` texts (those found above
    /// its binary, nearest first); `None` when none is its package.
    pub fn in_packages(&self, texts: &[String]) -> Option<Version> {
        texts.iter().find_map(|text| {
            let package: serde_json::Value = serde_json::from_str(text).ok()?;
            let name = package.get("name")?.as_str()?;
            (name == self.package)
                .then(|| Version::find(package.get("version")?.as_str()?))
                .flatten()
        })
    }
}

/// One CLI's supported window, as `umbel releases` prints it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    /// The provider (`claude`).
    pub provider: &'static str,
    /// Its npm package.
    pub package: &'static str,
    /// The oldest supported release.
    pub oldest: Version,
    /// The newest release the tests ran on.
    pub newest_tested: Version,
    /// Every release the tests ran on.
    pub tested: Vec<Version>,
    /// The tested releases that cover every behaviour umbel knows of: the oldest, the newest,
    /// and the newest of each stretch between two recorded changes (CI's release matrix).
    pub covering: Vec<Version>,
    /// The command that upgrades it.
    pub upgrade: String,
}

/// Every provider's window, in the providers' order.
pub fn windows() -> Vec<Window> {
    <super::Provider as clap::ValueEnum>::value_variants()
        .iter()
        .map(|provider| {
            let r = provider.module().releases();
            Window {
                provider: provider.as_str(),
                package: r.package,
                oldest: r.oldest,
                newest_tested: r.newest_tested,
                tested: r.tested.to_vec(),
                covering: r.covering(),
                upgrade: r.upgrade_command(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: Releases = Releases {
        package: "@example/cli",
        oldest: Version::of("0.149.0"),
        newest_tested: Version::of("0.171.0"),
        tested: &[Version::of("0.149.0"), Version::of("0.171.0")],
        changes: &[Change {
            since: Version::of("0.156.0"),
            what: "a flag",
        }],
    };

    #[test]
    fn versions_are_found_in_what_the_clis_print() {
        let v = |t: &str| Version::find(t).map(|v| v.to_string());
        assert_eq!(v("2.1.332 (Claude Code)\n").as_deref(), Some("2.1.332"));
        assert_eq!(v("codex-cli 0.171.0\n").as_deref(), Some("0.171.0"));
        assert_eq!(v("0.61.0\n").as_deref(), Some("0.61.0"));
        assert_eq!(v("0.62.0-nightly.20261001.abc").as_deref(), Some("0.62.0"));
        assert_eq!(
            v("WARNING: proxy 1.2 set\ncodex-cli 0.149.0").as_deref(),
            Some("0.149.0")
        );
        assert_eq!(v("version 1.2.3.4 then 2.0.1").as_deref(), Some("2.0.1"));
        assert_eq!(v("no version here"), None);
        assert_eq!(v(""), None);
    }

    #[test]
    fn versions_order_numerically() {
        assert!(Version::of("2.1.246") < Version::of("2.1.332"));
        assert!(Version::of("0.99.0") < Version::of("0.149.0"));
        assert!(Version::of("1.0.0") > Version::of("0.171.9"));
    }

    #[test]
    fn the_window_judges_a_release() {
        let judge = |t: &str| TABLE.support(Version::find(t));
        assert_eq!(judge("0.140.0"), Support::TooOld);
        assert_eq!(judge("0.148.9"), Support::TooOld);
        assert_eq!(judge("0.149.0"), Support::Supported);
        assert_eq!(judge("0.171.0"), Support::Supported);
        assert_eq!(judge("0.172.0"), Support::Newer);
        assert_eq!(TABLE.support(None), Support::Unknown);
        assert_eq!(TABLE.upgrade_command(), "npm i -g @example/cli");
        assert_eq!(TABLE.window(), "0.149.0 to 0.171.0");
    }

    #[test]
    fn the_covering_releases_are_the_oldest_and_the_newest_of_each_later_behaviour() {
        const V: fn(&str) -> Version = Version::of;
        static FOUR: [Version; 4] = [
            Version::of("0.149.0"),
            Version::of("0.155.1"),
            Version::of("0.161.0"),
            Version::of("0.171.0"),
        ];
        // 0.155.1 behaves as 0.149.0 (no change between them), 0.161.0 as 0.171.0.
        let four = Releases {
            tested: &FOUR,
            ..TABLE
        };
        assert_eq!(four.covering(), [V("0.149.0"), V("0.171.0")]);
        // A change at 0.150.0 too: 0.155.1 is the only one of its kind.
        static TWO_CHANGES: [Change; 2] = [
            Change {
                since: Version::of("0.150.0"),
                what: "a hook",
            },
            Change {
                since: Version::of("0.156.0"),
                what: "a flag",
            },
        ];
        let two = Releases {
            changes: &TWO_CHANGES,
            ..four
        };
        assert_eq!(two.covering(), [V("0.149.0"), V("0.155.1"), V("0.171.0")]);
        assert_eq!(TABLE.covering(), [V("0.149.0"), V("0.171.0")]);
        // No change at all: the window's two ends.
        let unchanged = Releases {
            changes: &[],
            ..four
        };
        assert_eq!(unchanged.covering(), [V("0.149.0"), V("0.171.0")]);
    }

    #[test]
    fn a_change_holds_from_its_release_on_and_for_an_unknown_one() {
        assert!(!TABLE.has(Some(Version::of("0.155.1")), "a flag"));
        assert!(TABLE.has(Some(Version::of("0.156.0")), "a flag"));
        assert!(TABLE.has(None, "a flag"));
    }

    #[test]
    fn the_release_is_read_from_the_clis_own_package_only() {
        let texts = |list: &[&str]| list.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        let own = r#"{"name":"@example/cli","version":"0.160.0"}"#;
        let other = r#"{"name":"@example/cli-linux-x64","version":"0.1.0"}"#;
        assert_eq!(
            TABLE.in_packages(&texts(&[other, "not json", own])),
            Some(Version::of("0.160.0"))
        );
        assert_eq!(TABLE.in_packages(&texts(&[other])), None);
        assert_eq!(TABLE.in_packages(&[]), None);
    }

    /// Each table is ordered and its window holds every tested release and change.
    #[test]
    fn every_providers_table_is_consistent() {
        for w in windows() {
            assert!(w.oldest <= w.newest_tested, "{}", w.provider);
            assert!(w.tested.windows(2).all(|p| p[0] < p[1]), "{}", w.provider);
            assert_eq!(w.tested.first(), Some(&w.oldest), "{}", w.provider);
            assert_eq!(w.tested.last(), Some(&w.newest_tested), "{}", w.provider);
        }
        for provider in <super::super::Provider as clap::ValueEnum>::value_variants() {
            let r = provider.module().releases();
            assert!(
                r.changes
                    .iter()
                    .all(|c| c.since > r.oldest && c.since <= r.newest_tested)
            );
        }
    }

    #[test]
    fn versions_serialise_as_strings() {
        let v = Version::of("2.1.246");
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"2.1.246\"");
        let back: Version = serde_json::from_str("\"2.1.246\"").unwrap();
        assert_eq!(back, v);
        assert!(serde_json::from_str::<Version>("\"x\"").is_err());
    }
}
