//! The fleet's event stream (`umbel events`, `events -f --exec`, MCP resource updates): one
//! [`FleetEvent`] per state change of a worker, derived from what its event log already holds.
//!
//! Which log line is which event is two tables: [`class_event`] for hook lines (by what the
//! provider says the hook means) and [`KIND_EVENTS`] for the lines umbel itself writes (the
//! worker's `Exit`, …). A new kind of log line that is an event is one row of [`KIND_EVENTS`].
//! [`Tracker`] drops a repeat of a state the worker is already in (claude's `PermissionRequest`
//! then `Notification` is one needs-input), so the stream has one line per change.

use super::events::{
    ANSWERED_EVENT, BUDGET_EVENT, BUDGET_WARNING_EVENT, EXIT_EVENT, EventRecord, PARKED_EVENT,
    RESUMED_EVENT,
};
use super::outcome::{ExitStatus, OutcomeKind};
use super::providers::EventClass;
use serde::Serialize;

/// The worker was created (its meta.json; `at` is its creation time).
pub const SPAWNED: &str = "spawned";
/// The CLI started and is ready for prompts.
pub const READY: &str = "ready";
/// A prompt was accepted: a turn is running.
pub const SUBMITTED: &str = "submitted";
/// The turn ended: `stop`, or `provider-error` with its reason.
pub const TURN_ENDED: &str = "turn-ended";
/// The worker waits for a person (`permission`, `question`), with the pending tool.
pub const NEEDS_INPUT: &str = "needs-input";
/// The turn was interrupted (Esc, `umbel interrupt`).
pub const INTERRUPTED: &str = "interrupted";
/// The worker's process ended by itself (its exit status).
pub const DEAD: &str = "dead";
/// `umbel kill` ended the worker.
pub const KILLED: &str = "killed";
/// `umbel park` ended the worker's CLI; the next `send` (or `umbel resume`) starts it again.
pub const PARKED: &str = "parked";
/// A parked or dead worker's CLI runs again on its conversation and is ready (`send` to a parked
/// worker, `umbel resume`).
pub const RESUMED: &str = "resumed";

/// A pending approval was answered (`approve`, `deny`, `answer`, or a rule): `reason` is the
/// answer (`approve`, `approve-always`, `deny`, `choose`), `tool` what it answered, `answer` the
/// choice picked.
pub const ANSWERED: &str = "answered";

/// A limit of the worker's budget was reached (`reason`: `tokens`, `budget-usd`, `prompts`;
/// `detail` says the limit and what was used): its turn is stopped, its sends refused.
pub const BUDGET: &str = "budget";
/// A limit of the worker's budget passed 80 % (once per limit value).
pub const BUDGET_WARNING: &str = "budget-warning";

/// Log lines umbel writes (not hooks) that are events, by their kind: one row per kind.
pub const KIND_EVENTS: &[(&str, &str)] = &[
    (EXIT_EVENT, DEAD),
    (ANSWERED_EVENT, ANSWERED),
    (PARKED_EVENT, PARKED),
    (RESUMED_EVENT, RESUMED),
    (BUDGET_EVENT, BUDGET),
    (BUDGET_WARNING_EVENT, BUDGET_WARNING),
];

/// States a worker stays in until something else happens: a second line saying the same is
/// not a change.
/// opencode reports one interrupt twice (its aborted `SessionError`, then its idle with the
/// error): one turn, one `interrupted`.
const STICKY: &[&str] = &[READY, NEEDS_INPUT, DEAD, KILLED, PARKED, INTERRUPTED];

/// One state change of one worker.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FleetEvent {
    /// When it happened, in milliseconds since the Unix epoch.
    pub at: u64,
    /// The worker.
    pub worker: String,
    /// Its provider (`claude`, `codex`, `gemini`).
    pub provider: String,
    /// `spawned`, `ready`, `submitted`, `turn-ended`, `needs-input`, `answered`, `interrupted`,
    /// `dead`, `killed`, `parked`, `resumed`, `budget-warning`, `budget`.
    pub event: String,
    /// The event-log position after the line this event comes from (what `wait --since`
    /// takes); absent for `spawned` and `killed`, which are not log lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<usize>,
    /// For `turn-ended`: `stop` or `provider-error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<OutcomeKind>,
    /// Why: the provider error (`api-error`, `usage-limit`), what input is asked for
    /// (`permission`, `question`), the answer given (`approve`, `approve-always`, `deny`, `choose`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For `turn-ended`: the first line of the answer, when the end hook carries it; for
    /// `answered` with a choice (`answer`), the choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// For `needs-input`: the tool waiting for permission, as the CLI named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<serde_json::Value>,
    /// For `dead` and `killed`: how the process ended, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitStatus>,
    /// For `answered`: who answered, `caller` or `rule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// For `answered` by a rule: the rule, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// For `budget` and `budget-warning`: the limit and what was used
    /// (`--max-tokens 1000 reached: 1235 used`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl FleetEvent {
    /// An event with nothing but its name, worker and time.
    pub fn new(at: u64, worker: &str, provider: &str, event: &str) -> Self {
        FleetEvent {
            at,
            worker: worker.to_string(),
            provider: provider.to_string(),
            event: event.to_string(),
            position: None,
            outcome: None,
            reason: None,
            answer: None,
            tool: None,
            by: None,
            rule: None,
            exit: None,
            detail: None,
        }
    }

    /// The event as one line of text: `<worker> <event> [outcome] [reason] [tool] ["answer"]`
    /// (the time is the face's to print).
    pub fn describe(&self) -> String {
        let mut words = vec![self.worker.clone(), self.event.clone()];
        words.extend(self.outcome.map(|o| o.as_str().to_string()));
        words.extend(self.reason.clone());
        words.extend(self.tool.as_ref().and_then(tool_name));
        words.extend(self.exit.as_ref().map(|e| e.describe()));
        words.extend(self.answer.as_ref().map(|a| format!("{a:?}")));
        words.extend(self.detail.clone());
        words.join(" ")
    }
}

fn tool_name(tool: &serde_json::Value) -> Option<String> {
    let name = tool.get("name").or_else(|| tool.get("tool_name"))?;
    name.as_str().map(str::to_string)
}

/// What a log line means as an event, before its worker's details are filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub event: &'static str,
    pub outcome: Option<OutcomeKind>,
    pub reason: Option<String>,
    pub tool: Option<serde_json::Value>,
}

impl Change {
    fn named(event: &'static str) -> Self {
        Change {
            event,
            outcome: None,
            reason: None,
            tool: None,
        }
    }
}

/// The event a hook line is, by what its provider says it means (`None`: not a state change).
pub fn class_event(class: &EventClass) -> Option<Change> {
    Some(match class {
        EventClass::Started => Change::named(READY),
        EventClass::Submitted => Change::named(SUBMITTED),
        EventClass::TurnEnded => Change {
            outcome: Some(OutcomeKind::Stop),
            ..Change::named(TURN_ENDED)
        },
        EventClass::TurnFailed {
            reason: "interrupted",
        } => Change::named(INTERRUPTED),
        EventClass::TurnFailed { reason } => Change {
            outcome: Some(OutcomeKind::ProviderError),
            reason: Some(reason.to_string()),
            ..Change::named(TURN_ENDED)
        },
        EventClass::NeedsInput { reason, tool } => Change {
            reason: Some(reason.to_string()),
            tool: tool.clone(),
            ..Change::named(NEEDS_INPUT)
        },
        EventClass::PermissionCheck { .. } | EventClass::Progress | EventClass::Other => {
            return None;
        }
    })
}

/// The event a log line is: umbel's own kinds first ([`KIND_EVENTS`]), then the hook's class.
pub fn line_event(record: &EventRecord, class: &EventClass) -> Option<Change> {
    KIND_EVENTS
        .iter()
        .find(|(kind, _)| *kind == record.kind)
        .map(|(_, event)| Change::named(event))
        .or_else(|| class_event(class))
}

/// The first non-empty line of an answer, trimmed.
pub fn first_line(answer: &str) -> Option<String> {
    answer
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// One worker's last state in the stream: drops repeats of a sticky state, anything after the
/// worker was killed, and after it died anything but a park or a resume (which bring it back).
/// A parked worker's `ready` is its resume starting: `resumed` says it.
#[derive(Debug, Default, Clone)]
pub struct Tracker {
    last: Option<&'static str>,
}

impl Tracker {
    /// Whether `event` is a change (and, if so, remembers it).
    pub fn admit(&mut self, event: &'static str) -> bool {
        let back = matches!(event, KILLED | PARKED | RESUMED);
        let over = self.last == Some(DEAD) && !back;
        let resuming = self.last == Some(PARKED) && event == READY;
        let repeat = self.last == Some(event) && STICKY.contains(&event);
        if over || resuming || repeat || self.last == Some(KILLED) {
            return false;
        }
        self.last = Some(event);
        true
    }

    /// Work moved on (a tool ran): the next needs-input is a new question, not a repeat.
    pub fn progress(&mut self) {
        if self.last == Some(NEEDS_INPUT) {
            self.last = Some(SUBMITTED);
        }
    }

    /// The last state admitted.
    pub fn last(&self) -> Option<&'static str> {
        self.last
    }
}

/// Puts events of several workers in time order (stable: one worker's stay in log order).
pub fn in_time_order(events: &mut [FleetEvent]) {
    events.sort_by_key(|e| e.at);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: &str) -> EventRecord {
        EventRecord {
            index: 0,
            at_ns: 0,
            kind: kind.into(),
            payload: None,
        }
    }

    #[test]
    fn each_class_is_its_event_and_progress_is_none() {
        let ended = class_event(&EventClass::TurnEnded).unwrap();
        assert_eq!(
            (ended.event, ended.outcome),
            (TURN_ENDED, Some(OutcomeKind::Stop))
        );
        let failed = class_event(&EventClass::TurnFailed {
            reason: "usage-limit",
        })
        .unwrap();
        assert_eq!(failed.outcome, Some(OutcomeKind::ProviderError));
        assert_eq!(failed.reason.as_deref(), Some("usage-limit"));
        let esc = EventClass::TurnFailed {
            reason: "interrupted",
        };
        assert_eq!(class_event(&esc).unwrap().event, INTERRUPTED);
        assert_eq!(class_event(&EventClass::Started).unwrap().event, READY);
        assert!(class_event(&EventClass::Progress).is_none());
        assert!(class_event(&EventClass::Other).is_none());
    }

    #[test]
    fn umbel_s_own_lines_come_from_the_kind_table() {
        let exit = line_event(&record(EXIT_EVENT), &EventClass::Other).unwrap();
        assert_eq!(exit.event, DEAD);
        assert!(line_event(&record("UmbelCheck"), &EventClass::Other).is_none());
        let parked = line_event(&record(PARKED_EVENT), &EventClass::Other).unwrap();
        assert_eq!(parked.event, PARKED);
        let resumed = line_event(&record(RESUMED_EVENT), &EventClass::Other).unwrap();
        assert_eq!(resumed.event, RESUMED);
    }

    #[test]
    fn one_interrupt_reported_twice_is_one_event_and_the_next_turns_is_another() {
        let mut t = Tracker::default();
        let admitted: Vec<&str> = [SUBMITTED, INTERRUPTED, INTERRUPTED, SUBMITTED, INTERRUPTED]
            .into_iter()
            .filter(|e| t.admit(e))
            .collect();
        assert_eq!(admitted, [SUBMITTED, INTERRUPTED, SUBMITTED, INTERRUPTED]);
    }

    #[test]
    fn a_park_and_a_resume_bring_the_stream_back_after_the_cli_ended() {
        let mut t = Tracker::default();
        let admitted: Vec<&str> = [
            READY, TURN_ENDED, DEAD, PARKED, PARKED, READY, RESUMED, SUBMITTED, DEAD, READY,
            RESUMED, KILLED, RESUMED,
        ]
        .into_iter()
        .filter(|e| t.admit(e))
        .collect();
        assert_eq!(
            admitted,
            [
                READY, TURN_ENDED, DEAD, PARKED, RESUMED, SUBMITTED, DEAD, RESUMED, KILLED
            ]
        );
    }

    #[test]
    fn the_tracker_drops_repeats_of_a_state_and_everything_after_a_kill() {
        let mut t = Tracker::default();
        let admitted: Vec<&str> = [
            READY,
            SUBMITTED,
            NEEDS_INPUT,
            NEEDS_INPUT,
            TURN_ENDED,
            SUBMITTED,
            TURN_ENDED,
            DEAD,
            DEAD,
            KILLED,
            READY,
        ]
        .into_iter()
        .filter(|e| t.admit(e))
        .collect();
        let mut again = Tracker::default();
        assert!(again.admit(NEEDS_INPUT));
        again.progress();
        assert!(
            again.admit(NEEDS_INPUT),
            "a second question after a tool ran"
        );
        assert_eq!(
            admitted,
            [
                READY,
                SUBMITTED,
                NEEDS_INPUT,
                TURN_ENDED,
                SUBMITTED,
                TURN_ENDED,
                DEAD,
                KILLED
            ]
        );
    }

    #[test]
    fn a_line_of_text_names_what_matters() {
        let mut e = FleetEvent::new(1, "w1", "claude", TURN_ENDED);
        e.outcome = Some(OutcomeKind::Stop);
        e.answer = first_line("\n  Done: 3 files\nmore");
        assert_eq!(e.describe(), "w1 turn-ended stop \"Done: 3 files\"");
        let mut p = FleetEvent::new(1, "w2", "claude", NEEDS_INPUT);
        p.reason = Some("permission".into());
        p.tool = Some(serde_json::json!({"name": "Bash"}));
        assert_eq!(p.describe(), "w2 needs-input permission Bash");
    }
}
