//! The sessions one `umbel acp` holds: each is a worker (its id is the worker's name), opened
//! by `session/new`, found again by `session/load`, interrupted by `session/cancel`, parked when
//! the editor goes away. The verbs block (tmux, inotify), so each runs on tokio's blocking pool.

use super::map::{no_session, with_message};
use super::modes::SessionModes;

mod switch;
use crate::core::acp_args::AcpArgs;
use crate::core::args::{ParkArgs, ResumeArgs, StatusArgs};
use crate::core::errors::Error as UmbelError;
use crate::core::status::WorkerStatus;
use crate::core::wait::Liveness;
use crate::faces::error_json::ErrorReply;
use crate::operations::Ctx;
use crate::operations::worker::Worker;
use crate::operations::{interrupt, park, spawn, status, turns};
use agent_client_protocol::Client;
use agent_client_protocol::Error;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, ListSessionsRequest, ListSessionsResponse, LoadSessionRequest,
    LoadSessionResponse, NewSessionResponse, SessionId, SessionInfo, SessionNotification,
    SessionUpdate,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, UNIX_EPOCH};

/// The sessions of this process, by id (the worker's name).
pub struct Sessions {
    pub ctx: Ctx,
    args: AcpArgs,
    held: Mutex<HashMap<String, Held>>,
    /// The models each CLI's `/model` lists, once read.
    listed: switch::Listed,
}

/// One session: its worker, and how long it has been idle.
struct Held {
    worker: Worker,
    /// Prompts running or queued on it.
    prompts: usize,
    /// Since when no prompt ran (the session's start, or its last prompt's end).
    idle_since: Instant,
    /// Whether `--park-idle` parked it since (its next prompt resumes it).
    parked: bool,
    /// Held while a `session/cancel` interrupts its turn.
    interrupting: Arc<tokio::sync::Mutex<()>>,
    /// Its permission mode, the modes it can switch to, and its model.
    modes: SessionModes,
}

/// A prompt running on a session: while it lives, the session is not idle.
pub struct Prompting<'a> {
    sessions: &'a Sessions,
    id: String,
    pub worker: Worker,
    /// Held while a `session/cancel` interrupts the session's turn: a prompt waits for it
    /// before it sends, so the interrupt's end ("interrupted", logged once the key took) is
    /// the cancelled turn's and not read as this one's.
    pub interrupting: Arc<tokio::sync::Mutex<()>>,
}

impl Drop for Prompting<'_> {
    fn drop(&mut self) {
        if let Some(held) = self.sessions.lock().get_mut(&self.id) {
            held.prompts = held.prompts.saturating_sub(1);
            held.idle_since = Instant::now();
        }
    }
}

impl Sessions {
    pub fn new(ctx: Ctx, args: AcpArgs) -> Self {
        Sessions {
            ctx,
            args,
            held: Mutex::new(HashMap::new()),
            listed: switch::Listed::default(),
        }
    }

    /// `session/new`: a worker spawned in `cwd` with `umbel acp`'s flags, named after them
    /// (`acp-…`, or `--name`'s prefix).
    pub async fn open(&self, cwd: PathBuf) -> Result<NewSessionResponse, Error> {
        if !cwd.is_absolute() || !cwd.is_dir() {
            return Err(Error::invalid_params().data(serde_json::json!({
                "reason": "the session's cwd must be an absolute path to a directory",
                "cwd": cwd,
            })));
        }
        let mut spawn_args = self.args.spawn.clone();
        let suffix = uuid::Uuid::new_v4().simple().to_string();
        spawn_args.name = Some(format!("{}-{}", self.prefix(), &suffix[..8]));
        spawn_args.cwd = Some(cwd);
        let (ctx, flag) = (self.ctx.clone(), self.args.spawn.permission_mode.clone());
        let known = self.listed.clone();
        let (worker, modes) = blocking(move || {
            let worker = Worker::from_meta(spawn::spawn(&ctx, &spawn_args)?)?;
            let modes = switch::read_modes(&ctx, &worker, flag.as_deref(), &known);
            Ok((worker, modes))
        })
        .await?;
        let id = worker.name.as_str().to_string();
        let (state, options) = (modes.modes(), modes.options());
        self.hold(worker, modes);
        Ok(NewSessionResponse::new(SessionId::new(id))
            .modes(state)
            .config_options(options))
    }

    /// `session/load`: the worker named by the session id, resumed when it was parked or its
    /// CLI ended; its conversation replayed to the client (each turn's prompt and answer)
    /// before the response.
    pub async fn load(
        &self,
        cx: &ConnectionTo<Client>,
        req: LoadSessionRequest,
    ) -> Result<LoadSessionResponse, Error> {
        let (ctx, flag) = (self.ctx.clone(), self.args.spawn.permission_mode.clone());
        let known = self.listed.clone();
        let name = req.session_id.0.to_string();
        let missing = req.session_id.clone();
        let (worker, history, modes) = blocking(move || {
            revive(&ctx, &Worker::load(&ctx, &name)?)?;
            // As the resume left it (its CLI's session and transcript).
            let worker = Worker::load(&ctx, &name)?;
            let history = turns::read_turns(&ctx, &worker, turns::Selection::All)?;
            let modes = switch::read_modes(&ctx, &worker, flag.as_deref(), &known);
            Ok((worker, history, modes))
        })
        .await
        .map_err(|e| match e.code {
            agent_client_protocol::ErrorCode::INVALID_PARAMS => no_session(&missing),
            _ => e,
        })?;
        for turn in history {
            let said = [
                (turn.prompt, SessionUpdate::UserMessageChunk as fn(_) -> _),
                (turn.answer, SessionUpdate::AgentMessageChunk),
            ];
            for (text, update) in said {
                if let Some(text) = text.filter(|t| !t.is_empty()) {
                    let chunk = ContentChunk::new(ContentBlock::from(text));
                    cx.send_notification(SessionNotification::new(
                        req.session_id.clone(),
                        update(chunk),
                    ))?;
                }
            }
        }
        let (state, options) = (modes.modes(), modes.options());
        self.hold(worker, modes);
        Ok(LoadSessionResponse::new()
            .modes(state)
            .config_options(options))
    }

    /// `session/list`: the workers named with this editor's prefix (`acp-…`), in `cwd` when
    /// given, the most recently used first; each titled with its conversation's first prompt.
    /// All at once: no cursor.
    pub async fn list(&self, req: ListSessionsRequest) -> Result<ListSessionsResponse, Error> {
        let ctx = self.ctx.clone();
        let prefix = format!("{}-", self.prefix());
        let rows = blocking(move || {
            let rows = status::status(&ctx, &StatusArgs::default())?;
            let mine = rows.into_iter().filter(|row| {
                row.name.starts_with(&prefix)
                    && req
                        .cwd
                        .as_ref()
                        .is_none_or(|cwd| Path::new(&row.cwd) == cwd)
            });
            Ok(mine
                .map(|row| (first_prompt(&ctx, &row.name), row))
                .collect())
        })
        .await?;
        Ok(ListSessionsResponse::new(listed(rows)))
    }

    /// The prefix of this process's workers' names: `--name`, else `acp`.
    fn prefix(&self) -> &str {
        self.args.spawn.name.as_deref().unwrap_or("acp")
    }

    /// A prompt starts on session `id`: it is not idle until the returned guard is dropped.
    pub fn prompting(&self, id: &SessionId) -> Result<Prompting<'_>, Error> {
        let mut held = self.lock();
        let session = held.get_mut(id.0.as_ref()).ok_or_else(|| no_session(id))?;
        session.prompts += 1;
        session.parked = false;
        Ok(Prompting {
            sessions: self,
            id: id.0.to_string(),
            worker: session.worker.clone(),
            interrupting: session.interrupting.clone(),
        })
    }

    /// `--park-idle`: parks each session no prompt has run on for `limit` (its next prompt
    /// resumes it, as `send` resumes any parked worker).
    pub fn park_idle(&self, limit: Duration) {
        let idle: Vec<String> = self
            .lock()
            .iter_mut()
            .filter(|(_, h)| h.prompts == 0 && !h.parked && h.idle_since.elapsed() >= limit)
            .map(|(name, h)| {
                h.parked = true;
                name.clone()
            })
            .collect();
        self.park(idle);
    }

    /// `session/cancel`: the running turn interrupted with the CLI's own key; the prompt then
    /// ends `cancelled`. Nothing runs: nothing to do.
    /// One interrupt at a time: a cancel while one runs has nothing more to do.
    pub fn cancel(&self, id: &SessionId) {
        let (worker, interrupting) = match self.lock().get(id.0.as_ref()) {
            Some(held) => (held.worker.clone(), held.interrupting.clone()),
            None => return,
        };
        let Ok(interrupting) = interrupting.try_lock_owned() else {
            return;
        };
        let ctx = self.ctx.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = interrupt::interrupt(&ctx, &worker, None) {
                errln!("umbel acp: cancel {}: {e}", worker.name.as_str());
            }
            drop(interrupting);
        });
    }

    /// Parks every session's worker (the editor went away, or a signal stops umbel acp: the
    /// parking itself is not stopped by it).
    pub fn park_all(&self) {
        let names: Vec<String> = self.lock().keys().cloned().collect();
        park_each(&self.ctx.with_own_cancel(), names);
    }

    /// Parks the workers `names`, each on its own: one that cannot be parked (busy) does not
    /// keep the others running; what failed is said on stderr (nobody waits on it).
    fn park(&self, names: Vec<String>) {
        park_each(&self.ctx, names);
    }

    fn hold(&self, worker: Worker, modes: SessionModes) {
        let held = Held {
            modes,
            worker,
            prompts: 0,
            idle_since: Instant::now(),
            parked: false,
            interrupting: Arc::default(),
        };
        self.lock()
            .insert(held.worker.name.as_str().to_string(), held);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Held>> {
        // A panic while holding it leaves a map still worth using.
        self.held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Parks each of the workers `names` (see [`Sessions::park`]), side by side: each CLI takes a
/// moment to save its session, and a signal gives umbel 10 s to stop in all.
fn park_each(ctx: &Ctx, names: Vec<String>) {
    std::thread::scope(|scope| {
        for name in names {
            scope.spawn(move || {
                let args = ParkArgs {
                    names: vec![name.clone()],
                    ..ParkArgs::default()
                };
                if let Err(e) = park::park(ctx, &args) {
                    errln!("umbel acp: parking {name}: {e}");
                }
            });
        }
    });
}

/// How long a session's title may get.
const TITLE_CHARS: usize = 80;

/// The first line of a worker's first prompt, cut at [`TITLE_CHARS`]; none when it has none
/// (or its transcript cannot be read).
fn first_prompt(ctx: &Ctx, name: &str) -> Option<String> {
    let worker = Worker::load(ctx, name).ok()?;
    let turns = turns::read_turns(ctx, &worker, turns::Selection::One(1)).ok()?;
    let prompt = turns.into_iter().next()?.prompt?;
    let line = prompt.lines().find(|l| !l.trim().is_empty())?.trim();
    Some(line.chars().take(TITLE_CHARS).collect())
}

/// The workers as ACP's session entries, the most recently used first.
fn listed(mut rows: Vec<(Option<String>, WorkerStatus)>) -> Vec<SessionInfo> {
    let used = |row: &WorkerStatus| row.last_event_at.unwrap_or(row.created_at);
    rows.sort_by_key(|(_, row)| std::cmp::Reverse(used(row)));
    rows.into_iter()
        .map(|(title, row)| {
            let at = UNIX_EPOCH + Duration::from_millis(used(&row));
            SessionInfo::new(SessionId::new(row.name.clone()), PathBuf::from(&row.cwd))
                .title(title)
                .updated_at(humantime::format_rfc3339_millis(at).to_string())
        })
        .collect()
}

/// Brings a loaded worker's CLI back: a parked one resumed, one whose CLI ended resumed too.
fn revive(ctx: &Ctx, worker: &Worker) -> crate::core::errors::Result<()> {
    if park::wake(ctx, worker, None)?.is_some() {
        return Ok(());
    }
    if worker.liveness(ctx)? != Liveness::Alive {
        let args = ResumeArgs {
            name: worker.name.as_str().to_string(),
        };
        park::resume(ctx, &args)?;
    }
    Ok(())
}

/// Runs a blocking verb on tokio's blocking pool; its error as ACP's.
pub async fn blocking<T, F>(job: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce() -> crate::core::errors::Result<T> + Send + 'static,
{
    match tokio::task::spawn_blocking(job).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(acp_error(&e)),
        Err(join) => Err(with_message(
            Error::internal_error(),
            format!("umbel failed inside: {join} (this is a bug in umbel)"),
        )),
    }
}

/// umbel's error as a JSON-RPC error: invalid params for what the caller got wrong (a usage
/// error, an unknown worker, a name no worker can have), else an internal error; `data` is umbel's typed error
/// (`code`, `message`, `exitCode`, `hint`, …) either way.
pub fn acp_error(err: &UmbelError) -> Error {
    let base = match err {
        UmbelError::Usage { .. } | UmbelError::NotFound { .. } | UmbelError::InvalidName { .. } => {
            Error::invalid_params()
        }
        _ => Error::internal_error(),
    };
    with_message(base, err.to_string()).data(ErrorReply::of(err).to_value())
}
