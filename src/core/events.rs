//! The worker's event log, `events/log`: one line per hook that fired (and one for the worker's
//! exit), appended by `hooks/event.sh` and `hooks/launch.sh`:
//!
//! ```text
//! <unix-nanoseconds> <EventName> <payload file name, or ->
//! ```
//!
//! A *position* is a line count: `send` reports the count before it pastes, and `wait --since`
//! only looks at lines from that index on, so a send/wait pair is race-free across processes.

/// One parsed log line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRecord {
    /// Index of the line in the log (0-based); `position` values refer to these.
    pub index: usize,
    /// When the hook wrote the line, in nanoseconds since the Unix epoch.
    pub at_ns: u128,
    /// The hook event name (`Stop`, `UserPromptSubmit`, …) or `Exit` for the worker's exit.
    pub kind: String,
    /// The file under `events/` holding the hook's stdin payload, if any.
    pub payload: Option<String>,
}

/// The log line umbel writes for the worker's exit (see `hooks/launch.sh`).
pub const EXIT_EVENT: &str = "Exit";

/// Parses the whole log. Malformed lines (a torn write, a foreign line) still count as a position
/// so that indices stay stable, but carry the kind `?`.
pub fn parse_log(text: &str) -> Vec<EventRecord> {
    text.lines()
        .enumerate()
        .map(|(index, line)| parse_line(index, line))
        .collect()
}

fn parse_line(index: usize, line: &str) -> EventRecord {
    let mut parts = line.split(' ');
    let at_ns = parts.next().and_then(|t| t.parse().ok());
    let kind = parts.next().filter(|k| !k.is_empty());
    let payload = parts.next().filter(|p| *p != "-" && !p.is_empty());
    match (at_ns, kind) {
        (Some(at_ns), Some(kind)) => EventRecord {
            index,
            at_ns,
            kind: kind.to_string(),
            payload: payload.map(str::to_string),
        },
        _ => EventRecord {
            index,
            at_ns: 0,
            kind: "?".into(),
            payload: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines_with_and_without_payload() {
        let log = "1700000000000000001 SessionStart 1-1.SessionStart.json\n\
                   1700000000000000002 Exit -\n\
                   garbage\n";
        let events = parse_log(log);
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].kind, "SessionStart");
        assert_eq!(events[0].payload.as_deref(), Some("1-1.SessionStart.json"));
        assert_eq!(events[1].kind, EXIT_EVENT);
        assert_eq!(events[1].payload, None);
        assert_eq!(events[2].kind, "?");
        assert_eq!(events[2].index, 2);
    }
}
