//! Where a turn is, for a progress display: a pure reading of the worker's classified events.
//! The wait loop reports it through a callback; faces decide whether and how to show it.

use super::events::EventRecord;
use super::providers::EventClass;
use super::wait::ClassifiedEvent;

/// The phase of one `-p` or `wait` turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnPhase {
    /// The worker's CLI is starting (`-p` only).
    Starting,
    /// The prompt is being pasted and confirmed (`-p` only).
    Submitting,
    /// No turn has started since the wait's position: waiting for one (or for the pattern,
    /// the file, the quiet a `wait` is after). Never "submitted": nothing may have been.
    Waiting,
    /// The model is working.
    Working,
    /// A tool is running (its name, when the hook said).
    Tool(Option<String>),
    /// The CLI waits for a person (`permission`, `question`).
    NeedsInput(&'static str),
    /// The turn's end was seen; the outcome is being settled.
    Ending,
}

impl TurnPhase {
    /// How the phase reads on a progress line.
    pub fn label(&self) -> String {
        match self {
            TurnPhase::Starting => "starting".into(),
            TurnPhase::Submitting => "submitting".into(),
            TurnPhase::Waiting => "waiting".into(),
            TurnPhase::Working => "working".into(),
            TurnPhase::Tool(Some(name)) => format!("tool {name}"),
            TurnPhase::Tool(None) => "tool".into(),
            TurnPhase::NeedsInput(reason) => format!("needs input ({reason})"),
            TurnPhase::Ending => "ending".into(),
        }
    }
}

/// What a progress display shows of a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnProgress {
    pub phase: TurnPhase,
    /// Output tokens so far, when the CLI's transcript records usage.
    pub output_tokens: Option<u64>,
}

impl From<TurnPhase> for TurnProgress {
    fn from(phase: TurnPhase) -> Self {
        TurnProgress {
            phase,
            output_tokens: None,
        }
    }
}

/// Whether an event opens a tool call (`PreToolUse`, gemini `BeforeTool`) rather than closes it.
fn opens_tool(record: &EventRecord) -> bool {
    record.kind.starts_with("Pre") || record.kind.starts_with("Before")
}

/// The phase after the events from `since` on. `tool_name` looks up the tool an opening tool
/// event names (its payload's `tool_name`); it is asked about the latest such event only.
pub fn phase(
    events: &[ClassifiedEvent],
    since: usize,
    tool_name: impl Fn(&EventRecord) -> Option<String>,
) -> TurnPhase {
    let mut phase = TurnPhase::Waiting;
    let mut open_tool: Option<&EventRecord> = None;
    for event in events.iter().filter(|e| e.record.index >= since) {
        // Events that mean nothing here (a notification, a status line) keep the phase, and
        // the open tool with it.
        let next = match &event.class {
            EventClass::Submitted => TurnPhase::Working,
            EventClass::Progress if opens_tool(&event.record) => TurnPhase::Tool(None),
            EventClass::Progress => TurnPhase::Working,
            EventClass::NeedsInput { reason, .. } => TurnPhase::NeedsInput(reason),
            EventClass::TurnEnded | EventClass::TurnFailed { .. } => TurnPhase::Ending,
            // The open tool's permission is being decided: it stays the open tool.
            EventClass::Started | EventClass::PermissionCheck { .. } | EventClass::Other => {
                continue;
            }
        };
        open_tool = matches!(next, TurnPhase::Tool(_)).then_some(&event.record);
        phase = next;
    }
    match (phase, open_tool) {
        (TurnPhase::Tool(_), Some(record)) => TurnPhase::Tool(tool_name(record)),
        (phase, _) => phase,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::test_data::event as ev;

    fn bash(record: &EventRecord) -> Option<String> {
        (record.payload.as_deref() == Some("3.json")).then(|| "Bash".into())
    }

    #[test]
    fn a_turn_moves_from_submitted_through_tools_to_its_end() {
        let events = [
            ev(0, "SessionStart", EventClass::Started),
            ev(1, "UserPromptSubmit", EventClass::Submitted),
            ev(2, "Notification", EventClass::Other),
            ev(3, "PreToolUse", EventClass::Progress),
            ev(4, "PostToolUse", EventClass::Progress),
            ev(5, "Stop", EventClass::TurnEnded),
        ];
        let at = |n: usize| phase(&events[..n], 1, bash);
        let noisy = [
            events[1].clone(),
            events[3].clone(),
            ev(9, "Notification", EventClass::Other),
        ];
        assert_eq!(
            phase(&noisy, 0, bash),
            TurnPhase::Tool(Some("Bash".into())),
            "a notification during a tool keeps its name"
        );
        assert_eq!(at(1), TurnPhase::Waiting);
        assert_eq!(at(2), TurnPhase::Working);
        assert_eq!(
            at(3),
            TurnPhase::Working,
            "an unrelated event changes nothing"
        );
        assert_eq!(at(4), TurnPhase::Tool(Some("Bash".into())));
        assert_eq!(at(5), TurnPhase::Working);
        assert_eq!(at(6), TurnPhase::Ending);
    }

    #[test]
    fn gemini_tools_and_questions_are_read_too() {
        let events = [
            ev(0, "BeforeAgent", EventClass::Submitted),
            ev(1, "BeforeTool", EventClass::Progress),
            ev(
                2,
                "Notification",
                EventClass::NeedsInput {
                    reason: "permission",
                    tool: None,
                },
            ),
        ];
        assert_eq!(phase(&events[..2], 0, |_| None), TurnPhase::Tool(None));
        assert_eq!(
            phase(&events, 0, |_| None),
            TurnPhase::NeedsInput("permission")
        );
        assert_eq!(phase(&events, 3, |_| None), TurnPhase::Waiting);
        assert_eq!(TurnPhase::Tool(Some("Bash".into())).label(), "tool Bash");
    }
}
