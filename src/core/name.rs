//! Worker names: `^[a-z0-9][a-z0-9-]{0,62}$`. A name is a directory under the state root and part
//! of a tmux session name, so anything else (slashes, dots, spaces, upper case) is refused.

use super::errors::{Error, Result};
use std::fmt;

/// A validated worker name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct WorkerName(String);

/// The longest name accepted.
pub const MAX_LEN: usize = 63;

impl WorkerName {
    /// Validates `raw` as a worker name.
    pub fn parse(raw: &str) -> Result<Self> {
        let invalid = |reason| {
            Err(Error::InvalidName {
                name: raw.to_string(),
                reason,
            })
        };
        let Some(first) = raw.chars().next() else {
            return invalid("it is empty");
        };
        if raw.len() > MAX_LEN {
            return invalid("it is longer than 63 characters");
        }
        if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
            return invalid("it must start with a lower-case letter or a digit");
        }
        if let Some(bad) = raw
            .chars()
            .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
        {
            return Err(Error::InvalidName {
                name: raw.to_string(),
                reason: if bad.is_ascii_uppercase() {
                    "only lower-case letters, digits and `-` are allowed (found an upper-case letter)"
                } else {
                    "only lower-case letters, digits and `-` are allowed"
                },
            });
        }
        Ok(WorkerName(raw.to_string()))
    }

    /// An anonymous name, `anon-` and six base-36 characters drawn from `entropy`.
    pub fn anonymous(entropy: u64) -> Self {
        const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
        let mut n = entropy;
        let mut tail = String::with_capacity(6);
        for _ in 0..6 {
            tail.push(DIGITS[(n % 36) as usize] as char);
            n /= 36;
        }
        WorkerName(format!("anon-{tail}"))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The tmux session that holds this worker.
    pub fn tmux_session(&self) -> String {
        format!("umbel-{}", self.0)
    }
}

impl fmt::Display for WorkerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for WorkerName {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        WorkerName::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_documented_alphabet() {
        for ok in ["a", "0", "w1", "build-app", "a-b-c-9", &"x".repeat(63)] {
            assert!(WorkerName::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn refuses_hostile_names_with_a_reason() {
        let cases = [
            ("", "empty"),
            ("a/b", "lower-case"),
            ("..", "start"),
            ("../etc", "start"),
            ("has space", "lower-case"),
            ("Upper", "start"),
            ("lowerUpper", "upper-case"),
            ("-dash", "start"),
            ("a.b", "lower-case"),
        ];
        for (bad, why) in cases {
            let err = WorkerName::parse(bad).unwrap_err();
            assert!(err.to_string().contains(why), "{bad:?}: {err}");
            assert_eq!(err.exit_code(), 2);
        }
        let long = "x".repeat(64);
        assert!(
            WorkerName::parse(&long)
                .unwrap_err()
                .to_string()
                .contains("63")
        );
    }

    #[test]
    fn anonymous_names_are_valid_and_vary_with_entropy() {
        let a = WorkerName::anonymous(1);
        let b = WorkerName::anonymous(u64::MAX);
        assert!(WorkerName::parse(a.as_str()).is_ok());
        assert!(a.as_str().starts_with("anon-") && a.as_str().len() == 11);
        assert_ne!(a, b);
        assert_eq!(a.tmux_session(), format!("umbel-{a}"));
    }
}
