//! Loading what the verbs need to know about one worker: its meta, its classified events, its
//! pane, and the answer of its last turn.

use super::Ctx;
use crate::adapters::transcript::ReverseLines;
use crate::core::errors::{Error, Result};
use crate::core::events::{CHECK_EVENT, UNREADABLE};
use crate::core::meta::Meta;
use crate::core::name::WorkerName;
use crate::core::providers::{
    EventClass, ProviderModule, StartupScreen, TranscriptTurn, payload_session_id, str_field,
};
use crate::core::wait::{ClassifiedEvent, Liveness, restore_believable};
use serde::Serialize;
use std::path::PathBuf;

/// How far back before the asked-for lines [`Worker::events`] looks for the last turn's start.
pub const REACH: usize = 10_000;

/// How many of the last events have their payloads read to judge a worker's state.
pub const RECENT: usize = 16;
/// How long a CLI may take to write to its transcript what its hooks already reported (claude
/// writes a turn a moment after its `Stop` hook, qwen 0.23 its answer up to ~1.5 s after):
/// `read --all`, a park and a fork wait at most this long for it.
pub const TRANSCRIPT_LAG: std::time::Duration = std::time::Duration::from_secs(3);

/// A worker as the verbs see it: loaded once by the face (or handed back by `spawn`) and passed
/// to every verb the command runs, so meta.json is read once per command.
#[derive(Debug, Clone)]
pub struct Worker {
    pub name: WorkerName,
    pub meta: Meta,
}

impl Worker {
    /// Loads a worker by name (validating the name first).
    pub fn load(ctx: &Ctx, raw_name: &str) -> Result<Self> {
        let name = WorkerName::parse(raw_name)?;
        let meta = ctx.state.read_meta(&name)?;
        Ok(Worker { name, meta })
    }

    /// The worker `spawn` just wrote the meta of.
    pub fn from_meta(meta: Meta) -> Result<Self> {
        let name = WorkerName::parse(&meta.name)?;
        Ok(Worker { name, meta })
    }

    pub fn provider(&self) -> &'static dyn ProviderModule {
        self.meta.provider.module()
    }

    pub fn session(&self) -> &str {
        &self.meta.tmux_session
    }

    /// The end of the event log with each line's meaning, oldest first: every line from `from`
    /// on (the last line always, so [`crate::core::wait::end`] is the log's length), and before
    /// `from` back to the last turn's start (its submit hook, or the CLI's start), at most
    /// [`REACH`] lines. Payloads are read only for lines from `from` on (older lines are
    /// classified by name alone). The log is read from its end: what this costs follows the
    /// size of the last turn, not of the log.
    pub fn events(&self, ctx: &Ctx, from: usize) -> Result<Vec<ClassifiedEvent>> {
        let provider = self.provider();
        let mut events = Vec::new();
        let mut anchored = false;
        for record in ctx.state.log_backwards(&self.name)? {
            let wanted = record.index >= from || events.is_empty();
            if !wanted && (anchored || events.len() >= REACH) {
                break;
            }
            let payload = (record.index >= from)
                .then_some(record.payload.as_deref())
                .flatten()
                .and_then(|file| ctx.state.read_payload(&self.name, file));
            let class = provider.class_of(&record.kind, payload.as_ref());
            anchored |= matches!(class, EventClass::Submitted | EventClass::Started);
            events.push(ClassifiedEvent { record, class });
        }
        events.reverse();
        Ok(events)
    }

    /// Whether the CLI dropped the open turn and put its prompt back into the input box (Esc
    /// before any answer), as `screen` shows — believed only once the submit in `events` is
    /// older than the CLI's redraw after it ([`restore_believable`]): until then the prompt on
    /// the input line is the one it has just taken.
    pub fn prompt_put_back(&self, events: &[ClassifiedEvent], screen: &str) -> bool {
        self.provider().prompt_restored(screen)
            && restore_believable(events, crate::adapters::host::now_ms())
    }

    /// The latest submitted turn (at or after `from`) when the transcript says it ended —
    /// matched by the id the submit hook gave it. Some providers end a turn without any hook
    /// (codex API errors and usage limits, claude's Esc); this is how umbel still knows.
    pub fn ended_in_transcript(
        &self,
        ctx: &Ctx,
        events: &[ClassifiedEvent],
        from: usize,
    ) -> Option<TranscriptTurn> {
        let provider = self.provider();
        let submit = events
            .iter()
            .rev()
            .take_while(|e| e.record.index >= from)
            .find(|e| e.class == EventClass::Submitted)?;
        let payload = ctx
            .state
            .read_payload(&self.name, submit.record.payload.as_deref()?)?;
        let turn_id = provider.submit_turn_id(&payload)?;
        // copilot's submit hook names no transcript: the worker's own (its end hook's, its launch's).
        let path = str_field(&payload, "transcript_path")
            .map(PathBuf::from)
            .or_else(|| self.transcript_path(ctx))?;
        let turn = provider.last_turn(&mut ReverseLines::open(&path)?);
        (turn.ended && turn.turn_id.as_deref() == Some(turn_id.as_str())).then_some(turn)
    }

    /// The last turn's events as `status` judges them: payloads read for the last [`RECENT`]
    /// lines (the pending tool, the ids the CLI reported), older lines back to the turn's start
    /// classified by name.
    pub fn recent_events(&self, ctx: &Ctx) -> Result<Vec<ClassifiedEvent>> {
        let len = ctx.state.log_len(&self.name)?;
        self.events(ctx, len.saturating_sub(RECENT))
    }

    /// Whether the open turn ended though no hook says so because one was lost — its submit
    /// hook's payload is missing or a line after it is torn (a full disk) — while the transcript's
    /// last turn ended and the screen shows the CLI idle at its prompt. Asked only of a busy
    /// worker: without such a loss, the hooks are believed.
    pub fn ended_past_lost_hooks(
        &self,
        ctx: &Ctx,
        events: &[ClassifiedEvent],
        screen: &str,
    ) -> bool {
        let Some(submit) = events
            .iter()
            .rposition(|e| e.class == EventClass::Submitted)
        else {
            return false;
        };
        let lost = events[submit].record.payload.is_none()
            || events[submit..].iter().any(|e| e.record.kind == UNREADABLE);
        lost && matches!(self.provider().startup_screen(screen), StartupScreen::Idle)
            && self.transcript_path(ctx).is_some_and(|path| {
                ReverseLines::open(&path)
                    .is_some_and(|mut lines| self.provider().last_turn(&mut lines).ended)
            })
    }

    /// Where the transcript is: the newest hook payload that names it (a CLI can move to a new
    /// file, e.g. claude after `/clear`), else what spawn predicted.
    pub fn transcript_path(&self, ctx: &Ctx) -> Option<PathBuf> {
        ctx.state
            .log_backwards(&self.name)
            .ok()?
            .take(REACH)
            .find_map(|r| {
                let payload = ctx.state.read_payload(&self.name, r.payload.as_deref()?)?;
                str_field(&payload, "transcript_path")
                    .filter(|p| !p.is_empty())
                    .map(PathBuf::from)
            })
            .or_else(|| self.meta.transcript_path.clone())
    }

    /// Whether the pane is alive.
    pub fn liveness(&self, ctx: &Ctx) -> Result<Liveness> {
        Ok(ctx.tmux.pane(self.session())?.liveness)
    }

    /// Waits, at most [`TRANSCRIPT_LAG`], until the transcript holds the last turn when the
    /// hooks say it ended normally: qwen 0.23 writes its answer up to ~1.5 s after its `Stop`
    /// hook, claude a turn's last records a moment after, copilot its log seconds after on a
    /// loaded machine, and claude 2.1.246 may not have created the transcript at its first
    /// `Stop`. A park or fork before then loses the answer; a `read` or `budget` misses it.
    pub fn await_recorded(&self, ctx: &Ctx, events: &[ClassifiedEvent]) {
        if !EventClass::last_turn_ended(events.iter().map(|e| &e.class)) {
            return;
        }
        let Some(path) = self.transcript_path(ctx) else {
            return;
        };
        let deadline = std::time::Instant::now() + TRANSCRIPT_LAG;
        let recorded = || {
            ReverseLines::open(&path)
                .is_some_and(|mut lines| self.provider().last_turn(&mut lines).ended)
        };
        while !recorded() && std::time::Instant::now() < deadline && !ctx.cancelled() {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// The answer of the last finished turn: the end-of-turn hook's payload first, the
    /// transcript (read from its end) as the durable source.
    pub fn answer(&self, ctx: &Ctx) -> Result<Answer> {
        let mut walk = LogWalk::default();
        match self.answer_from_hooks(ctx, &mut walk)? {
            Some(answer) => Ok(answer),
            None => self.answer_from_transcript(ctx, walk),
        }
    }

    /// Walks the event log back from its end to the last turn's end; its hook's answer, if the
    /// payload has one. What the walk learnt on the way is left in `walk`.
    fn answer_from_hooks(&self, ctx: &Ctx, walk: &mut LogWalk) -> Result<Option<Answer>> {
        let provider = self.provider();
        for record in ctx.state.log_backwards(&self.name)? {
            let payload = record
                .payload
                .as_deref()
                .and_then(|f| ctx.state.read_payload(&self.name, f));
            if let Some(lost) = &mut walk.lost {
                if lost.learn(provider, &record.kind, payload.as_ref()) {
                    break;
                }
                continue;
            }
            let Some(payload) = payload else {
                if ends_turn(provider, &record.kind) {
                    walk.lost = Some(LostEnd::default());
                } else if provider.class_of(&record.kind, None) == EventClass::Submitted {
                    // The last turn's own submit: nothing before it is that turn's answer.
                    break;
                }
                continue;
            };
            if record.kind == CHECK_EVENT {
                walk.checked.get_or_insert_with(|| accepted_value(&payload));
                continue;
            }
            walk.learn(&payload);
            match provider.class_of(&record.kind, Some(&payload)) {
                class @ (EventClass::TurnEnded | EventClass::TurnFailed { .. }) => {
                    let failed = matches!(class, EventClass::TurnFailed { .. });
                    let Some(text) = provider.answer_from_payload(&payload) else {
                        if provider.end_hook_carries_answer() {
                            break;
                        }
                        // The answer is the transcript's turn of this turn's submit: its id.
                        walk.to_submit = true;
                        continue;
                    };
                    return Ok(Some(self.hook_answer(walk, text, failed)));
                }
                EventClass::Submitted => {
                    if walk.to_submit {
                        walk.turn_id = provider.submit_turn_id(&payload);
                    }
                    break;
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// The answer an end hook carried (`failed`: the turn failed), with what the walk learnt.
    fn hook_answer(&self, walk: &mut LogWalk, text: String, failed: bool) -> Answer {
        let provider = self.provider();
        let transcript = walk
            .transcript
            .take()
            .or_else(|| self.meta.transcript_path.clone());
        let cancelled = provider.end_hook_hides_cancel()
            && transcript_turn(provider, transcript.as_deref()).is_some_and(|t| t.interrupted());
        let mut answer = self.answer_of(text, "hook", failed, transcript, walk.session_id.take());
        answer.structured_output = walk.checked.take().flatten();
        if cancelled {
            answer = answer.interrupted();
        }
        answer
    }

    /// The last turn's answer from the transcript, when the log had none.
    fn answer_from_transcript(&self, ctx: &Ctx, walk: LogWalk) -> Result<Answer> {
        let LogWalk {
            transcript,
            session_id,
            checked,
            lost,
            turn_id,
            ..
        } = walk;
        let transcript = match lost {
            Some(_) => transcript.or_else(|| self.transcript_path(ctx)),
            None => transcript.or_else(|| self.meta.transcript_path.clone()),
        };
        let turn = transcript
            .as_deref()
            .and_then(ReverseLines::open)
            .map(|mut lines| self.provider().last_turn(&mut lines))
            .unwrap_or_default();
        let interrupted = turn.interrupted();
        // The hooks say the turn ended before the transcript shows it (copilot's log lags its
        // end hook): an older turn's answer is not this one's.
        if turn_id.is_some() && turn.turn_id != turn_id {
            return Err(Error::NoAnswer {
                name: self.name.to_string(),
            });
        }
        if lost.is_some_and(|lost| !lost.is(&turn)) {
            return Err(Error::AnswerLost {
                name: self.name.to_string(),
            });
        }
        match turn.answer {
            Some(text) if turn.ended => {
                let mut answer =
                    self.answer_of(text, "transcript", turn.is_error, transcript, session_id);
                answer.structured_output = checked.flatten();
                Ok(if interrupted {
                    answer.interrupted()
                } else {
                    answer
                })
            }
            // Interrupted before any text (gemini, codex): the turn's answer is that.
            None if interrupted => Ok(self
                .answer_of(String::new(), "transcript", true, transcript, session_id)
                .interrupted()),
            _ => Err(Error::NoAnswer {
                name: self.name.to_string(),
            }),
        }
    }

    fn answer_of(
        &self,
        text: String,
        source: &'static str,
        is_error: bool,
        transcript: Option<PathBuf>,
        session_id: Option<String>,
    ) -> Answer {
        Answer {
            name: self.name.to_string(),
            provider: self.meta.provider.as_str().to_string(),
            text,
            source,
            is_error,
            // The provider's own id when a hook told it (Codex picks its own), else umbel's.
            session_id: session_id.unwrap_or_else(|| self.meta.session_id.clone()),
            transcript_path: transcript.map(|p| p.to_string_lossy().into_owned()),
            structured_output: None,
            interrupted: false,
            partial_text: None,
        }
    }
}

/// The last turn of the transcript at `path`.
fn transcript_turn(
    provider: &dyn ProviderModule,
    path: Option<&std::path::Path>,
) -> Option<TranscriptTurn> {
    Some(provider.last_turn(&mut ReverseLines::open(path?)?))
}

/// What walking the event log back from its end learnt about the last turn.
#[derive(Default)]
struct LogWalk {
    /// The newest transcript path a payload named.
    transcript: Option<PathBuf>,
    /// The newest session id a payload named.
    session_id: Option<String>,
    /// A guardrail check recorded after the turn ended, newest first: its accepted value.
    checked: Option<Option<serde_json::Value>>,
    /// Set when the newest turn end was logged without a payload: that turn's answer can
    /// only come from the transcript, never from an older turn's hook.
    lost: Option<LostEnd>,
    /// The newest turn's end hook carries no answer: walk on to its submit.
    to_submit: bool,
    /// That submit's turn id: the transcript's answer is its turn's only.
    turn_id: Option<String>,
}

impl LogWalk {
    /// Takes in a payload's session id and transcript path, newest first.
    fn learn(&mut self, payload: &serde_json::Value) {
        if self.session_id.is_none() {
            self.session_id = payload_session_id(payload).map(str::to_string);
        }
        if self.transcript.is_none() {
            self.transcript = str_field(payload, "transcript_path")
                .filter(|p| !p.is_empty())
                .map(PathBuf::from);
        }
    }
}

/// The value a recorded check accepted, if it accepted one.
fn accepted_value(payload: &serde_json::Value) -> Option<serde_json::Value> {
    let accepted = payload.get("accepted") == Some(&serde_json::Value::Bool(true));
    payload
        .get("value")
        .filter(|v| accepted && !v.is_null())
        .cloned()
}

/// Whether a log line of this kind ends a turn (every provider tells by the name alone).
fn ends_turn(provider: &dyn ProviderModule, kind: &str) -> bool {
    matches!(
        provider.class_of(kind, None),
        EventClass::TurnEnded | EventClass::TurnFailed { .. }
    )
}

/// What identifies a turn whose end was logged without a payload (a full disk makes event.sh
/// log `Stop -`), learnt from the log lines before it.
#[derive(Debug, Default)]
struct LostEnd {
    /// The provider's id for the turn, from its submit hook.
    turn_id: Option<String>,
    /// The hook's answer of the turn before: the transcript's last turn must not be that one.
    older_answer: Option<String>,
}

impl LostEnd {
    /// Takes in one older log line (newest first); true once the turn before was reached (its
    /// answer stays unknown when its payload is lost too).
    fn learn(
        &mut self,
        provider: &dyn ProviderModule,
        kind: &str,
        payload: Option<&serde_json::Value>,
    ) -> bool {
        let Some(payload) = payload else {
            return ends_turn(provider, kind);
        };
        match provider.class_of(kind, Some(payload)) {
            EventClass::Submitted if self.turn_id.is_none() => {
                self.turn_id = provider.submit_turn_id(payload);
                false
            }
            EventClass::TurnEnded | EventClass::TurnFailed { .. } => {
                self.older_answer = provider.answer_from_payload(payload);
                true
            }
            _ => false,
        }
    }

    /// Whether the transcript's last turn is the lost one: finished, and its id when both sides
    /// have one, else not the turn before's answer (a turn the transcript has not written yet
    /// leaves that one last).
    fn is(&self, turn: &TranscriptTurn) -> bool {
        let same = match (&self.turn_id, &turn.turn_id) {
            (Some(lost), Some(last)) => lost == last,
            _ => self.older_answer.is_none() || turn.answer != self.older_answer,
        };
        turn.ended && same
    }
}

/// The answer of a turn.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub name: String,
    pub provider: String,
    /// The answer text.
    pub text: String,
    /// Where it was read: `hook` (the end-of-turn payload) or `transcript`.
    pub source: &'static str,
    /// The provider failed the turn; `text` is its error message.
    pub is_error: bool,
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// The value a `--schema` guardrail accepted for this turn, as JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
    /// The turn was interrupted (Esc): it has no answer, `text` is empty and `isError` true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// What the interrupted turn had streamed before it was stopped, when the CLI kept it
    /// (gemini's `AfterAgent`); not an answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_text: Option<String>,
}

impl Answer {
    /// Makes this the answer of an interrupted turn: no text, what there was kept aside.
    fn interrupted(mut self) -> Answer {
        let text = std::mem::take(&mut self.text);
        self.partial_text = (!text.is_empty()).then_some(text);
        self.is_error = true;
        self.interrupted = true;
        self
    }
}
