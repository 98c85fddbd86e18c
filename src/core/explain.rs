//! `umbel explain`: the evidence behind a worker's state, as a person debugging a stuck worker
//! needs it — the CLI and its version, what each recent hook event meant, the transcript record
//! that ended or opened the last turn, the screen rule that matched and its line, the state
//! `status` derives, and what umbel would do next. Pure: the verb gathers the facts
//! (`operations/explain.rs`), this turns them into the one [`Explanation`] the CLI prints
//! (text or `--json`) and MCP returns.

use super::events::{CHECK_EVENT, EXIT_EVENT};
use super::outcome::ExitStatus;
use super::providers::why::{ScreenLine, ScreenWhy};
use super::providers::{
    EventClass, Provider, ProviderModule, StartupScreen, Support, Version, str_field,
};
use super::status::{WorkerState, screen_reason};
use super::wait::ClassifiedEvent;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How many of the newest hook events an explanation lists.
pub const EVENTS_SHOWN: usize = 8;
/// How many transcript lines, from its end, are searched for the record that ended or opened
/// the last turn.
pub const TRANSCRIPT_REACH: usize = 5000;
/// How many characters of a record's text the excerpt keeps.
const EXCERPT: usize = 160;

/// Everything `umbel explain` shows: of a worker, or (`--screen`) of a saved screen alone.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    /// The worker; absent for `explain --screen`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The host it runs on (`spawn --host`); absent for a worker on this machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub cli: CliFacts,
    /// The state `status` reports; absent for `--screen`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<WorkerState>,
    /// The word `ls`, `status` and `top` show a person for that state (`ready` is `idle` before
    /// the first turn and `done` after it, `busy` is `working`); absent for `--screen`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
    /// Why it waits for a person (`needs-input` only): `permission`, `question`, `dialog`,
    /// `trust`, `sign-in`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub needs_input: Option<String>,
    /// The tool waiting for permission, when the hook said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_tool: Option<Value>,
    /// How the CLI ended (`dead` only), when it was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitStatus>,
    /// How umbel came to the state, one step each: the hooks, then the transcript and the
    /// screen where they changed it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derivation: Vec<String>,
    /// The event-log length (`wait --since` this to wait for anything newer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<usize>,
    /// The newest hook events (at most 8), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<ExplainedEvent>,
    /// The transcript and its record that ended or opened the last turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<TranscriptEvidence>,
    /// The screen and how the provider reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<ScreenEvidence>,
    /// What umbel would do next.
    pub next: Next,
}

/// The CLI a worker runs (or a saved screen came from).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CliFacts {
    /// `claude`, `codex` or `gemini`.
    pub provider: String,
    /// The binary that was launched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bin: Option<String>,
    /// The CLI's version: as umbel detected it at spawn, or as `--version` gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// How that version stands against the releases umbel supports: `supported`, `too-old`
    /// (spawn and -p refuse it), `newer` (than the newest tested; umbel tries it) or `unknown`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support: Option<String>,
    /// The same in words, with the supported window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_note: Option<String>,
}

impl CliFacts {
    /// The facts of `provider`'s CLI at `version` (if known), judged against its release
    /// table.
    pub fn of(provider: Provider, bin: Option<String>, version: Option<String>) -> CliFacts {
        let releases = provider.module().releases();
        let found = version.as_deref().and_then(Version::find);
        let (support, note) = match releases.support(found) {
            Support::Supported => (
                "supported",
                format!("supported (umbel supports {})", releases.window()),
            ),
            Support::TooOld => (
                "too-old",
                format!(
                    "older than the oldest release umbel supports ({}): spawn and -p refuse it; upgrade with `{}`",
                    releases.oldest,
                    releases.upgrade_command()
                ),
            ),
            Support::Newer => (
                "newer",
                format!(
                    "newer than the newest release umbel was tested on ({}): umbel tries it, and this explanation shows what it sees",
                    releases.newest_tested
                ),
            ),
            Support::Unknown => (
                "unknown",
                format!(
                    "version not known: umbel takes it as the newest tested ({})",
                    releases.newest_tested
                ),
            ),
        };
        CliFacts {
            provider: provider.as_str().to_string(),
            bin,
            version,
            support: Some(support.to_string()),
            support_note: Some(note),
        }
    }
}

/// One hook event and what it meant to umbel.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExplainedEvent {
    /// Its position in the event log (from 0).
    pub position: usize,
    /// The hook event (`Stop`, `UserPromptSubmit`, …), `Exit` for the CLI's exit.
    pub event: String,
    /// When the hook wrote it, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// What it meant.
    pub meaning: Meaning,
    /// Why the turn failed, or why it waits for a person.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The tool waiting for permission, when the hook named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<Value>,
}

/// What a hook event means to umbel (the provider's classification of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Meaning {
    /// The CLI started.
    Started,
    /// A prompt was accepted.
    Submitted,
    /// The turn ended.
    TurnEnded,
    /// The provider failed the turn (`reason`).
    TurnFailed,
    /// The CLI waits for a person (`reason`, `tool`).
    NeedsInput,
    /// The CLI ran its permission hook on a `tool` before its own rules decided: not yet a wait.
    PermissionCheck,
    /// Work moved (a tool ran).
    Progress,
    /// The CLI's process ended (launch.sh's line).
    Exit,
    /// A guardrail check umbel recorded.
    Check,
    /// Nothing umbel acts on.
    Other,
}

impl Meaning {
    pub fn as_str(self) -> &'static str {
        match self {
            Meaning::Started => "started",
            Meaning::Submitted => "submitted",
            Meaning::TurnEnded => "turn ended",
            Meaning::TurnFailed => "turn failed",
            Meaning::NeedsInput => "needs input",
            Meaning::PermissionCheck => "permission check",
            Meaning::Progress => "progress",
            Meaning::Exit => "exit",
            Meaning::Check => "guardrail check",
            Meaning::Other => "other",
        }
    }
}

/// The transcript and the record that ended or opened its last turn.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptEvidence {
    /// Where it is.
    pub path: String,
    /// The newest record that ended or opened a turn; absent when none was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<TranscriptRecord>,
    /// Why there is no record to show (no file yet, none within reach).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// One transcript record that bounds a turn.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptRecord {
    /// Whether it ended the turn or opened it (a turn with no end record yet).
    pub bounds: Bound,
    /// The record's type (`system/turn_duration`, `event_msg/task_complete`, `gemini`, …).
    pub kind: String,
    /// Why the turn failed, when the record says it did (`api-error`, `usage-limit`,
    /// `interrupted`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The start of its text (the answer, the error or the prompt), else of the record.
    pub excerpt: String,
    /// How many lines from the transcript's end it is (1: the last line).
    pub line_from_end: usize,
}

/// Which end of a turn a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    Ended,
    Opened,
}

/// A screen and how the provider reads it.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScreenEvidence {
    /// Where it came from: `pane` (read now), `kept` (the last screen kept when the worker
    /// died), `file` (`--screen`).
    pub source: String,
    /// The provider's reading.
    pub reading: Reading,
    /// What the dialog is (`workspace trust`), its question, or the sign-in line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub what: Option<String>,
    /// The keys umbel presses to answer a dialog it answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// The rule that matched, in words.
    pub rule: String,
    /// The line that decided it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<ScreenLine>,
    /// The input line, when one shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_line: Option<ScreenLine>,
    /// The line holding the busy marker, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busy_line: Option<ScreenLine>,
    /// Whether the input line holds text that was not submitted.
    pub pending_input: bool,
    /// What `status` reads from such a screen over a live worker: it waits for a person, and
    /// why (`sign-in`, `trust`, `dialog`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub needs_input: Option<String>,
    /// The screen itself.
    pub text: String,
}

/// How the provider reads a screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Reading {
    /// The idle prompt.
    Idle,
    /// A dialog umbel answers with keys.
    Dialog,
    /// A dialog umbel answers only with the user's consent (`--env`).
    Consent,
    /// A dialog for a person (a permission prompt, or one no rule knows).
    Person,
    /// A sign-in or onboarding screen.
    SignIn,
    /// Anything else: busy, still drawing, unknown.
    Other,
}

/// What umbel would do next, and why.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Next {
    pub action: Action,
    /// Why, with the command that helps.
    pub why: String,
}

/// umbel's next move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// `send` pastes a prompt: the worker is ready.
    AcceptSend,
    /// A turn runs: `wait` waits for it, `send` is refused.
    Wait,
    /// It waits for a person: `wait` ends `input` (126), `send` is refused.
    ReportNeedsInput,
    /// `send` is refused (the CLI ended).
    RefuseSend,
    /// Startup answers this dialog with its keys.
    AnswerDialog,
    /// Startup is not over yet.
    WaitForStartup,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::AcceptSend => "accept a send",
            Action::Wait => "wait",
            Action::ReportNeedsInput => "report needs-input",
            Action::RefuseSend => "refuse a send",
            Action::AnswerDialog => "answer the dialog",
            Action::WaitForStartup => "wait for startup",
        }
    }
}

/// What one hook event meant.
pub fn explain_event(event: &ClassifiedEvent) -> ExplainedEvent {
    let (meaning, reason, tool) = match &event.class {
        _ if event.record.kind == EXIT_EVENT => (Meaning::Exit, None, None),
        _ if event.record.kind == CHECK_EVENT => (Meaning::Check, None, None),
        EventClass::Started => (Meaning::Started, None, None),
        EventClass::Submitted => (Meaning::Submitted, None, None),
        EventClass::TurnEnded => (Meaning::TurnEnded, None, None),
        EventClass::TurnFailed { reason } => (Meaning::TurnFailed, Some(*reason), None),
        EventClass::NeedsInput { reason, tool } => {
            (Meaning::NeedsInput, Some(*reason), tool.clone())
        }
        EventClass::PermissionCheck { tool } => (Meaning::PermissionCheck, None, tool.clone()),
        EventClass::Progress => (Meaning::Progress, None, None),
        EventClass::Other => (Meaning::Other, None, None),
    };
    ExplainedEvent {
        position: event.record.index,
        event: event.record.kind.clone(),
        at_ms: u64::try_from(event.record.at_ns / 1_000_000).unwrap_or(u64::MAX),
        meaning,
        reason: reason.map(str::to_string),
        tool,
    }
}

/// The newest [`EVENTS_SHOWN`] events, oldest first.
pub fn recent_events(events: &[ClassifiedEvent]) -> Vec<ExplainedEvent> {
    let from = events.len().saturating_sub(EVENTS_SHOWN);
    events[from..].iter().map(explain_event).collect()
}

/// A screen as evidence: the provider's reading and the lines it rests on.
pub fn screen_evidence(why: ScreenWhy, source: &str, text: &str) -> ScreenEvidence {
    let needs_input = screen_reason(&why.reading).map(str::to_string);
    let (reading, what, keys) = match why.reading {
        StartupScreen::Idle => (Reading::Idle, None, &[][..]),
        StartupScreen::Other => (Reading::Other, None, &[][..]),
        StartupScreen::SignIn(line) => (Reading::SignIn, Some(line), &[][..]),
        StartupScreen::Person(question) => (Reading::Person, Some(question), &[][..]),
        StartupScreen::Dialog { what, keys } => (Reading::Dialog, Some(what.to_string()), keys),
        StartupScreen::Consent { what, keys, .. } => {
            (Reading::Consent, Some(what.to_string()), keys)
        }
    };
    ScreenEvidence {
        source: source.to_string(),
        reading,
        what,
        keys: keys.iter().map(|k| k.to_string()).collect(),
        rule: why.rule,
        line: why.line,
        input_line: why.input_line,
        busy_line: why.busy_line,
        pending_input: why.pending_input,
        needs_input,
        text: text.to_string(),
    }
}

/// The newest record that ended or opened a turn, from transcript lines given newest first
/// (at most [`TRANSCRIPT_REACH`] are read): what the provider's own parsers make of each line
/// alone — [`ProviderModule::opens_turn`], and whether its fold of that one record ends a turn.
/// An end record without text of its own (claude's `turn_duration`) shows the answer of the
/// turn it ended, folded from the records before it as `read` folds them; an opening record
/// without the prompt (codex `task_started`) shows the prompt written after it.
pub fn turn_bound(
    provider: &dyn ProviderModule,
    lines_newest_first: &mut dyn Iterator<Item = String>,
) -> Option<TranscriptRecord> {
    let mut lines = lines_newest_first.take(TRANSCRIPT_REACH).enumerate();
    // The prompt of the records read so far (codex writes it after the record that opens the
    // turn): the one read last is the nearest to that record.
    let mut prompt_after = None;
    while let Some((at, line)) = lines.next() {
        let Ok(record) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let alone = provider.turn_from_records(&mut std::iter::once(record.clone()));
        let (bounds, text) = if provider.opens_turn(&record) {
            (Bound::Opened, alone.prompt.clone().or(prompt_after))
        } else if !alone.ended {
            prompt_after = alone.prompt.or(prompt_after);
            continue;
        } else if alone.answer.is_some() {
            (Bound::Ended, alone.answer.clone())
        } else {
            let earlier = lines
                .by_ref()
                .filter_map(|(_, l)| serde_json::from_str::<Value>(&l).ok());
            let turn =
                provider.turn_from_records(&mut std::iter::once(record.clone()).chain(earlier));
            (Bound::Ended, turn.answer)
        };
        return Some(TranscriptRecord {
            bounds,
            kind: record_kind(&record),
            error: alone.error_reason.map(str::to_string),
            excerpt: excerpt(text.as_deref().unwrap_or(&line)),
            line_from_end: at + 1,
        });
    }
    None
}

/// A record's type, with its subtype (claude `system/turn_duration`) or its payload's type
/// (codex `event_msg/task_complete`).
fn record_kind(record: &Value) -> String {
    let kind = str_field(record, "type").unwrap_or("?");
    let sub = str_field(record, "subtype")
        .or_else(|| record.get("payload").and_then(|p| str_field(p, "type")));
    match sub {
        Some(sub) => format!("{kind}/{sub}"),
        None => kind.to_string(),
    }
}

/// The first line of `text`, at most [`EXCERPT`] characters.
pub fn excerpt(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    match line.char_indices().nth(EXCERPT) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

/// Why a worker that waits for a person does, and what answers it.
fn asks_why(name: &str, needs_input: Option<&str>) -> String {
    match needs_input {
        Some("permission") => format!(
            "a tool waits for approval: `wait` ends `input` (exit 126) and a send is refused; `umbel approve {name}` or `umbel deny {name}` answers it with the CLI's own keys"
        ),
        Some("question") => format!(
            "its model asks a question: `wait` ends `input` (exit 126) and a send is refused; `umbel answer {name} CHOICE` picks a choice (`umbel approvals` lists them), `umbel deny {name}` declines it"
        ),
        other => format!(
            "it waits for a person ({}): `wait` ends `input` (exit 126) and a send is refused; answer it in `umbel attach {name}`",
            other.unwrap_or("input")
        ),
    }
}

/// What umbel would do next with a worker in `state`; `resumable`: a dead one can be brought
/// back on its conversation.
pub fn next_for_worker(
    name: &str,
    state: WorkerState,
    needs_input: Option<&str>,
    (exit, resumable): (Option<&ExitStatus>, bool),
) -> Next {
    let (action, why) = match state {
        WorkerState::Ready => (
            Action::AcceptSend,
            format!("it is at its prompt: `umbel send {name} …` pastes a prompt"),
        ),
        WorkerState::Busy => (
            Action::Wait,
            format!(
                "a turn is running: `umbel wait {name}` waits for its end; a send is refused (a turn is still running)"
            ),
        ),
        WorkerState::NeedsInput => (Action::ReportNeedsInput, asks_why(name, needs_input)),
        WorkerState::Dead if resumable => (
            Action::RefuseSend,
            format!(
                "its CLI {}: a send is refused and `wait` ends `dead` (exit 125); `umbel resume {name}` brings it back on its conversation (`kill --purge` would lose it)",
                exit.map_or_else(|| "ended".to_string(), ExitStatus::describe)
            ),
        ),
        WorkerState::Dead => (
            Action::RefuseSend,
            format!(
                "its CLI {}: a send is refused and `wait` ends `dead` (exit 125); `umbel kill {name}` clears it",
                exit.map_or_else(|| "ended".to_string(), ExitStatus::describe)
            ),
        ),
        WorkerState::Parked => (
            Action::AcceptSend,
            format!(
                "it is parked (its CLI ended, its conversation kept): `umbel send {name} …` starts its CLI again on the same conversation, then pastes the prompt"
            ),
        ),
        WorkerState::Starting => (
            Action::WaitForStartup,
            "its spawn has not finished (dialogs, startup): a send is refused until it is ready"
                .to_string(),
        ),
    };
    Next { action, why }
}

/// What umbel would do at a screen alone (`explain --screen`): at startup, and over a live
/// worker.
pub fn next_for_screen(screen: &ScreenEvidence) -> Next {
    let what = screen.what.as_deref().unwrap_or("");
    let (action, why) = match screen.reading {
        Reading::Idle => (
            Action::AcceptSend,
            "the idle prompt: startup is over (ready), and a send pastes a prompt".to_string(),
        ),
        Reading::Dialog => (
            Action::AnswerDialog,
            format!(
                "startup answers `{what}` by pressing {}; over a live worker, `status` reports needs-input (trust) and a send is refused",
                screen.keys.join(" ")
            ),
        ),
        Reading::Consent => (
            Action::ReportNeedsInput,
            format!(
                "`{what}` is answered only with your consent (`--env`); otherwise spawn stops with needs-input (dialog, exit 126)"
            ),
        ),
        Reading::Person => (
            Action::ReportNeedsInput,
            format!(
                "a question for a person (\"{what}\"): spawn and wait report needs-input (dialog or permission, exit 126), never answering it"
            ),
        ),
        Reading::SignIn => (
            Action::ReportNeedsInput,
            format!("a sign-in screen (\"{what}\"): spawn exits 126; sign in through the CLI first"),
        ),
        Reading::Other if screen.busy_line.is_some() => (
            Action::Wait,
            "a turn runs: wait waits for its end; a send is refused".to_string(),
        ),
        Reading::Other => (
            Action::WaitForStartup,
            "no rule matched: startup keeps looking until `--startup-timeout`; a screen of a new release that should have matched is worth reporting with this output".to_string(),
        ),
    };
    Next { action, why }
}

#[cfg(test)]
#[path = "explain_tests.rs"]
mod tests;
