//! Warm `-p` (`umbel -p --warm`): one worker started ahead for the next `-p` with the same
//! launch. What a launch is keyed by, the warm worker's name and its marker file, and how long
//! it has left — pure; the claiming, the refill and the expiry live in `operations/warm.rs`.

use super::name::WorkerName;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::Duration;

/// How long a warm worker waits for its `-p` before it ends itself (`UMBEL_WARM_TTL`,
/// `--warm-ttl`).
pub const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);

/// The marker file in a warm worker's folder. It is written once the worker is ready; taking it
/// (one rename, to [`TAKEN_FILE`]) is the claim: a `-p` and the worker's expiry race for it and
/// exactly one wins.
pub const MARK_FILE: &str = "warm.json";
/// Where a taken marker goes.
pub const TAKEN_FILE: &str = "warm.taken";

/// In the state root: when the last `kill --all` began (ms since the epoch). A refill started
/// before it starts no warm worker after it.
pub const KILL_ALL_FILE: &str = "kill-all.json";

/// The hidden verb the `-p` process starts, detached, to retire its worker and start the next
/// warm one.
pub const REFILL_VERB: &str = "warm-refill";
/// The hidden verb the tmux server runs for each warm worker, to end it when its time is up.
pub const EXPIRE_VERB: &str = "warm-expire";

/// What the marker holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WarmMark {
    /// The launch key ([`key`]) it was started for.
    pub key: String,
    /// The CLI session id of this incarnation: an expiry timer left from an earlier worker of
    /// the same name never ends a newer one.
    pub token: String,
    /// When it was ready (ms since the epoch).
    pub ready_at: u64,
    /// How long it waits for a `-p` from then.
    pub ttl_ms: u64,
}

impl WarmMark {
    /// When it ends itself (ms since the epoch).
    pub fn expires_at(&self) -> u64 {
        self.ready_at.saturating_add(self.ttl_ms)
    }

    /// How long it has left at `now` (zero once expired).
    pub fn left_ms(&self, now: u64) -> u64 {
        self.expires_at().saturating_sub(now)
    }
}

/// The launch key: a hash of everything the worker is started from (provider, folder, model,
/// flags, binary, release, the whole composed environment), given as its parts in a fixed
/// order. Two `-p`s share a warm worker only when every part is equal.
pub fn key(parts: &[String]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hex(&hasher.finalize())
}

/// The warm worker of a key: `warm-` and the key's first 12 hex digits. One name per key, so
/// two refills racing for it get one winner (a worker's folder is claimed with one `mkdir`).
pub fn worker_name(key: &str) -> Option<WorkerName> {
    let short: String = key.chars().take(12).collect();
    WorkerName::parse(&format!("warm-{short}")).ok()
}

/// Whether `name` is a warm worker's name.
pub fn is_warm_name(name: &str) -> bool {
    name.strip_prefix("warm-")
        .is_some_and(|rest| rest.len() == 12 && rest.chars().all(|c| c.is_ascii_hexdigit()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `UMBEL_WARM`'s value turns warm `-p` on (`1`, `true`, `yes`, `on`).
pub fn enabled_by(value: Option<&str>) -> bool {
    value.is_some_and(|v| matches!(v.trim(), "1" | "true" | "yes" | "on"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_parts_give_one_key_and_any_difference_another() {
        let parts = |model: &str| vec!["claude".to_string(), "/p".into(), model.into()];
        assert_eq!(key(&parts("a")), key(&parts("a")));
        assert_ne!(key(&parts("a")), key(&parts("b")));
        // Part boundaries count: ["ab", ""] is not ["a", "b"].
        assert_ne!(
            key(&["ab".to_string(), String::new()]),
            key(&["a".to_string(), "b".to_string()])
        );
    }

    #[test]
    fn the_name_is_warm_and_twelve_hex_digits() {
        let k = key(&["x".to_string()]);
        let name = worker_name(&k).unwrap();
        assert!(is_warm_name(name.as_str()), "{name}");
        assert_eq!(name.as_str().len(), 17);
        assert!(!is_warm_name("warm-xyz"));
        assert!(!is_warm_name("anon-abcdef"));
    }

    #[test]
    fn time_left_counts_down_to_zero() {
        let mark = WarmMark {
            key: "k".into(),
            token: "t".into(),
            ready_at: 1_000,
            ttl_ms: 600,
        };
        assert_eq!(mark.expires_at(), 1_600);
        assert_eq!(mark.left_ms(1_100), 500);
        assert_eq!(mark.left_ms(2_000), 0);
    }

    #[test]
    fn umbel_warm_takes_the_usual_yes_words() {
        assert!(enabled_by(Some("1")));
        assert!(enabled_by(Some("true")));
        assert!(!enabled_by(Some("0")));
        assert!(!enabled_by(Some("")));
        assert!(!enabled_by(None));
    }
}
