//! The wait decision, as a pure function of what is known: the worker's classified events and
//! whether its pane is alive. The loop that gathers those facts (and owns the clock) lives in
//! `operations/wait`.

use super::events::EXIT_EVENT;
use super::outcome::{ExitStatus, Outcome, OutcomeKind};
use super::providers::EventClass;

pub use super::events::ClassifiedEvent;

/// Whether the worker's pane is alive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Liveness {
    Alive,
    /// The pane is dead (remain-on-exit keeps it); tmux's status if it recorded one.
    Dead(ExitStatus),
    /// The tmux session is gone.
    Gone,
}

/// How long after its submit hook a CLI may still show the prompt on its input line: the real
/// claude fires `UserPromptSubmit` before it clears the box and draws its spinner (hundreds of
/// ms on a loaded machine). A prompt seen there earlier is the one just taken, not one the CLI
/// put back after dropping the turn.
pub const SUBMIT_REDRAW_MS: u64 = 2000;

/// Whether a prompt on a busy worker's input line may be read as put back (the CLI dropped the
/// turn, e.g. Esc before any answer): only once the last submit in `events` is
/// [`SUBMIT_REDRAW_MS`] old at `now_ms` (ms since the epoch). Without a submit there is no turn
/// to have dropped.
pub fn restore_believable(events: &[ClassifiedEvent], now_ms: u64) -> bool {
    events
        .iter()
        .rev()
        .find(|e| e.class == EventClass::Submitted)
        .is_some_and(|submit| {
            let at_ms = u64::try_from(submit.record.at_ns / 1_000_000).unwrap_or(u64::MAX);
            now_ms.saturating_sub(at_ms) >= SUBMIT_REDRAW_MS
        })
}

/// The position a wait starts from when no `--since` was given: the latest submitted prompt, so
/// `send` then `wait` finds that turn's end even if it already happened.
pub fn default_since(events: &[ClassifiedEvent]) -> usize {
    events
        .iter()
        .rev()
        .find(|e| e.class == EventClass::Submitted)
        .map_or(end(events), |e| e.record.index)
}

/// The log's length: `events` are its last lines, the last one included.
pub fn end(events: &[ClassifiedEvent]) -> usize {
    events.last().map_or(0, |e| e.record.index + 1)
}

/// Decides whether the wait is over. `exit` is the launch wrapper's record, if written.
pub fn decide(
    events: &[ClassifiedEvent],
    since: usize,
    liveness: &Liveness,
    exit: Option<&ExitStatus>,
) -> Option<Outcome> {
    let recent = events.iter().filter(|e| e.record.index >= since);
    // A turn's own end comes after its submit: one logged between the position and the submit
    // is an earlier turn's reaching the log late (opencode's abort after an interrupt, its
    // hooks lagging its screen), and ends nothing here.
    let submit = recent
        .clone()
        .find(|e| e.class == EventClass::Submitted)
        .map_or(since, |e| e.record.index);
    for event in recent.clone() {
        let position = event.record.index + 1;
        let before_submit = event.record.index < submit;
        match &event.class {
            EventClass::TurnEnded | EventClass::TurnFailed { .. } if before_submit => {}
            EventClass::TurnEnded => {
                return Some(Outcome::new(OutcomeKind::Stop, "the turn ended", position));
            }
            EventClass::TurnFailed { reason } => {
                return Some(
                    Outcome::new(
                        OutcomeKind::ProviderError,
                        "the provider failed the turn",
                        position,
                    )
                    .with_reason(reason),
                );
            }
            // A parked worker's CLI ended because it was parked.
            _ if event.record.kind == EXIT_EVENT && parked(events) => {
                return Some(parked_outcome(end(events)));
            }
            _ if event.record.kind == EXIT_EVENT => {
                return Some(dead(exit.cloned(), position));
            }
            _ => {}
        }
    }
    let end = end(events);
    if parked(events) && *liveness != Liveness::Alive {
        return Some(parked_outcome(end));
    }
    match liveness {
        Liveness::Dead(status) => return Some(dead(exit.cloned().or(Some(status.clone())), end)),
        Liveness::Gone => {
            let mut o = Outcome::new(OutcomeKind::Dead, "the worker's tmux session is gone", end);
            o.exit = exit.cloned();
            return Some(o);
        }
        Liveness::Alive => {}
    }
    asking(events, recent, end)
}

/// The wait's end when the worker waits for a person: the pending approval, once the newest
/// line that means something is an ask (a tool part announced after the ask, opencode's,
/// leaves the worker asking).
fn asking<'a>(
    events: &[ClassifiedEvent],
    recent: impl DoubleEndedIterator<Item = &'a ClassifiedEvent>,
    end: usize,
) -> Option<Outcome> {
    let asked = super::approvals::pending(events);
    let newest = recent.rev().find(|e| e.class != EventClass::Other);
    match (newest.map(|e| &e.class), asked) {
        // The run's first line says what is asked (a later notice may say less).
        (Some(EventClass::NeedsInput { .. }), Some(asked)) => {
            let reason = asked.reason;
            let mut o = Outcome::new(
                OutcomeKind::Input,
                format!("the worker waits for {reason}"),
                end,
            )
            .with_reason(reason);
            o.approval_id = Some(asked.id());
            o.pending_tool = asked.tool;
            Some(o)
        }
        _ => None,
    }
}

/// Whether the newest park/resume line of `events` is a park.
fn parked(events: &[ClassifiedEvent]) -> bool {
    super::events::since_last_start(events).0
}

/// A parked worker: nothing runs, and nothing will until a send resumes it (`idle`, 123).
fn parked_outcome(position: usize) -> Outcome {
    Outcome::new(
        OutcomeKind::Idle,
        "the worker is parked: nothing runs until a send resumes it",
        position,
    )
    .with_reason("parked")
}

fn dead(exit: Option<ExitStatus>, position: usize) -> Outcome {
    let message = match &exit {
        Some(status) => format!("the worker {}", status.describe()),
        None => "the worker ended".to_string(),
    };
    let mut o = Outcome::new(OutcomeKind::Dead, message, position);
    o.exit = exit;
    o
}

/// The outcomes of a wait over several workers (`wait --all`), worst first: the wait exits
/// with the worst one's code. A worker gone is worse than a turn the provider failed, which is
/// worse than an answer its guardrails refused, a person being needed, and running out of time.
pub const WORST_FIRST: [OutcomeKind; 7] = [
    OutcomeKind::Dead,
    OutcomeKind::ProviderError,
    OutcomeKind::Rejected,
    OutcomeKind::Input,
    OutcomeKind::Timeout,
    OutcomeKind::Idle,
    OutcomeKind::Stop,
];

/// The worst of `outcomes` by [`WORST_FIRST`] (`None` for none).
pub fn worst(outcomes: impl IntoIterator<Item = OutcomeKind>) -> Option<OutcomeKind> {
    let rank = |k: &OutcomeKind| WORST_FIRST.iter().position(|w| w == k);
    outcomes.into_iter().min_by_key(rank)
}

/// `NAME@POS` as the worker's name and its own `--since` position; a plain `NAME` has none.
pub fn split_position(target: &str) -> Result<(&str, Option<usize>), String> {
    match target.rsplit_once('@') {
        None => Ok((target, None)),
        Some((name, pos)) => pos.parse().map(|p| (name, Some(p))).map_err(|_| {
            format!(
                "`{target}`: the position after `@` must be a number (`NAME@POS`, e.g. `w1@12`)"
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::events::EventRecord;
    use crate::core::test_data::event as ev;

    fn turn() -> Vec<ClassifiedEvent> {
        vec![
            ev(0, "SessionStart", EventClass::Started),
            ev(1, "UserPromptSubmit", EventClass::Submitted),
            ev(2, "Stop", EventClass::TurnEnded),
        ]
    }

    #[test]
    fn the_worst_outcome_decides_and_positions_split_off_names() {
        use OutcomeKind::*;
        assert_eq!(worst([Stop, Input, Timeout]), Some(Input));
        assert_eq!(worst([Stop, Stop]), Some(Stop));
        assert_eq!(worst([Idle, Dead, ProviderError]), Some(Dead));
        assert_eq!(worst([]), None);
        assert_eq!(split_position("w1@12"), Ok(("w1", Some(12))));
        assert_eq!(split_position("w1"), Ok(("w1", None)));
        assert!(split_position("w1@x").unwrap_err().contains("NAME@POS"));
    }

    #[test]
    fn a_stop_after_since_ends_the_wait_with_its_position() {
        let o = decide(&turn(), 1, &Liveness::Alive, None).unwrap();
        assert_eq!(o.outcome, OutcomeKind::Stop);
        assert_eq!(o.position, 3);
        assert!(
            decide(&turn(), 3, &Liveness::Alive, None).is_none(),
            "nothing newer yet"
        );
    }

    #[test]
    fn an_earlier_turns_end_logged_late_does_not_end_the_next_turn() {
        // opencode: the interrupted turn's abort and idle reach the log after the next send's
        // position (5), before that turn's own submit.
        let aborted = EventClass::TurnFailed {
            reason: "interrupted",
        };
        let mut events = vec![
            ev(5, "SessionError", aborted.clone()),
            ev(6, "SessionIdle", aborted),
            ev(7, "PromptTaken", EventClass::Submitted),
            ev(8, "SessionBusy", EventClass::Submitted),
        ];
        assert_eq!(decide(&events, 5, &Liveness::Alive, None), None);
        events.push(ev(9, "SessionIdle", EventClass::TurnEnded));
        let done = decide(&events, 5, &Liveness::Alive, None).expect("the turn's own end");
        assert_eq!((done.outcome, done.position), (OutcomeKind::Stop, 10));
        // No submit after the position (a wait for whatever comes next): an end still ends it.
        assert_eq!(
            decide(&events[..2], 5, &Liveness::Alive, None).map(|o| o.outcome),
            Some(OutcomeKind::ProviderError)
        );
    }

    #[test]
    fn default_since_is_the_latest_submit() {
        let mut events = turn();
        assert_eq!(default_since(&events), 1);
        events.push(ev(3, "UserPromptSubmit", EventClass::Submitted));
        assert_eq!(default_since(&events), 3);
        assert!(decide(&events, default_since(&events), &Liveness::Alive, None).is_none());
        assert_eq!(
            default_since(&events[..1]),
            1,
            "no prompt yet: wait for the future"
        );
    }

    #[test]
    fn the_exit_event_and_a_dead_pane_both_mean_dead_with_status() {
        let mut events = turn()[..2].to_vec();
        events.push(ev(2, EXIT_EVENT, EventClass::Other));
        let status = ExitStatus {
            exit_code: Some(3),
            signal: None,
        };
        let o = decide(&events, 1, &Liveness::Alive, Some(&status)).unwrap();
        assert_eq!(o.outcome, OutcomeKind::Dead);
        assert_eq!(o.exit, Some(status.clone()));
        assert!(o.message.contains("status 3"));

        let pane = Liveness::Dead(ExitStatus {
            exit_code: None,
            signal: Some(9),
        });
        let o = decide(&turn()[..2], 1, &pane, None).unwrap();
        assert_eq!(o.message, "the worker was killed by signal 9");
        assert_eq!(o.exit.unwrap().signal, Some(9));
        let o = decide(&turn()[..2], 1, &Liveness::Gone, None).unwrap();
        assert_eq!(o.outcome, OutcomeKind::Dead);
    }

    #[test]
    fn a_stop_before_the_exit_still_counts_as_stop() {
        let mut events = turn();
        events.push(ev(3, EXIT_EVENT, EventClass::Other));
        let o = decide(&events, 1, &Liveness::Gone, None).unwrap();
        assert_eq!(o.outcome, OutcomeKind::Stop);
    }

    #[test]
    fn provider_failure_and_pending_input() {
        let mut events = turn()[..2].to_vec();
        events.push(ev(
            2,
            "StopFailure",
            EventClass::TurnFailed {
                reason: "api-error",
            },
        ));
        let o = decide(&events, 1, &Liveness::Alive, None).unwrap();
        assert_eq!(
            (o.outcome, o.reason.as_deref()),
            (OutcomeKind::ProviderError, Some("api-error"))
        );

        let mut events = turn()[..2].to_vec();
        let tool = serde_json::json!({"name": "Bash"});
        events.push(ev(
            2,
            "PermissionRequest",
            EventClass::NeedsInput {
                reason: "permission",
                tool: Some(tool),
            },
        ));
        // claude follows the request with a Notification that does not name the tool.
        let notification = EventClass::NeedsInput {
            reason: "permission",
            tool: None,
        };
        events.push(ev(3, "Notification", notification));
        let o = decide(&events, 1, &Liveness::Alive, None).unwrap();
        assert_eq!(o.outcome, OutcomeKind::Input);
        assert_eq!(o.pending_tool.unwrap()["name"], "Bash");
        // A line that means nothing after the ask (opencode's tool part turning `running`)
        // leaves it asking.
        let mut later = events.clone();
        later.push(ev(4, "ToolUpdate", EventClass::Other));
        let o = decide(&later, 1, &Liveness::Alive, None).unwrap();
        assert_eq!(o.outcome, OutcomeKind::Input);

        // Answered: a tool ran after the request, so the wait goes on.
        events.push(ev(4, "PostToolUse", EventClass::Progress));
        assert!(decide(&events, 1, &Liveness::Alive, None).is_none());
    }

    #[test]
    fn the_last_turn_ended_when_its_newest_turn_event_is_a_normal_end() {
        let failed = EventClass::TurnFailed {
            reason: "interrupted",
        };
        let ended = [
            EventClass::Submitted,
            EventClass::Progress,
            EventClass::TurnEnded,
        ];
        assert!(EventClass::last_turn_ended(ended.iter()));
        let open = [
            EventClass::TurnEnded,
            EventClass::Submitted,
            EventClass::Progress,
        ];
        assert!(!EventClass::last_turn_ended(open.iter()));
        assert!(!EventClass::last_turn_ended(
            [EventClass::Submitted, failed].iter()
        ));
        assert!(!EventClass::last_turn_ended([EventClass::Started].iter()));
    }

    #[test]
    fn a_prompt_on_the_input_line_right_after_its_submit_is_not_read_as_put_back() {
        let submit = ClassifiedEvent {
            record: EventRecord {
                index: 3,
                at_ns: 10_000 * 1_000_000,
                kind: "UserPromptSubmit".into(),
                payload: None,
            },
            class: EventClass::Submitted,
        };
        let events = [submit];
        assert!(!restore_believable(&events, 10_000 + 150));
        assert!(!restore_believable(&events, 10_000 + SUBMIT_REDRAW_MS - 1));
        assert!(restore_believable(&events, 10_000 + SUBMIT_REDRAW_MS));
        assert!(
            !restore_believable(&[], 99_999),
            "no submit, no dropped turn"
        );
    }
}
