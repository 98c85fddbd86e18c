//! Durations given on the command line, in MCP calls and in workflows: `90s`, `5m`, `1h 30m`,
//! `250ms`, or a bare number of seconds. Each is parsed once, where it enters (a face, the
//! workflow runner, the verb that owns the flag), into a `std::time::Duration`; the defaults
//! live here.

use super::errors::{Error, Result};
use std::time::Duration;

/// How long a wait may take when no `--timeout` (or step `timeout:`) says.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30 * 60);
/// How long a worker's startup may take when no `--startup-timeout` says.
pub const DEFAULT_STARTUP: Duration = Duration::from_secs(60);
/// How long one `--accept` check may run when no `--check-timeout` says.
pub const DEFAULT_CHECK: Duration = Duration::from_secs(60);

/// A span of milliseconds as a person reads it, to the whole second (`9m 58s`, `0s`): how long a
/// worker has been parked, has left warm, has lived.
pub fn whole_seconds(ms: u64) -> String {
    humantime::format_duration(Duration::from_secs(ms / 1000)).to_string()
}

/// `text` parsed when given, else `default`.
pub fn parse_or(text: Option<&str>, what: &str, default: Duration) -> Result<Duration> {
    text.map_or(Ok(default), |text| parse_duration(text, what))
}

/// `text` parsed when given.
pub fn parse_given(text: Option<&str>, what: &str) -> Result<Option<Duration>> {
    text.map(|text| parse_duration(text, what)).transpose()
}

/// Parses `text` as a duration; `what` names the flag or field for the error message.
pub fn parse_duration(text: &str, what: &str) -> Result<Duration> {
    let trimmed = text.trim();
    let too_long = || {
        Error::usage(format!(
            "duration `{text}` for {what} is too long: at most 365 days"
        ))
    };
    if let Ok(secs) = trimmed.parse::<f64>()
        && secs.is_finite()
        && secs >= 0.0
    {
        if secs > MAX.as_secs_f64() {
            return Err(too_long());
        }
        return Ok(Duration::from_secs_f64(secs));
    }
    let parsed = humantime::parse_duration(trimmed).map_err(|e| {
        Error::usage(format!(
            "invalid duration `{text}` for {what}: {} (examples: 30s, 5m, 1h 30m, 250ms)",
            why(trimmed, &e)
        ))
    })?;
    if parsed > MAX {
        return Err(too_long());
    }
    Ok(parsed)
}

/// What is wrong with a duration, in umbel's words (humantime's name byte offsets and list
/// every unit spelling it knows).
fn why(text: &str, e: &humantime::DurationError) -> String {
    use humantime::DurationError as E;
    let rest = |offset: usize| text.get(offset..).unwrap_or("");
    let at = |offset: usize| rest(offset).chars().next().unwrap_or(' ');
    match e {
        E::InvalidCharacter(i) => format!("`{}` cannot be part of a duration", at(*i)),
        E::NumberExpected(i) if *i == 0 => "it must start with a number".to_string(),
        E::NumberExpected(i) => format!("a number must come before `{}`", rest(*i)),
        E::UnknownUnit { unit, .. } if unit.is_empty() => {
            "a unit must follow each number after the first".to_string()
        }
        E::UnknownUnit { unit, .. } => {
            format!("`{unit}` is not a unit: use ms, s, m, h or d")
        }
        E::NumberOverflow => "the number is too large, or finer than a nanosecond".to_string(),
        E::Empty => "it is empty".to_string(),
    }
}

/// The longest duration umbel takes: far beyond any wait, and far from where adding it to a
/// clock reading overflows (which panicked: `--timeout 18446744073709551615s`).
pub const MAX: Duration = Duration::from_secs(365 * 24 * 3600);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_durations_are_refused_naming_the_flag() {
        for huge in [
            "18446744073709551615s",
            "1e30",
            "366d",
            "99999999999999999999",
        ] {
            let err = parse_duration(huge, "--timeout").unwrap_err();
            assert_eq!(err.exit_code(), 2, "{huge}");
            assert!(err.to_string().contains("--timeout"), "{err}");
        }
        assert_eq!(parse_duration("365d", "--timeout").unwrap(), MAX);
    }

    #[test]
    fn accepts_units_and_bare_seconds() {
        for (text, want) in [
            ("90s", Duration::from_secs(90)),
            ("5m", Duration::from_secs(300)),
            ("250ms", Duration::from_millis(250)),
            ("1.5", Duration::from_millis(1500)),
            ("1h 30m", Duration::from_secs(5400)),
        ] {
            assert_eq!(parse_duration(text, "--timeout").unwrap(), want, "{text}");
        }
    }

    #[test]
    fn refuses_garbage_naming_the_flag() {
        let e = parse_duration("soon", "--timeout").unwrap_err();
        assert!(e.to_string().contains("--timeout"), "{e}");
        assert_eq!(e.exit_code(), 2);
        assert!(parse_duration("-3", "--timeout").is_err());
    }

    #[test]
    fn errors_are_in_umbels_words() {
        let said = |text: &str| parse_duration(text, "--timeout").unwrap_err().to_string();
        assert!(
            said("5x").contains("`x` is not a unit: use ms, s, m, h or d"),
            "{}",
            said("5x")
        );
        assert!(
            said("soon").contains("it must start with a number"),
            "{}",
            said("soon")
        );
        assert!(
            said("5m!").contains("`!` cannot be part of a duration"),
            "{}",
            said("5m!")
        );
        assert!(said("").contains("it is empty"), "{}", said(""));
        for text in ["5x", "soon", "5m!", ""] {
            assert!(!said(text).contains("supported units"), "{}", said(text));
        }
    }
}
