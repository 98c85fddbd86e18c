//! Durations given on the command line, in MCP calls and in workflows: `90s`, `5m`, `1h 30m`,
//! `250ms`, or a bare number of seconds.

use super::errors::{Error, Result};
use std::time::Duration;

/// Parses `text` as a duration; `what` names the flag or field for the error message.
pub fn parse_duration(text: &str, what: &str) -> Result<Duration> {
    let trimmed = text.trim();
    if let Ok(secs) = trimmed.parse::<f64>()
        && secs.is_finite()
        && secs >= 0.0
    {
        return Ok(Duration::from_secs_f64(secs));
    }
    humantime::parse_duration(trimmed).map_err(|e| {
        Error::usage(format!(
            "invalid duration `{text}` for {what}: {e} (examples: 30s, 5m, 1h 30m, 250ms)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_units_and_bare_seconds() {
        assert_eq!(
            parse_duration("90s", "--timeout").unwrap(),
            Duration::from_secs(90)
        );
        assert_eq!(
            parse_duration("5m", "--timeout").unwrap(),
            Duration::from_secs(300)
        );
        assert_eq!(
            parse_duration("250ms", "--timeout").unwrap(),
            Duration::from_millis(250)
        );
        assert_eq!(
            parse_duration("1.5", "--timeout").unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(
            parse_duration("1h 30m", "--timeout").unwrap(),
            Duration::from_secs(5400)
        );
    }

    #[test]
    fn refuses_garbage_naming_the_flag() {
        let e = parse_duration("soon", "--timeout").unwrap_err();
        assert!(e.to_string().contains("--timeout"), "{e}");
        assert_eq!(e.exit_code(), 2);
        assert!(parse_duration("-3", "--timeout").is_err());
    }
}
