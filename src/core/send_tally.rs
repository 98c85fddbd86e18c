//! The tally of sends: one record per prompt a `send` delivered (which CLI, how many Enters it
//! took, how long), and what `doctor` makes of the recent ones. A CLI release that starts taking
//! an Enter right after a paste as something else shows here first: umbel still delivers (it
//! presses again), but each extra Enter costs time, and more than two is a regression to report.

use super::doctor::Check;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most Enters a healthy send takes: the first, and one more where the CLI read the first
/// as part of the paste (a loaded machine past gemini's paste window).
pub const HEALTHY_ENTERS: u32 = 2;

/// One delivered prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendRecord {
    /// When it was confirmed, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    pub worker: String,
    pub provider: String,
    /// Enters pressed until the CLI's submit hook confirmed it.
    pub enters: u32,
    /// From the paste to the confirmation, in milliseconds.
    pub ms: u64,
}

/// `doctor`'s line on the tallied sends: per CLI, how many, their Enters and median time; a
/// warning when any took more than [`HEALTHY_ENTERS`]. `None` before the first send.
pub fn check(records: &[SendRecord]) -> Option<Check> {
    if records.is_empty() {
        return None;
    }
    let mut by_provider: BTreeMap<&str, Vec<&SendRecord>> = BTreeMap::new();
    for r in records {
        by_provider.entry(&r.provider).or_default().push(r);
    }
    let lines: Vec<String> = by_provider
        .iter()
        .map(|(provider, sends)| summary(provider, sends))
        .collect();
    let detail = lines.join("; ");
    let over: Vec<&str> = by_provider
        .iter()
        .filter(|(_, sends)| sends.iter().any(|s| s.enters > HEALTHY_ENTERS))
        .map(|(p, _)| *p)
        .collect();
    Some(if over.is_empty() {
        Check::ok("sends", detail)
    } else {
        Check::warn(
            "sends",
            detail,
            format!(
                "{} took more than {HEALTHY_ENTERS} Enters to submit a prompt: its release may \
                 read an Enter after a paste differently; `umbel send --json` shows `enters` per \
                 send, and an issue with the release and its screen helps",
                over.join(", ")
            ),
        )
    })
}

/// `claude: 12 sends, Enters 1×11 2×1, median 140 ms`.
fn summary(provider: &str, sends: &[&SendRecord]) -> String {
    let mut enters: BTreeMap<u32, usize> = BTreeMap::new();
    for s in sends {
        *enters.entry(s.enters).or_default() += 1;
    }
    let counts: Vec<String> = enters.iter().map(|(e, n)| format!("{e}×{n}")).collect();
    let mut ms: Vec<u64> = sends.iter().map(|s| s.ms).collect();
    ms.sort_unstable();
    format!(
        "{provider}: {} sends, Enters {}, median {} ms",
        sends.len(),
        counts.join(" "),
        ms[ms.len() / 2]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::doctor::Level;

    fn record(provider: &str, enters: u32, ms: u64) -> SendRecord {
        SendRecord {
            at_ms: 1,
            worker: "w".into(),
            provider: provider.into(),
            enters,
            ms,
        }
    }

    #[test]
    fn no_sends_no_line() {
        assert_eq!(check(&[]), None);
    }

    #[test]
    fn each_cli_gets_its_counts_and_median() {
        let c = check(&[
            record("gemini", 1, 300),
            record("claude", 1, 100),
            record("claude", 2, 900),
            record("claude", 1, 120),
        ])
        .unwrap();
        assert_eq!(c.level, Level::Ok);
        assert_eq!(
            c.detail,
            "claude: 3 sends, Enters 1×2 2×1, median 120 ms; gemini: 1 sends, Enters 1×1, median 300 ms"
        );
    }

    #[test]
    fn more_than_two_enters_is_a_warning_naming_the_cli() {
        let c = check(&[record("codex", 3, 1200), record("claude", 1, 100)]).unwrap();
        assert_eq!(c.level, Level::Warn);
        assert!(c.fix.unwrap().starts_with("codex took more than 2 Enters"));
    }
}
