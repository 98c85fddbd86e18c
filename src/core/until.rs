//! When a wait ends, typed: `umbel wait`'s flags (a workflow step's `wait:`) parsed once where
//! they enter, so the wait loop and `operations::turn` never see a duration as text.

use super::args::WaitUntil;
use super::duration::{DEFAULT_WAIT, parse_given, parse_or};
use super::errors::Result;
use std::path::PathBuf;
use std::time::Duration;

/// A wait's conditions, durations parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Until {
    /// Give up (`timeout`) after this long.
    pub timeout: Duration,
    /// End `idle` when nothing moved for this long.
    pub idle: Option<Duration>,
    /// End `stop` (reason `file`) once this file exists (relative to the worker's cwd).
    pub file: Option<PathBuf>,
    /// Only a turn whose answer matches counts (compiled by the wait).
    pub pattern: Option<String>,
}

impl Default for Until {
    fn default() -> Self {
        Until {
            timeout: DEFAULT_WAIT,
            idle: None,
            file: None,
            pattern: None,
        }
    }
}

impl Until {
    /// Just a timeout (`-p --timeout`), the default when none is given.
    pub fn timeout(text: Option<&str>) -> Result<Self> {
        Ok(Until {
            timeout: parse_or(text, "--timeout", DEFAULT_WAIT)?,
            ..Until::default()
        })
    }
}

impl WaitUntil {
    /// The conditions, typed; a bad duration is a usage error naming its flag.
    pub fn parse(&self) -> Result<Until> {
        Ok(Until {
            idle: parse_given(self.idle_timeout.as_deref(), "--idle-timeout")?,
            file: self.file.clone(),
            pattern: self.pattern.clone(),
            ..Until::timeout(self.timeout.as_deref())?
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_flags_are_parsed_once_here() {
        let until = WaitUntil::default().parse().unwrap();
        assert_eq!(until, Until::default());
        assert_eq!(until.timeout, Duration::from_secs(1800));
        let given = WaitUntil {
            timeout: Some("5m".into()),
            idle_timeout: Some("90s".into()),
            pattern: Some("LGTM".into()),
            ..WaitUntil::default()
        };
        let until = given.parse().unwrap();
        assert_eq!(until.timeout, Duration::from_secs(300));
        assert_eq!(until.idle, Some(Duration::from_secs(90)));
        assert_eq!(until.pattern.as_deref(), Some("LGTM"));
        let bad = WaitUntil {
            idle_timeout: Some("soon".into()),
            ..WaitUntil::default()
        };
        assert!(
            bad.parse()
                .unwrap_err()
                .to_string()
                .contains("--idle-timeout")
        );
    }
}
