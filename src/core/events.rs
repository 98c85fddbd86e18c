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
/// The event-log kind of a recorded guardrail check (umbel writes it, no hook does).
pub const CHECK_EVENT: &str = "UmbelCheck";

/// The kind of a line that is not `<ns> <kind> <payload>` or not UTF-8.
pub const UNREADABLE: &str = "?";

/// Parses the whole log. Malformed lines (a torn write, a foreign line, bytes that are not
/// UTF-8) still count as a position so that indices stay stable, but carry the kind
/// [`UNREADABLE`]: one bad line degrades one event, never the whole log.
pub fn parse_log(bytes: &[u8]) -> Vec<EventRecord> {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if bytes.is_empty() {
        return Vec::new();
    }
    bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .map(|(index, line)| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            match std::str::from_utf8(line) {
                Ok(line) => parse_line(index, line),
                Err(_) => unreadable(index),
            }
        })
        .collect()
}

/// How many lines of a parsed log could not be read.
pub fn unreadable_lines<'a>(records: impl IntoIterator<Item = &'a EventRecord>) -> usize {
    records.into_iter().filter(|r| r.kind == UNREADABLE).count()
}

fn unreadable(index: usize) -> EventRecord {
    EventRecord {
        index,
        at_ns: 0,
        kind: UNREADABLE.into(),
        payload: None,
    }
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
        _ => unreadable(index),
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
        let events = parse_log(log.as_bytes());
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].kind, "SessionStart");
        assert_eq!(events[0].payload.as_deref(), Some("1-1.SessionStart.json"));
        assert_eq!(events[1].kind, EXIT_EVENT);
        assert_eq!(events[1].payload, None);
        assert_eq!(events[2].kind, UNREADABLE);
        assert_eq!(events[2].index, 2);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_one_unreadable_position() {
        let log = b"1 SessionStart -\n2 No\xfftify -\r\n3 Stop 3.json";
        let events = parse_log(log);
        assert_eq!(events.len(), 3);
        assert_eq!(events[1].kind, UNREADABLE);
        assert_eq!(events[2].kind, "Stop");
        assert_eq!(events[2].index, 2);
        assert_eq!(unreadable_lines(&events), 1);
        assert!(parse_log(b"").is_empty());
        assert_eq!(parse_log(b"1 A -\n\n2 B -\n").len(), 3);
    }
}
