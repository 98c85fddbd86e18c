//! A worker's state, derived without waiting from its meta, its events and its pane.

use super::meta::Meta;
use super::outcome::ExitStatus;
use super::providers::{EventClass, StartupScreen};
use super::wait::{ClassifiedEvent, Liveness};
use serde::{Deserialize, Serialize};

/// What a worker is doing right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WorkerState {
    /// Spawn has not finished (dialogs, startup).
    Starting,
    /// Idle at its prompt, ready for `send`.
    Ready,
    /// A turn is running.
    Busy,
    /// Waiting for a person (permission, question).
    NeedsInput,
    /// The process ended (or was killed).
    Dead,
    /// `umbel park` ended its CLI; the next prompt starts it again on the same conversation.
    Parked,
}

impl WorkerState {
    pub fn as_str(self) -> &'static str {
        match self {
            WorkerState::Starting => "starting",
            WorkerState::Ready => "ready",
            WorkerState::Busy => "busy",
            WorkerState::NeedsInput => "needs-input",
            WorkerState::Dead => "dead",
            WorkerState::Parked => "parked",
        }
    }
}

/// What `status` lists as a worker's state: what it is doing, or `corrupt` when its meta.json
/// cannot be read (then `problem` says why, and only `kill NAME` acts on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ListedState {
    Worker(WorkerState),
    Unreadable(Unreadable),
}

/// The state of a worker umbel cannot read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Unreadable {
    /// Its meta.json is not what umbel wrote.
    Corrupt,
    /// It runs on another host, which did not answer in time.
    Unreachable,
    /// It ran on another host, which no longer has it.
    Gone,
}

impl ListedState {
    pub fn as_str(self) -> &'static str {
        match self {
            ListedState::Worker(state) => state.as_str(),
            ListedState::Unreadable(Unreadable::Corrupt) => "corrupt",
            ListedState::Unreadable(Unreadable::Unreachable) => "unreachable",
            ListedState::Unreadable(Unreadable::Gone) => "gone",
        }
    }
}

impl From<WorkerState> for ListedState {
    fn from(state: WorkerState) -> Self {
        ListedState::Worker(state)
    }
}

/// Everything `status` reports about one worker.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkerStatus {
    pub name: String,
    /// The host it runs on (`spawn --host`); absent for a worker on this machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub provider: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub state: ListedState,
    /// What is wrong with umbel's files for this worker (`corrupt` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Lines of the event log umbel could not read and skipped (not UTF-8, torn, foreign): the
    /// state is derived from the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<String>,
    /// Why it waits for a person (`needs-input` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub needs_input: Option<String>,
    /// The tool waiting for permission, when the hook said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_tool: Option<serde_json::Value>,
    /// The id of the approval it waits on (for `approve`/`deny --expect`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    pub cwd: String,
    pub created_at: u64,
    /// When the last hook event arrived (ms since the epoch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_event_at: Option<u64>,
    /// When its last turn was submitted and when it ended (ms since the epoch, from its hooks);
    /// absent before the first turn, and the end while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_started_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_ended_at: Option<u64>,
    /// `cli` while it is busy with a turn no `send` opened (the CLI woke itself: a background
    /// task, a follow-up; or a person typed in its pane); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// The event-log length: `wait --since` this to wait for anything newer.
    pub position: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitStatus>,
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// When `park` ended its CLI (ms since the epoch; `parked` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked_at: Option<u64>,
    /// The command that brings back a `dead` worker whose conversation can be continued
    /// (`umbel resume NAME`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_with: Option<String>,
    /// A warm worker (`-p --warm`) waiting for the next `-p` of its launch; absent for every
    /// other worker, and once a `-p` took it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm: Option<WarmStatus>,
    /// Its own git worktree (`spawn --worktree`): branch, commits ahead of its base, files
    /// with uncommitted changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<super::worktree::WorktreeStatus>,
    /// Its budget, when it has limits (`umbel budget`): the limits, what it used, the one
    /// reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<super::budget::BudgetState>,
}

/// How long a warm worker still waits for its `-p`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WarmStatus {
    /// When it was ready (ms since the epoch).
    pub ready_at: u64,
    /// When it ends itself unless a `-p` takes it first (ms since the epoch).
    pub expires_at: u64,
}

impl WorkerStatus {
    /// Whether the worker waits on a tool's approval (`approve`/`deny` answer it).
    pub fn asks_approval(&self) -> bool {
        self.needs_input.as_deref() == Some("permission")
    }

    /// A row that says only who and how it is listed, every other field empty: for a worker
    /// whose files (or host) do not tell more; callers fill in what they know.
    pub fn bare(name: &str, provider: &str, state: ListedState) -> WorkerStatus {
        WorkerStatus {
            name: name.to_string(),
            host: None,
            provider: provider.to_string(),
            model: None,
            state,
            problem: None,
            degraded: None,
            needs_input: None,
            pending_tool: None,
            approval_id: None,
            cwd: String::new(),
            created_at: 0,
            last_event_at: None,
            turn_started_at: None,
            turn_ended_at: None,
            origin: None,
            position: 0,
            exit: None,
            session_id: String::new(),
            transcript_path: None,
            parked_at: None,
            resume_with: None,
            warm: None,
            worktree: None,
            budget: None,
        }
    }
}

/// Why a pane's screen shows the CLI waiting for a person (`sign-in`, `trust`), from the
/// provider's startup-screen reading of it; `None` for any other screen. A CLI can fall back
/// to its sign-in screen mid-session, with no hook to say so.
pub fn screen_reason(screen: &StartupScreen) -> Option<&'static str> {
    match screen {
        StartupScreen::SignIn(_) => Some("sign-in"),
        StartupScreen::Dialog { .. } => Some("trust"),
        StartupScreen::Consent { .. } | StartupScreen::Person(_) => Some("dialog"),
        StartupScreen::Idle | StartupScreen::Other => None,
    }
}

pub use super::events::since_last_start;

/// Where the events of the worker's current transcript start in `events` (the whole log): past
/// the last start event, as a new CLI session (or claude's `/clear`) starts a new transcript;
/// but a start a resume line follows (see [`since_last_start`]) was the CLI resumed on its
/// conversation, which writes on in the same transcript.
pub fn transcript_start(events: &[ClassifiedEvent]) -> usize {
    let mut start = 0;
    let mut pending = None;
    for (index, event) in events.iter().enumerate() {
        if event.class == EventClass::Started {
            pending = Some(index + 1);
        } else if event.record.kind == super::events::RESUMED_EVENT {
            pending = None;
        } else if event.class.is_turn_event() {
            start = pending.take().unwrap_or(start);
        }
    }
    pending.unwrap_or(start)
}

/// Derives the state from the facts.
pub fn derive_state(
    meta: &Meta,
    events: &[ClassifiedEvent],
    liveness: &Liveness,
) -> (
    WorkerState,
    Option<(&'static str, Option<serde_json::Value>)>,
) {
    let (parked, events) = since_last_start(events);
    if parked {
        return (WorkerState::Parked, None);
    }
    if !matches!(liveness, Liveness::Alive)
        || events
            .iter()
            .any(|e| e.record.kind == super::events::EXIT_EVENT)
    {
        return (WorkerState::Dead, None);
    }
    if meta.ready_at.is_none() {
        return (WorkerState::Starting, None);
    }
    for (i, event) in events.iter().enumerate().rev() {
        match &event.class {
            // A waiting event the pending-approval reading drops repeats a question answered
            // or closed before it: the state is what that line made it.
            EventClass::NeedsInput { .. } => {
                if let Some(asked) = super::approvals::pending(&events[..=i]) {
                    return (WorkerState::NeedsInput, Some((asked.reason, asked.tool)));
                }
            }
            EventClass::Submitted | EventClass::Progress | EventClass::PermissionCheck { .. } => {
                return (WorkerState::Busy, None);
            }
            // An approval answered: the turn goes on (or ends without a hook, which the
            // transcript tells; see `send::state_now`).
            EventClass::Other if event.record.kind == super::events::ANSWERED_EVENT => {
                return (WorkerState::Busy, None);
            }
            EventClass::TurnEnded | EventClass::TurnFailed { .. } | EventClass::Started => {
                return (WorkerState::Ready, None);
            }
            EventClass::Other => {}
        }
    }
    (WorkerState::Ready, None)
}

/// Who opened the latest turn: `Some("cli")` when no `send` did — the latest submit is not the
/// first one at or after the position umbel's last `send` pasted at (`sent_at`), or there was no
/// `send` at all. `None` when umbel's `send` opened it, or no turn was submitted.
pub fn turn_origin(events: &[ClassifiedEvent], sent_at: Option<usize>) -> Option<&'static str> {
    // Positions are the events' own (`events` may be the log's last turn only).
    let mut submits = events
        .iter()
        .filter(|e| e.class == EventClass::Submitted)
        .map(|e| e.record.index);
    let latest = submits.clone().next_back()?;
    let sent = sent_at.and_then(|p| submits.find(|&i| i >= p));
    (sent != Some(latest)).then_some("cli")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::events;
    use crate::core::providers::Provider;
    use crate::core::test_data::event as ev;

    fn meta(ready: bool) -> Meta {
        Meta {
            name: "w".into(),
            provider: Provider::Claude,
            model: None,
            cwd: "/tmp".into(),
            bin: "/bin/claude".into(),
            tmux_session: "umbel-w".into(),
            session_id: "s".into(),
            transcript_path: None,
            anonymous: false,
            unattended: false,
            created_at: 1,
            ready_at: ready.then_some(2),
            umbel_version: "0".into(),
            cli_version: None,
            worktree: None,
        }
    }

    #[test]
    fn a_resumed_cli_writes_on_in_the_same_transcript() {
        use super::super::events::RESUMED_EVENT;
        use EventClass::{Other, Started, Submitted, TurnEnded};
        let log = |kinds: &[&str], classes: &[EventClass]| -> Vec<ClassifiedEvent> {
            let pairs = kinds.iter().zip(classes).enumerate();
            pairs.map(|(i, (k, c))| ev(i, k, c.clone())).collect()
        };
        let turn = [Submitted, TurnEnded];
        // start, turn, start (a resume), Resumed, turn: one transcript.
        let classes = [&[Started][..], &turn, &[Started, Other], &turn].concat();
        let resumed = ["S", "U", "E", "S", RESUMED_EVENT, "U", "E"];
        assert_eq!(transcript_start(&log(&resumed, &classes)), 1);
        // The same without the Resumed line (a /clear): the second start begins a new one.
        let cleared = ["S", "U", "E", "S", "Notification", "U", "E"];
        assert_eq!(transcript_start(&log(&cleared, &classes)), 4);
        // A start with no turn after it yet begins one too; an empty log starts at 0.
        assert_eq!(transcript_start(&log(&["S", "U", "E", "S"], &classes)), 4);
        assert_eq!(transcript_start(&[]), 0);
    }

    #[test]
    fn sign_in_screens_and_dialogs_are_reasons_to_wait_for_a_person() {
        let sign_in = StartupScreen::SignIn("Sign in with ChatGPT".into());
        assert_eq!(screen_reason(&sign_in), Some("sign-in"));
        let dialog = StartupScreen::Dialog {
            what: "folder trust",
            keys: &["Enter"],
        };
        assert_eq!(screen_reason(&dialog), Some("trust"));
        assert_eq!(screen_reason(&StartupScreen::Idle), None);
        assert_eq!(screen_reason(&StartupScreen::Other), None);
    }

    #[test]
    fn a_turn_no_send_opened_is_the_clis_own() {
        let events = [
            ev(0, "SessionStart", EventClass::Started),
            ev(1, "UserPromptSubmit", EventClass::Submitted),
            ev(2, "Stop", EventClass::TurnEnded),
            ev(3, "UserPromptSubmit", EventClass::Submitted),
        ];
        // umbel's send pasted at 1: the submit at 3 came after its turn ended.
        assert_eq!(turn_origin(&events, Some(1)), Some("cli"));
        assert_eq!(turn_origin(&events[..2], Some(1)), None);
        // The send pasted at 3 (after the Stop): that submit is its own.
        assert_eq!(turn_origin(&events, Some(3)), None);
        assert_eq!(turn_origin(&events, None), Some("cli"));
        assert_eq!(turn_origin(&events[..1], None), None);
    }

    /// claude and codex end a subagent (a Task tool's) with `SubagentStop`, not `Stop`: the
    /// parent's turn is still running. The payload is the shape claude documents for it.
    #[test]
    fn a_subagents_stop_does_not_end_the_parent_turn() {
        let payload = serde_json::json!({
            "session_id": "abc", "transcript_path": "/t.jsonl", "cwd": "/p",
            "permission_mode": "default", "hook_event_name": "SubagentStop",
            "stop_hook_active": false, "agent_id": "a1b2", "agent_type": "Explore",
            "agent_transcript_path": "/t/subagents/agent-a1b2.jsonl",
            "last_assistant_message": "Found 3 files."
        });
        for provider in [Provider::Claude, Provider::Codex] {
            let class = provider.module().classify("SubagentStop", Some(&payload));
            assert_eq!(class, EventClass::Other, "{provider:?}");
            let events = [
                ev(0, "UserPromptSubmit", EventClass::Submitted),
                ev(1, "SubagentStop", class),
            ];
            let state = derive_state(&meta(true), &events, &Liveness::Alive).0;
            assert_eq!(state, WorkerState::Busy, "{provider:?}");
        }
    }

    #[test]
    fn an_asks_late_notice_after_its_close_or_answer_keeps_the_state_that_line_made() {
        let asks = |tool: Option<serde_json::Value>| EventClass::NeedsInput {
            reason: "permission",
            tool,
        };
        let state = |events: &[ClassifiedEvent]| {
            let mut events = events.to_vec();
            events.push(ev(9, "Notification", asks(None)));
            derive_state(&meta(true), &events, &Liveness::Alive).0
        };
        let head = [
            ev(0, "UserPromptSubmit", EventClass::Submitted),
            ev(
                1,
                "PermissionRequest",
                asks(Some(serde_json::json!({"name": "Bash"}))),
            ),
        ];
        let closed = EventClass::TurnFailed {
            reason: "interrupted",
        };
        let closed = [&head[..], &[ev(2, events::TURN_CLOSED_EVENT, closed)]].concat();
        assert_eq!(state(&closed), WorkerState::Ready);
        let answered = [
            &head[..],
            &[ev(2, events::ANSWERED_EVENT, EventClass::Other)],
        ]
        .concat();
        assert_eq!(state(&answered), WorkerState::Busy);
        assert_eq!(state(&head), WorkerState::NeedsInput);
    }

    #[test]
    fn state_follows_the_latest_meaningful_event() {
        let alive = Liveness::Alive;
        let state = |events: &[ClassifiedEvent]| derive_state(&meta(true), events, &alive).0;
        assert_eq!(
            derive_state(&meta(false), &[], &alive).0,
            WorkerState::Starting
        );
        let mut events = vec![ev(0, "SessionStart", EventClass::Started)];
        assert_eq!(state(&events), WorkerState::Ready);
        events.push(ev(1, "UserPromptSubmit", EventClass::Submitted));
        assert_eq!(state(&events), WorkerState::Busy);
        events.push(ev(
            2,
            "PermissionRequest",
            EventClass::NeedsInput {
                reason: "permission",
                tool: None,
            },
        ));
        assert_eq!(state(&events), WorkerState::NeedsInput);
        events.push(ev(3, "PostToolUse", EventClass::Progress));
        events.push(ev(4, "Notification", EventClass::Other));
        assert_eq!(state(&events), WorkerState::Busy);
        events.push(ev(5, "Stop", EventClass::TurnEnded));
        assert_eq!(state(&events), WorkerState::Ready);
        assert_eq!(
            derive_state(&meta(true), &events, &Liveness::Gone).0,
            WorkerState::Dead
        );
    }
}
