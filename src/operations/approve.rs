//! `approve`, `deny` and `answer`: answer the tool (or the model's question) a worker waits on
//! with its CLI's own keys, and return once the CLI's own evidence shows the answer took — the
//! tool's hook, the turn going on or ending (a hook, or the transcript where the CLI fires none). Only one answer per approval:
//! answers take the worker's `answer.lock`, check the approval is still the one asked about,
//! press only on a screen that shows the dialog, and write an `Answered` line the next answer
//! finds.

use super::Ctx;
use super::dialog::Dialog;
use super::interrupt_keys::press_one_by_one;
use super::send::{state_and_events, state_now};
use super::wait::{last_transcript_turn, wait_guarded};
use super::worker::Worker;
use crate::adapters::files;
use crate::adapters::host::now_ms;
use crate::adapters::watch::FolderWatch;
use crate::core::approvals::{self, Asked};
use crate::core::duration::parse_or;
use crate::core::errors::{Error, Result};
use crate::core::events::{ANSWERED_EVENT, ClassifiedEvent, TURN_CLOSED_EVENT};
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::providers::EventClass;
use crate::core::providers::approval::{Answer, Refusal};
use crate::core::status::WorkerState;
use crate::core::until::Until;
use crate::core::wait::end;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long the CLI has to show an answer took, by default.
pub const DEFAULT_CONFIRM: Duration = Duration::from_secs(15);
/// How long the dialog may take to be drawn after the hook that announced it (claude fires
/// `PermissionRequest` before it draws its dialog).
const DIALOG_SHOWN: Duration = Duration::from_secs(5);
/// How long the dialog must have been on the screen before a key: claude draws its dialog
/// before the dialog takes the keyboard, and a number pressed in between is lost or typed into
/// the input box (anthropics/claude-code#64629); an answer by rule comes that fast.
const DIALOG_SETTLE: Duration = Duration::from_millis(500);
/// How long a turn that ended with the refusal has to report its outcome.
const OUTCOME_SETTLE: Duration = Duration::from_secs(5);

/// Who answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum By {
    /// A person or a supervising agent (`approve`, `deny`).
    Caller,
    /// A rule given at spawn (`--allowed-tools`, `--disallowed-tools`): the rule as written.
    Rule(String),
}

impl By {
    /// `caller` or `rule`, as the report and the `Answered` line say it.
    pub fn as_str(&self) -> &'static str {
        match self {
            By::Caller => "caller",
            By::Rule(_) => "rule",
        }
    }

    /// The rule that answered, if one did.
    pub fn rule(&self) -> Option<&str> {
        match self {
            By::Rule(rule) => Some(rule),
            By::Caller => None,
        }
    }
}

/// What an answer is to do.
#[derive(Debug, Clone)]
pub struct Request {
    pub answer: Answer,
    /// `answer`'s choice, as the caller wrote it (its number or its label).
    pub choice: Option<String>,
    /// Answer only this approval (its id).
    pub expect: Option<String>,
    /// How long the CLI has to show the answer took.
    pub confirm: Duration,
    pub by: By,
}

/// What `approve`/`deny` did.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Answered {
    /// The worker.
    pub name: String,
    /// The approval answered (its id).
    pub id: String,
    /// `approve`, `approve-always`, `deny` or `choose`.
    pub answer: Answer,
    /// The choice picked (`answer`), as the dialog labels it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<String>,
    /// `caller`, or `rule` (then `rule` names it).
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The tool, as the CLI names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Its input, secrets masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<serde_json::Value>,
    /// The keys pressed.
    pub keys: Vec<String>,
    /// The CLI's evidence that the answer took: the hook event that followed it; `prompt` (back
    /// at its prompt with no hook: claude's refusal, qwen's rewind); or `transcript` (a turn end
    /// `wait` read without a hook).
    pub confirmed_by: String,
    /// Whether the turn ended with the answer (every CLI ends it on a refusal).
    pub turn_ended: bool,
    /// The event-log position before the keys: `wait --since` this for what the answer brought.
    pub position: usize,
    /// How the turn ended, when it did (or, with `--wait`, once it did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// `deny --reason`: the position the reason was sent at (the next turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_sent_at: Option<usize>,
    /// What happened, in words.
    pub message: String,
}

/// Answers the approval `worker` waits on.
pub fn answer(ctx: &Ctx, worker: &Worker, request: &Request) -> Result<Answered> {
    let name = worker.name.to_string();
    let lock = ctx.state.session_dir(&worker.name).join("answer.lock");
    let Some(_lock) = files::try_lock(&lock)? else {
        return Err(Error::AlreadyAnswered {
            name,
            id: request.expect.clone().unwrap_or_else(|| "pending".into()),
            detail: "another answer is being given right now".into(),
        });
    };
    let (asked, position) = asked_now(ctx, worker, request.expect.as_deref())?;
    let dialog = Dialog::of(worker, &asked, request.answer)?;
    let (keys, choice) = dialog.keys(&asked, request.answer, request.choice.as_deref())?;
    await_dialog(ctx, worker, &dialog)?;
    let watch = FolderWatch::new(&ctx.state.events_dir(&worker.name))?;
    let before = Before::take(ctx, worker, position);
    let pressed: Vec<&str> = keys.iter().map(String::as_str).collect();
    press_one_by_one(ctx, worker, &pressed)?;
    let line = record(&asked, request, choice.as_deref());
    ctx.state
        .append_event(&worker.name, ANSWERED_EVENT, &line)?;
    let seen = confirm(ctx, worker, &before, request, &dialog, &watch)?;
    let outcome = turn_after(ctx, worker, &asked, request, position, &seen)?;
    let turn_ended = outcome.is_some();
    let confirmed_by = seen.by;
    let tool = asked.tool_name().map(str::to_string);
    let what = describe(request.answer, tool.as_deref(), choice.as_deref());
    let then = if turn_ended {
        "the turn ended"
    } else {
        "the turn goes on"
    };
    let message = format!("{what} (confirmed by {confirmed_by}); {then}");
    Ok(Answered {
        name,
        id: asked.id(),
        answer: request.answer,
        choice,
        by: request.by.as_str().into(),
        rule: request.by.rule().map(str::to_string),
        tool,
        input: asked.tool_input().map(approvals::redact),
        keys,
        confirmed_by,
        turn_ended,
        position,
        outcome,
        reason_sent_at: None,
        message,
    })
}

/// How the turn ended with the answer, if it did. A CLI that ended it without an end hook of
/// its own gets a log line saying so, with the evidence, for `status`, `send` and `wait`.
/// Every CLI ends the turn on a refusal, some a moment after the hook that confirmed it
/// (opencode's permission reply, then its idle): a deny returns with the worker ready.
fn turn_after(
    ctx: &Ctx,
    worker: &Worker,
    asked: &Asked,
    request: &Request,
    position: usize,
    seen: &Seen,
) -> Result<Option<Outcome>> {
    if seen.closed {
        let payload = serde_json::json!({"at": now_ms(), "id": asked.id(), "evidence": seen.by});
        ctx.state
            .append_event(&worker.name, TURN_CLOSED_EVENT, &payload)?;
    }
    // A turn umbel's own line closed is read back from the log, with its position.
    Ok(match &seen.outcome {
        Some(outcome) => Some(outcome.clone()),
        None if seen.ended || request.answer == Answer::Deny => {
            Some(outcome_from(ctx, worker, Some(position), OUTCOME_SETTLE)?)
                .filter(|o| o.outcome != OutcomeKind::Timeout)
        }
        None => None,
    })
}

/// `approve NAME [--always] [--expect ID] [--wait] [--timeout D]`.
pub fn approve(
    ctx: &Ctx,
    worker: &Worker,
    args: &crate::core::approval_args::ApproveArgs,
) -> Result<Answered> {
    let chosen = if args.always {
        Answer::ApproveAlways
    } else {
        Answer::Approve
    };
    let confirm = if args.wait {
        DEFAULT_CONFIRM
    } else {
        parse_or(args.timeout.as_deref(), "--timeout", DEFAULT_CONFIRM)?
    };
    let until = if args.wait {
        Some(Until::timeout(args.timeout.as_deref())?)
    } else {
        None
    };
    let request = Request {
        answer: chosen,
        choice: None,
        expect: args.expect.clone(),
        confirm,
        by: By::Caller,
    };
    let mut done = answer(ctx, worker, &request)?;
    if let Some(until) = until.filter(|_| done.outcome.is_none()) {
        done.outcome = Some(wait_guarded(
            ctx,
            worker,
            Some(done.position),
            &until,
            None,
        )?);
        done.turn_ended = true;
    }
    Ok(done)
}

/// `deny NAME [--reason TEXT] [--expect ID] [--timeout D]`: the refusal, then the reason as the
/// next prompt once the worker is ready for it.
pub fn deny(
    ctx: &Ctx,
    worker: &Worker,
    args: &crate::core::approval_args::DenyArgs,
) -> Result<Answered> {
    if let Some(reason) = &args.reason {
        super::send::check_prompt(reason.as_bytes())?;
    }
    let request = Request {
        answer: Answer::Deny,
        choice: None,
        expect: args.expect.clone(),
        confirm: parse_or(args.timeout.as_deref(), "--timeout", DEFAULT_CONFIRM)?,
        by: By::Caller,
    };
    let mut done = answer(ctx, worker, &request)?;
    if let Some(reason) = &args.reason {
        // Every CLI ends its turn on a refusal; one that went on refuses the send as busy.
        let sent = super::send::send(ctx, worker, reason.as_bytes())?;
        done.reason_sent_at = Some(sent.position);
        done.message
            .push_str("; the reason was sent as the next prompt");
    }
    Ok(done)
}

/// The approval the worker waits on now (and the log's length), or why there is none to answer.
fn asked_now(ctx: &Ctx, worker: &Worker, expect: Option<&str>) -> Result<(Asked, usize)> {
    let name = worker.name.to_string();
    let (state, events) = state_and_events(ctx, worker)?;
    let position = end(&events);
    let asked = approvals::pending(&events);
    let expected = match expect {
        Some(id) => Some(id.trim().parse::<usize>().map_err(|_| {
            Error::usage(format!(
                "`--expect {id}`: an approval id is a number (the `id` of `umbel approvals`)"
            ))
        })?),
        None => None,
    };
    if let Some(id) = expected
        && approvals::answered_after(&events, id)
        && asked.as_ref().is_none_or(|a| a.index != id)
    {
        return Err(Error::AlreadyAnswered {
            name,
            id: id.to_string(),
            detail: "an answer was written after it".into(),
        });
    }
    let asked = match (state, asked) {
        (WorkerState::NeedsInput, Some(asked)) => asked,
        (WorkerState::Dead, _) => return Err(super::send::dead(ctx, worker)),
        (state, _) => {
            return Err(Error::NotAsking {
                name,
                detail: not_asking(state),
            });
        }
    };
    if let Some(id) = expected
        && id != asked.index
    {
        return Err(Error::ApprovalChanged {
            name,
            expected: id.to_string(),
            pending: asked.id(),
            tool: asked.tool_name().unwrap_or("?").to_string(),
        });
    }
    Ok((asked, position))
}

/// Why a worker in `state` has no approval to answer.
fn not_asking(state: WorkerState) -> String {
    match state {
        WorkerState::Busy => "a turn is running and asks nothing".into(),
        WorkerState::Ready => "it is ready for a prompt".into(),
        WorkerState::Parked => "it is parked".into(),
        WorkerState::Starting => "it is still starting".into(),
        WorkerState::NeedsInput => {
            "it waits for a person on a dialog that is not an approval (see `umbel explain`)".into()
        }
        WorkerState::Dead => "it is dead".into(),
    }
}

/// Waits for the CLI to draw its dialog and to have shown it for [`DIALOG_SETTLE`]: keys go
/// only to a screen that shows it, and not before the dialog has the keyboard.
fn await_dialog(ctx: &Ctx, worker: &Worker, dialog: &Dialog) -> Result<()> {
    let deadline = Instant::now() + DIALOG_SHOWN;
    let mut shown_since: Option<Instant> = None;
    loop {
        let screen = ctx.tmux.capture(worker.session(), false)?;
        if dialog.shown_on(&screen) {
            let since = *shown_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= DIALOG_SETTLE {
                return Ok(());
            }
        } else {
            shown_since = None;
        }
        if Instant::now() >= deadline {
            return Err(Error::NotAsking {
                name: worker.name.to_string(),
                detail: format!(
                    "its hooks say it asks, but its screen shows no {} ({} not on it)",
                    dialog.what(),
                    dialog.shown().join(", ")
                ),
            });
        }
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The `Answered` line's payload.
fn record(asked: &Asked, request: &Request, choice: Option<&str>) -> serde_json::Value {
    let mut payload = serde_json::json!({
        "at": now_ms(),
        "id": asked.id(),
        "answer": request.answer.as_str(),
        "by": request.by.as_str(),
        "tool": asked.tool.as_ref().map(approvals::redact),
    });
    if let Some(rule) = request.by.rule() {
        payload["rule"] = rule.into();
    }
    if let Some(choice) = choice {
        payload["choice"] = choice.into();
    }
    payload
}

/// What was there before the keys: the log's length and the transcript's.
struct Before {
    position: usize,
    transcript: Option<(PathBuf, u64)>,
}

impl Before {
    fn take(ctx: &Ctx, worker: &Worker, position: usize) -> Before {
        let transcript = worker.transcript_path(ctx).map(|path| {
            let len = files::len(&path);
            (path, len)
        });
        Before {
            position,
            transcript,
        }
    }

    /// Whether the transcript grew since, its last turn now ending interrupted: the CLI's
    /// record of a refusal it fires no hook for.
    fn transcript_refused(&self, ctx: &Ctx, worker: &Worker) -> bool {
        self.transcript
            .as_ref()
            .is_some_and(|(path, len)| files::len(path) > *len)
            && last_transcript_turn(ctx, worker).is_some_and(|t| t.interrupted())
    }
}

/// The CLI's evidence that an answer took.
struct Seen {
    /// The hook event that followed the keys; `prompt`, `transcript`, or the notice hook.
    by: String,
    /// Whether the turn ended.
    ended: bool,
    /// How it ended, when `wait`'s own look found it (never when `closed`: then the log's
    /// line tells).
    outcome: Option<Outcome>,
    /// Whether the turn ended without any end hook, so umbel's log must say it did.
    closed: bool,
}

/// Waits for the CLI's evidence that the answer took: a hook after the keys that means work
/// moved (a tool ran or was refused, the next tool asks, the turn ended); on a refusal, what
/// the CLI leaves instead of an end hook (its transcript's interrupted turn, its idle notice);
/// or a turn end only the transcript or the screen shows.
fn confirm(
    ctx: &Ctx,
    worker: &Worker,
    before: &Before,
    request: &Request,
    dialog: &Dialog,
    watch: &FolderWatch,
) -> Result<Seen> {
    let position = before.position;
    let refusal = (request.answer == Answer::Deny).then(|| dialog.refusal());
    let deadline = Instant::now() + request.confirm;
    let mut still_asking = false;
    loop {
        let events = worker.events(ctx, position)?;
        let after: Vec<_> = events
            .iter()
            .filter(|e| e.record.index >= position && e.record.kind != ANSWERED_EVENT)
            .collect();
        if let Some(event) = after.iter().find(|e| moved(e)) {
            let ended = matches!(
                event.class,
                EventClass::TurnEnded | EventClass::TurnFailed { .. }
            ) || event.record.kind == crate::core::events::EXIT_EVENT;
            return Ok(seen(&event.record.kind, ended, None, false));
        }
        if let Some(by) = refusal.and_then(|r| refused(ctx, worker, before, r, &after)) {
            if !dialog_up(ctx, worker, dialog) {
                return Ok(seen(&by, true, None, true));
            }
            still_asking = true;
        }
        // A refusal whose evidence is known waits for it: the screen can look ready before.
        if matches!(refusal, None | Some(Refusal::Hook))
            && state_now(ctx, worker)?.0 == WorkerState::Ready
        {
            return at_prompt(ctx, worker);
        }
        // Else one look of the wait from the turn's start, which reads the transcript and the
        // screen as `wait` does.
        let look = outcome_from(ctx, worker, None, Duration::from_millis(1))?;
        match look.outcome {
            OutcomeKind::Timeout | OutcomeKind::Input => {}
            OutcomeKind::Dead => return Err(super::send::dead(ctx, worker)),
            _ => return Ok(seen("transcript", true, Some(look), false)),
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(not_answered(worker, request.confirm, still_asking));
        }
        watch.wait((deadline - now).min(Duration::from_millis(100)));
    }
}

/// Whether a line after the keys shows work moved. A tool-less ask is the CLI's second word
/// on the question answered (qwen's `permission_prompt` notice can land after a quick key).
fn moved(event: &ClassifiedEvent) -> bool {
    !matches!(
        event.class,
        EventClass::Other | EventClass::Started | EventClass::NeedsInput { tool: None, .. }
    )
}

/// What a CLI that fires no end hook on a refusal left instead (`after`: the lines after the
/// keys): its idle notice, or its transcript's interrupted turn.
fn refused(
    ctx: &Ctx,
    worker: &Worker,
    before: &Before,
    refusal: Refusal,
    after: &[&ClassifiedEvent],
) -> Option<String> {
    match refusal {
        Refusal::Notice { .. } => after
            .iter()
            .find(|e| is_notice(ctx, worker, refusal, e))
            .map(|notice| notice.record.kind.clone()),
        Refusal::Transcript if before.transcript_refused(ctx, worker) => {
            Some("transcript".to_string())
        }
        Refusal::Transcript | Refusal::Hook => None,
    }
}

/// No evidence in time: why.
fn not_answered(worker: &Worker, within: Duration, still_asking: bool) -> Error {
    let detail = if still_asking {
        "the CLI dropped its request but still shows the approval dialog: `umbel attach` to answer it".to_string()
    } else {
        format!(
            "no hook or transcript record followed the keys within {}",
            humantime::format_duration(within)
        )
    };
    Error::NotAnswered {
        name: worker.name.to_string(),
        detail,
    }
}

/// The worker is back at its prompt with no hook after the keys: the turn's end as `wait` reads
/// it, or, where it can read none, a turn dropped, which the log must then record (and the
/// outcome is read back from that line).
fn at_prompt(ctx: &Ctx, worker: &Worker) -> Result<Seen> {
    let read = outcome_from(ctx, worker, None, OUTCOME_SETTLE)?;
    if read.outcome != OutcomeKind::Timeout {
        return Ok(seen("prompt", true, Some(read), false));
    }
    Ok(seen("prompt", true, None, true))
}

/// Whether the screen still shows the dialog (a screen tmux cannot give counts as up).
fn dialog_up(ctx: &Ctx, worker: &Worker, dialog: &Dialog) -> bool {
    ctx.tmux
        .capture(worker.session(), false)
        .map_or(true, |screen| dialog.shown_on(&screen))
}

fn seen(by: &str, ended: bool, outcome: Option<Outcome>, closed: bool) -> Seen {
    Seen {
        by: by.to_string(),
        ended,
        outcome,
        closed,
    }
}

/// Whether `event` is the CLI's notice that it is idle at its prompt.
fn is_notice(ctx: &Ctx, worker: &Worker, refusal: Refusal, event: &ClassifiedEvent) -> bool {
    let payload = event
        .record
        .payload
        .as_deref()
        .and_then(|file| ctx.state.read_payload(&worker.name, file));
    refusal.is_notice(&event.record.kind, payload.as_ref())
}

/// How the turn that ended with the answer ended, as `wait --since` reports it.
fn outcome_from(
    ctx: &Ctx,
    worker: &Worker,
    since: Option<usize>,
    within: Duration,
) -> Result<Outcome> {
    let until = Until {
        timeout: within,
        ..Until::default()
    };
    wait_guarded(ctx, worker, since, &until, None)
}

/// The answer in words.
fn describe(answer: Answer, tool: Option<&str>, choice: Option<&str>) -> String {
    let tool = tool.unwrap_or("the tool");
    match answer {
        Answer::Approve => format!("approved {tool} once"),
        Answer::ApproveAlways => format!("approved {tool} for the rest of the session"),
        Answer::Deny => format!("denied {tool}"),
        Answer::Choose => format!("answered {tool}: {}", choice.unwrap_or("?")),
    }
}
