//! `session/prompt`: one turn on the session's worker. The blocking side submits the prompt
//! (queued behind a running turn, as ACP allows), waits for the turn's end from the hooks, and
//! meanwhile tails the CLI's transcript, handing each new stretch of the answer to the async
//! side as a message chunk. A permission the CLI asks for goes to the client as
//! `session/request_permission`; its choice is answered as `approve`/`deny` answer it, and the
//! wait goes on. The turn's outcome is the `stopReason` (or a JSON-RPC error).

use super::map;
use super::sessions::{Sessions, acp_error};
use crate::core::approval_args::{ApproveArgs, DenyArgs};
use crate::core::args::GuardArgs;
use crate::core::errors::Result as UmbelResult;
use crate::core::outcome::{Outcome, OutcomeKind};
use crate::core::providers::Provider;
use crate::core::until::Until;
use crate::operations::Ctx;
use crate::operations::approve;
use crate::operations::transcript_tail::TranscriptTail;
use crate::operations::turn;
use crate::operations::worker::{TRANSCRIPT_LAG, Worker};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, PermissionOption, PermissionOptionKind, PromptRequest,
    PromptResponse, RequestPermissionOutcome, RequestPermissionRequest, SessionId,
    SessionNotification, SessionUpdate, ToolCall, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, UsageUpdate,
};
use agent_client_protocol::{Client, Error};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// How often the transcript is read while the turn runs, at the latest (a change to its folder
/// wakes the reader at once).
const TICK: Duration = Duration::from_millis(100);
/// How long a prompt may wait behind the session's running turn.
const QUEUE: Duration = Duration::from_secs(3600);
/// How long one turn may run: an editor's prompt has no deadline of its own; this is the one
/// that keeps a wedged CLI from holding the session forever.
const TURN_LIMIT: Duration = Duration::from_secs(24 * 3600);

/// What the blocking side hands the async side.
enum Step {
    /// What the client does not have yet: a stretch of the answer, a tool call, its status.
    Update(Box<SessionUpdate>),
    /// The CLI asks to run a tool: the client's choice goes back on `reply`.
    Ask {
        asked: Asked,
        reply: oneshot::Sender<Choice>,
    },
}

/// The tool waiting for permission.
struct Asked {
    tool: Option<Value>,
    always: bool,
    /// The id of its tool call for the client.
    call: String,
    /// Whether the client has that call already (read from the transcript).
    shown: bool,
}

/// The client's answer to a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Once,
    Always,
    Reject,
}

/// Runs the prompt; its response once the turn ended.
pub async fn run(
    sessions: &Sessions,
    cx: &ConnectionTo<Client>,
    req: PromptRequest,
) -> Result<PromptResponse, Error> {
    let text = map::prompt_text(&req.prompt)?;
    let prompting = sessions.prompting(&req.session_id)?;
    drop(prompting.interrupting.lock().await);
    let worker = prompting.worker.clone();
    let id = req.session_id;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let ctx = sessions.ctx.clone();
    let (turn_ctx, turn_tx) = (ctx.clone(), tx.clone());
    let mut job =
        tokio::task::spawn_blocking(move || one_turn(&turn_ctx, &worker, &text, &turn_tx));
    let joined = loop {
        tokio::select! {
            Some(step) = rx.recv() => relay(cx, &id, step).await?,
            joined = &mut job => break joined,
        }
    };
    // What the tail read just before the end.
    while let Ok(step) = rx.try_recv() {
        relay(cx, &id, step).await?;
    }
    let (outcome, tail) = match joined {
        Ok(Ok(ended)) => ended,
        Ok(Err(e)) => return Err(acp_error(&e)),
        Err(join) => {
            let why = format!("the turn failed inside umbel: {join} (a bug in umbel)");
            return Err(map::with_message(Error::internal_error(), why));
        }
    };
    if tail.tells_context() {
        linger(cx, id, ctx, tail, (tx, rx));
    }
    map::stop_reason(&outcome).map(PromptResponse::new)
}

/// After the response: the context's use the CLI writes after its end hook (codex's last
/// `token_count`, qwen's late answer record), told as a `usage_update` when it comes.
fn linger(
    cx: &ConnectionTo<Client>,
    id: SessionId,
    ctx: Ctx,
    mut tail: Tail,
    (tx, mut rx): (mpsc::UnboundedSender<Step>, mpsc::UnboundedReceiver<Step>),
) {
    let conn = cx.clone();
    let spawned = cx.spawn(async move {
        let reading = tokio::task::spawn_blocking(move || tail.linger(&ctx, &tx));
        while let Some(step) = rx.recv().await {
            // The client gone: the connection's end says so.
            let _ = relay(&conn, &id, step).await;
        }
        let _ = reading.await;
        Ok(())
    });
    if let Err(e) = spawned {
        errln!("umbel acp: the context's use after the turn: {e}");
    }
}

/// One step to the client: a chunk as a `session/update`, a question as
/// `session/request_permission`.
async fn relay(cx: &ConnectionTo<Client>, id: &SessionId, step: Step) -> Result<(), Error> {
    match step {
        Step::Update(update) => cx.send_notification(SessionNotification::new(id.clone(), *update)),
        Step::Ask { asked, reply } => {
            let choice = ask(cx, id, &asked).await?;
            // The turn's side gave up waiting (its worker ended): nothing to answer.
            let _ = reply.send(choice);
            Ok(())
        }
    }
}

/// Asks the client about the pending tool, with the CLI's own options; a client that cancels
/// the request refuses the tool.
async fn ask(cx: &ConnectionTo<Client>, id: &SessionId, asked: &Asked) -> Result<Choice, Error> {
    let call = asked.call.clone();
    let name = asked
        .tool
        .as_ref()
        .and_then(|t| t.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("a tool");
    let input = asked.tool.as_ref().and_then(|t| t.get("input")).cloned();
    let title = format!("Run {name}");
    let mut shown = ToolCall::new(call.clone(), title.clone()).status(ToolCallStatus::Pending);
    if let Some(input) = &input {
        shown = shown.raw_input(input.clone());
    }
    if !asked.shown {
        let update = SessionUpdate::ToolCall(shown);
        cx.send_notification(SessionNotification::new(id.clone(), update))?;
    }
    let mut options = vec![PermissionOption::new(
        "allow-once",
        "Allow once",
        PermissionOptionKind::AllowOnce,
    )];
    if asked.always {
        options.push(PermissionOption::new(
            "allow-always",
            "Always allow",
            PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(PermissionOption::new(
        "reject",
        "Reject",
        PermissionOptionKind::RejectOnce,
    ));
    let fields = ToolCallUpdateFields::new().title(title);
    let request =
        RequestPermissionRequest::new(id.clone(), ToolCallUpdate::new(call, fields), options);
    let answered = cx.send_request(request).block_task().await?;
    Ok(match answered.outcome {
        RequestPermissionOutcome::Selected(selected) => match selected.option_id.0.as_ref() {
            "allow-once" => Choice::Once,
            "allow-always" => Choice::Always,
            _ => Choice::Reject,
        },
        _ => Choice::Reject,
    })
}

/// The blocking side of one prompt: submit, then wait, answering each permission through the
/// client, until the turn's end; the answer streamed all along.
fn one_turn(
    ctx: &Ctx,
    worker: &Worker,
    text: &str,
    tx: &mpsc::UnboundedSender<Step>,
) -> UmbelResult<(Outcome, Tail)> {
    let mut tail = Tail::start(ctx, worker);
    let guard = GuardArgs::default();
    let mut since =
        turn::submit_queued(ctx, worker, text.as_bytes(), &guard, Some(QUEUE))?.position;
    tail.calls.turn = since;
    let until = Until {
        timeout: TURN_LIMIT,
        ..Until::default()
    };
    loop {
        let outcome = tail.streaming(ctx, tx, || {
            turn::await_end(ctx, worker, Some(since), &until, None)
        })?;
        let asks = outcome.outcome == OutcomeKind::Input
            && outcome.reason.as_deref() == Some("permission");
        let Some(id) = outcome.approval_id.clone().filter(|_| asks) else {
            // The last of the answer, once the turn ended with one: an interrupted or failed
            // turn has none, and `answer` would give an earlier turn's.
            if outcome.outcome == OutcomeKind::Stop {
                tail.settle(ctx, tx);
                if let Ok(answer) = worker.answer(ctx) {
                    tail.send(tx, &answer.text);
                }
            }
            return Ok((outcome, tail));
        };
        let known = tail.calls.pending();
        let asked = Asked {
            tool: outcome.pending_tool.clone(),
            always: !worker.provider().approval().always.is_empty(),
            shown: known.is_some(),
            call: known.unwrap_or_else(|| format!("approval-{id}")),
        };
        if !asked.shown {
            // The client is shown the call now; the transcript's, once written, is this one.
            tail.calls.shown_early(asked.call.clone());
        }
        let (reply, choice) = oneshot::channel();
        if tx.send(Step::Ask { asked, reply }).is_err() {
            return Ok((outcome, tail));
        }
        let Ok(choice) = choice.blocking_recv() else {
            return Ok((outcome, tail));
        };
        since = answer(ctx, worker, &id, choice)?;
    }
}

/// Answers approval `id` as the client chose; the position to wait from.
fn answer(ctx: &Ctx, worker: &Worker, id: &str, choice: Choice) -> UmbelResult<usize> {
    let name = worker.name.as_str().to_string();
    let done = match choice {
        Choice::Once | Choice::Always => {
            let args = ApproveArgs {
                name,
                always: choice == Choice::Always,
                expect: Some(id.to_string()),
                wait: false,
                timeout: None,
            };
            approve::approve(ctx, worker, &args)?
        }
        Choice::Reject => {
            let args = DenyArgs {
                name,
                reason: None,
                expect: Some(id.to_string()),
                timeout: None,
            };
            approve::deny(ctx, worker, &args)?
        }
    };
    Ok(done.position)
}

/// The transcript from the turn's start, and what of its answer the client has.
struct Tail {
    tail: TranscriptTail,
    provider: Provider,
    records: Vec<Value>,
    sent: String,
    /// The turn's thinking the client has.
    thought: String,
    /// The turn's tool calls the client has.
    calls: map::ToolCalls,
    /// The context's use and window the client was last told.
    context: Option<(u64, u64)>,
}

impl Tail {
    fn start(ctx: &Ctx, worker: &Worker) -> Self {
        Tail {
            tail: TranscriptTail::start(ctx, &worker.meta),
            provider: worker.meta.provider,
            records: Vec::new(),
            sent: String::new(),
            thought: String::new(),
            calls: map::ToolCalls::default(),
            context: None,
        }
    }

    /// Runs `wait` while reading the transcript as it changes (every [`TICK`] at the latest),
    /// sending what the answer grew by.
    fn streaming<T>(
        &mut self,
        ctx: &Ctx,
        tx: &mpsc::UnboundedSender<Step>,
        wait: impl FnOnce() -> T + Send,
    ) -> T
    where
        T: Send,
    {
        let done = AtomicBool::new(false);
        let waker = self.tail.watch(ctx);
        std::thread::scope(|scope| {
            let reader = scope.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    self.tail.wait_for_change(ctx, TICK);
                    self.read(ctx, tx);
                }
                self.read(ctx, tx);
            });
            let result = wait();
            done.store(true, Ordering::Relaxed);
            if let Some(waker) = waker {
                // The reader stops waiting for the transcript and reads its last.
                let _ = waker.send(());
            }
            // A reader that panicked sent what it could; the turn's result stands.
            let _ = reader.join();
            result
        })
    }

    /// After the turn ended: reads on until the transcript has the turn's answer and every
    /// tool call's result, at most [`TRANSCRIPT_LAG`] (claude writes a turn's last records a
    /// moment after its end hook, qwen up to ~1.5 s after), so the client hears the thinking
    /// and how each call ended before the prompt's response.
    fn settle(&mut self, ctx: &Ctx, tx: &mpsc::UnboundedSender<Step>) {
        let deadline = Instant::now() + TRANSCRIPT_LAG;
        let behind = |tail: &Self| {
            tail.calls.pending().is_some()
                || map::answer_so_far(tail.provider, &tail.records).is_none()
        };
        while behind(self) && Instant::now() < deadline {
            self.tail.wait_for_change(ctx, TICK);
            self.read(ctx, tx);
        }
    }

    /// Whether the CLI's transcript tells the context's use (and so [`Tail::linger`] may hear
    /// more of it after the turn).
    fn tells_context(&self) -> bool {
        self.provider.module().usage_reading().context.is_some()
    }

    /// After the response: reads on until the context's use changes, at most
    /// [`TRANSCRIPT_LAG`]; nothing else of the turn is sent any more.
    fn linger(&mut self, ctx: &Ctx, tx: &mpsc::UnboundedSender<Step>) {
        let had = self.context;
        let deadline = Instant::now() + TRANSCRIPT_LAG;
        while self.context == had && Instant::now() < deadline {
            self.tail.wait_for_change(ctx, TICK);
            if self.poll(ctx) {
                self.tell_context(tx);
            }
        }
    }

    /// New records read; whether there were any.
    fn poll(&mut self, ctx: &Ctx) -> bool {
        let new = self.tail.poll(ctx);
        let any = !new.is_empty();
        self.records.extend(new);
        any
    }

    /// New records, and the answer's growth from them.
    fn read(&mut self, ctx: &Ctx, tx: &mpsc::UnboundedSender<Step>) {
        if !self.poll(ctx) {
            return;
        }
        let thought = map::thoughts_so_far(self.provider, &self.records);
        send_unsent(
            tx,
            &mut self.thought,
            &thought,
            SessionUpdate::AgentThoughtChunk,
        );
        let calls = map::tool_calls_so_far(self.provider, &self.records);
        for update in self.calls.updates(&calls) {
            let _ = tx.send(Step::Update(Box::new(update)));
        }
        if let Some(answer) = map::answer_so_far(self.provider, &self.records) {
            self.send(tx, &answer);
        }
        self.tell_context(tx);
    }

    /// The context's use, when it changed since the client was told.
    fn tell_context(&mut self, tx: &mpsc::UnboundedSender<Step>) {
        let reading = self.provider.module().usage_reading().context.as_ref();
        let context = reading.and_then(|r| r.read(&self.records));
        if let Some((used, size)) = context.filter(|_| context != self.context) {
            self.context = context;
            let update = SessionUpdate::UsageUpdate(UsageUpdate::new(used, size));
            let _ = tx.send(Step::Update(Box::new(update)));
        }
    }

    /// Sends what of `answer` the client does not have.
    fn send(&mut self, tx: &mpsc::UnboundedSender<Step>, answer: &str) {
        send_unsent(tx, &mut self.sent, answer, SessionUpdate::AgentMessageChunk);
    }
}

/// Sends what of `now` the client does not have (`sent`, brought up to `now`), as the chunk
/// update `kind` (the answer's, the thinking's).
fn send_unsent(
    tx: &mpsc::UnboundedSender<Step>,
    sent: &mut String,
    now: &str,
    kind: fn(ContentChunk) -> SessionUpdate,
) {
    if let Some(chunk) = map::unsent(sent, now) {
        *sent = now.to_string();
        let update = kind(ContentChunk::new(ContentBlock::from(chunk)));
        let _ = tx.send(Step::Update(Box::new(update)));
    }
}
