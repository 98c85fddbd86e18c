//! `umbel doctor`'s judgements, as pure functions of what was observed: each check gets a level
//! (`ok`, `warn`, `fail`), a one-line finding and, when it is not ok, what to do about it.
//! Gathering the observations (running tmux, the provider binaries, reading modes) is the
//! operation's job.

use super::providers::{Releases, Support, Version};
use serde::Serialize;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    Ok,
    /// umbel works, but something will get in the way (e.g. a provider not set up yet).
    Warn,
    /// umbel cannot work until this is fixed.
    Fail,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Warn => "warn",
            Level::Fail => "fail",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Check {
    /// What was checked: `tmux`, `socket`, `claude`, `state-root`, …
    pub name: String,
    pub level: Level,
    /// What was found.
    pub detail: String,
    /// What to do, when the level is not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    pub fn ok(name: &str, detail: impl Into<String>) -> Self {
        Check {
            name: name.into(),
            level: Level::Ok,
            detail: detail.into(),
            fix: None,
        }
    }

    pub fn warn(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Check {
            level: Level::Warn,
            fix: Some(fix.into()),
            ..Check::ok(name, detail)
        }
    }

    pub fn fail(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Check {
            level: Level::Fail,
            fix: Some(fix.into()),
            ..Check::ok(name, detail)
        }
    }
}

/// The oldest tmux umbel is known to work with (`pane_dead_status`, `remain-on-exit`).
const MIN_TMUX: (u32, u32) = (3, 2);

/// `tmux 3.3a` → (3, 3); `tmux next-3.5` → (3, 5).
pub fn parse_tmux_version(text: &str) -> Option<(u32, u32)> {
    let word = text.split_whitespace().nth(1)?;
    let number = word.trim_start_matches(|c: char| !c.is_ascii_digit());
    let mut parts = number.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()
        .unwrap_or("0")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor.parse().unwrap_or(0)))
}

/// Judges the output of `tmux -V`.
pub fn tmux_check(version: Result<String, String>) -> Check {
    match version {
        Err(message) => Check::fail(
            "tmux",
            message,
            "install tmux (Debian/Ubuntu: apt-get install tmux; macOS: brew install tmux)",
        ),
        Ok(text) => match parse_tmux_version(&text) {
            Some(v) if v >= MIN_TMUX => Check::ok("tmux", text.trim()),
            Some(_) => Check::warn(
                "tmux",
                format!(
                    "{} is older than {}.{}",
                    text.trim(),
                    MIN_TMUX.0,
                    MIN_TMUX.1
                ),
                "upgrade tmux; dead-pane detection may not work",
            ),
            None => Check::warn(
                "tmux",
                format!("unrecognised version `{}`", text.trim()),
                "check that `tmux -V` runs the real tmux",
            ),
        },
    }
}

/// The first line that looks like a version in a CLI's `--version` output (codex may print a
/// warning line first).
pub fn version_line(output: &str) -> Option<&str> {
    let lines = || output.lines().map(str::trim).filter(|l| !l.is_empty());
    lines()
        .find(|l| !l.starts_with("WARNING") && l.chars().any(|c| c.is_ascii_digit()))
        .or_else(|| lines().next_back())
}

/// Judges a CLI's release (`shown` names its binary) against the provider's supported window:
/// older is refused by `spawn`, so a warning with the upgrade command; newer than tested is
/// tried, and said.
pub fn release_check(name: &str, shown: &str, releases: &Releases, version: Version) -> Check {
    match releases.support(Some(version)) {
        Support::TooOld => Check::warn(
            name,
            format!(
                "{shown}: {version} is older than the oldest release umbel supports ({}); spawn and -p refuse it",
                releases.oldest
            ),
            format!("upgrade with `{}`", releases.upgrade_command()),
        ),
        Support::Newer => Check::warn(
            name,
            format!(
                "{shown}: {version} is newer than the newest release umbel was tested on ({}); umbel tries it",
                releases.newest_tested
            ),
            "if a worker gets stuck, `umbel explain NAME` shows what umbel sees of it",
        ),
        Support::Supported | Support::Unknown => Check::ok(
            name,
            format!("{shown}: {version} (supported: {})", releases.window()),
        ),
    }
}

/// Judges the state root's permission bits (`mode & 0o777`) and whether the user owns it.
/// Below this much free space the state root is reported: each hook writes a payload and a log
/// line, and on a full disk those writes are cut short (torn log lines, lost payloads).
pub const LOW_SPACE: u64 = 16 * 1024 * 1024;

/// The state root's free space judged: a failure when full, a warning when low, else nothing.
pub fn free_space_check(path: &str, free: u64) -> Option<Check> {
    let fix = "free some space on that file system (or set UMBEL_STATE to a folder on another one)";
    if free == 0 {
        return Some(Check::fail(
            "state-root",
            format!("{path}: its file system is full; hooks cannot record turns"),
            fix,
        ));
    }
    (free < LOW_SPACE).then(|| {
        Check::warn(
            "state-root",
            format!(
                "{path}: only {} KiB free; hook payloads and event lines are lost when it fills",
                free / 1024
            ),
            fix,
        )
    })
}

pub fn state_root_check(path: &str, mode: u32, owned: bool) -> Check {
    let name = "state-root";
    if !owned {
        return Check::fail(
            name,
            format!("{path} belongs to another user"),
            "set UMBEL_STATE to a folder of your own",
        );
    }
    if mode & 0o077 != 0 {
        return Check::fail(
            name,
            format!(
                "{path} is mode {:o}: other users can read worker state",
                mode & 0o777
            ),
            format!("chmod 700 {path}"),
        );
    }
    if mode & 0o700 != 0o700 {
        return Check::fail(
            name,
            format!("{path} is mode {:o}: umbel cannot use it", mode & 0o777),
            format!("chmod 700 {path}"),
        );
    }
    Check::ok(name, format!("{path} (mode 700)"))
}

/// Whether any check failed (exit 1).
pub fn any_failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.level == Level::Fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmux_versions_parse() {
        assert_eq!(parse_tmux_version("tmux 3.3a\n"), Some((3, 3)));
        assert_eq!(parse_tmux_version("tmux next-3.5"), Some((3, 5)));
        assert_eq!(parse_tmux_version("tmux 2"), Some((2, 0)));
        assert_eq!(parse_tmux_version("nonsense"), None);
    }

    #[test]
    fn old_or_missing_tmux_is_reported() {
        assert_eq!(tmux_check(Ok("tmux 3.3a".into())).level, Level::Ok);
        assert_eq!(tmux_check(Ok("tmux 2.9".into())).level, Level::Warn);
        let missing = tmux_check(Err("tmux is not installed".into()));
        assert_eq!(missing.level, Level::Fail);
        assert!(missing.fix.unwrap().contains("apt-get install tmux"));
    }

    #[test]
    fn releases_are_judged_against_the_window() {
        let releases = crate::core::providers::Provider::Codex.module().releases();
        let judge = |v: Version| release_check("codex", "/bin/codex", releases, v);
        let (oldest, newest) = (releases.oldest, releases.newest_tested);
        let older = Version {
            minor: oldest.minor - 1,
            ..oldest
        };
        let old = judge(older);
        assert_eq!(old.level, Level::Warn);
        let said = format!("{older} is older than the oldest release umbel supports ({oldest})");
        assert!(old.detail.contains(&said), "{}", old.detail);
        assert_eq!(
            old.fix.as_deref(),
            Some("upgrade with `npm i -g @openai/codex`")
        );
        assert_eq!(judge(oldest).level, Level::Ok);
        assert_eq!(judge(newest).level, Level::Ok);
        let newer = judge(Version {
            major: newest.major + 1,
            ..newest
        });
        assert_eq!(newer.level, Level::Warn);
        let said = format!("newer than the newest release umbel was tested on ({newest})");
        assert!(newer.detail.contains(&said), "{}", newer.detail);
    }

    #[test]
    fn version_lines_skip_codex_warnings() {
        let codex = "WARNING: proceeding, even though we could not create PATH aliases\ncodex-cli 0.171.0\n";
        assert_eq!(version_line(codex), Some("codex-cli 0.171.0"));
        assert_eq!(
            version_line("2.1.332 (Claude Code)\n"),
            Some("2.1.332 (Claude Code)")
        );
        assert_eq!(version_line(""), None);
    }

    #[test]
    fn a_full_or_nearly_full_state_root_is_reported() {
        assert_eq!(
            free_space_check("/s", 0).map(|c| c.level),
            Some(Level::Fail)
        );
        let low = free_space_check("/s", 1024 * 1024).expect("low");
        assert_eq!(low.level, Level::Warn);
        assert!(low.detail.contains("1024 KiB free"), "{}", low.detail);
        assert!(free_space_check("/s", LOW_SPACE).is_none());
    }

    #[test]
    fn state_root_must_be_private_and_ours() {
        assert_eq!(state_root_check("/s", 0o700, true).level, Level::Ok);
        let open = state_root_check("/s", 0o755, true);
        assert_eq!(open.level, Level::Fail);
        assert_eq!(open.fix.as_deref(), Some("chmod 700 /s"));
        assert_eq!(state_root_check("/s", 0o500, true).level, Level::Fail);
        assert_eq!(state_root_check("/s", 0o700, false).level, Level::Fail);
    }
}
