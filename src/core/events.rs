//! The worker's event log, `events/log`: one line per hook that fired (and one for the worker's
//! exit), appended by `hooks/event.sh` and `hooks/launch.sh`:
//!
//! ```text
//! <unix-nanoseconds> <EventName> <payload file name, or ->
//! ```
//!
//! A *position* is a line count: `send` reports the count before it pastes, and `wait --since`
//! only looks at lines from that index on, so a send/wait pair is race-free across processes.

/// One log line with its meaning for this worker's provider.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassifiedEvent {
    pub record: EventRecord,
    pub class: super::providers::EventClass,
}

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

/// The log line `park` writes once it has ended the worker's CLI: the worker is `parked` until
/// a [`RESUMED_EVENT`] line. Its payload: `{"at": ms, "idleMs": ms?}`.
pub const PARKED_EVENT: &str = "Parked";
/// The log line a resume writes once the CLI runs again on the same conversation and is ready
/// (`send` to a parked worker, `umbel resume`). Its payload: `{"at": ms, "ms": how long the
/// resume took, "from": "parked" | "dead"}`. An `Exit` line before it belongs to the CLI that
/// ran before.
pub const RESUMED_EVENT: &str = "Resumed";

/// The log line `approve`/`deny` (or a rule) writes once it has answered a pending approval
/// with the CLI's keys: the needs-input before it is over. Its payload: `{"at": ms, "id": the
/// approval's id, "answer": "approve" | "approve-always" | "deny", "by": "person" | "rule",
/// "rule"?: the rule that answered, "tool": {name, input}}`.
pub const ANSWERED_EVENT: &str = "Answered";

/// The log lines umbel writes when a worker's budget (`umbel budget`) is reached, and when a
/// limit first passes 80 % of itself. Their payload: `{"at": ms, "limit": "tokens" |
/// "budget-usd" | "prompts", "max", "used"}`.
pub const BUDGET_EVENT: &str = "Budget";
pub const BUDGET_WARNING_EVENT: &str = "BudgetWarning";

/// The log line a refusal writes when its CLI ended the turn without an end hook of its own.
pub use super::providers::TURN_CLOSED_EVENT;

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
        .map(|(index, line)| parse_record(index, line))
        .collect()
}

/// Parses line `index` of the log (without its newline).
pub fn parse_record(index: usize, line: &[u8]) -> EventRecord {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match std::str::from_utf8(line) {
        Ok(line) => parse_line(index, line).unwrap_or_else(|| unreadable(index)),
        Err(_) => unreadable(index),
    }
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

/// The most digits a time in nanoseconds has (until the year 2286).
const NS_DIGITS: usize = 19;

/// `<ns> <kind> [<payload>]`; else the event at the line's end after a torn fragment.
fn parse_line(index: usize, line: &str) -> Option<EventRecord> {
    let tokens: Vec<&str> = line.split(' ').collect();
    let plain = matches!(tokens.len(), 2 | 3) && tokens[0].len() <= NS_DIGITS && is_kind(tokens[1]);
    if plain {
        return record(index, tokens[0], tokens[1], tokens.get(2).copied());
    }
    recover(index, &tokens)
}

/// A line whose write was cut short (a full disk: `1796405680272824103 ` and no newline) has
/// the next hook's line glued on: that event is the last `<ns> <kind> [<payload>]` of the line,
/// its time the digits that end the token before the kind.
fn recover(index: usize, tokens: &[&str]) -> Option<EventRecord> {
    let last = tokens.len().checked_sub(1)?;
    (last.saturating_sub(1)..=last)
        .rev()
        .filter(|&k| k >= 1 && is_kind(tokens[k]))
        .find_map(|k| {
            let glued = tokens[k - 1];
            let digits = glued.len() - glued.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            if digits < 10 {
                return None;
            }
            let ns = &glued[glued.len() - digits.min(NS_DIGITS)..];
            record(index, ns, tokens[k], tokens.get(k + 1).copied())
        })
}

/// A hook event's name as `event.sh` accepts it, starting with a letter.
fn is_kind(token: &str) -> bool {
    token.starts_with(|c: char| c.is_ascii_alphabetic())
        && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn record(index: usize, ns: &str, kind: &str, payload: Option<&str>) -> Option<EventRecord> {
    if ns.is_empty() || !ns.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(EventRecord {
        index,
        at_ns: ns.parse().ok()?,
        kind: kind.to_string(),
        payload: payload
            .filter(|p| *p != "-" && !p.is_empty())
            .map(str::to_string),
    })
}

/// Whether the newest park/resume line is a park, and the events of the CLI that runs now
/// (those after the newest resume: an `Exit` before it was the CLI that ran before).
pub fn since_last_start(events: &[ClassifiedEvent]) -> (bool, &[ClassifiedEvent]) {
    let last = events
        .iter()
        .rposition(|e| e.record.kind == PARKED_EVENT || e.record.kind == RESUMED_EVENT);
    match last {
        Some(i) => (events[i].record.kind == PARKED_EVENT, &events[i + 1..]),
        None => (false, events),
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

    /// A write cut short by a full disk leaves a fragment without a newline; the next hook's line
    /// is glued to it. That event is still read, at the fragment's position.
    #[test]
    fn an_event_glued_after_a_torn_fragment_is_recovered() {
        for (torn, kind, payload) in [
            ("1796405680272824103 ", "Stop", Some("s.json")),
            ("1796405680272824103 Sto", "Stop", Some("s.json")),
            (
                "1796405680272824103 Stop 1796405680272824103-12.St",
                "Stop",
                Some("s.json"),
            ),
            ("17964056", "UserPromptSubmit", None),
            ("1796405680272824103 Stop -", "Notification", None),
        ] {
            let tail = match payload {
                Some(file) => format!("1796405680272824200 {kind} {file}"),
                None => format!("1796405680272824200 {kind} -"),
            };
            let log = format!("1 SessionStart -\n{torn}{tail}\n");
            let events = parse_log(log.as_bytes());
            assert_eq!(events.len(), 2, "{log}");
            assert_eq!(events[1].kind, kind, "{log}");
            assert_eq!(events[1].at_ns, 1_796_405_680_272_824_200, "{log}");
            assert_eq!(events[1].payload.as_deref(), payload, "{log}");
        }
        // A fragment alone, and words that only look like an event, stay unreadable.
        for line in [
            "1796405680272824103 ",
            "1796405680272824103",
            "x y Stop -",
            "12 34 56",
        ] {
            assert_eq!(parse_log(line.as_bytes())[0].kind, UNREADABLE, "{line}");
        }
    }
}
