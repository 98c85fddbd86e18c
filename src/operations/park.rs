//! `park`, `resume` and the transparent resume before a prompt: a worker outlives its CLI
//! process. `park` ends the CLI of an idle worker and keeps its folder, meta, event log and
//! conversation (a `Parked` line in its log); anything that gives a parked worker a prompt first
//! starts its CLI again on the same conversation — the CLI's own resume by session id, with the
//! arguments and environment spawn recorded in `launch.json` — waits until it is ready, and
//! writes a `Resumed` line. `umbel resume` does the same on demand, for a dead worker too (the
//! tmux server killed, a reboot, a crash). Concurrent senders resume it once: the resume runs
//! under the worker's `resume.lock`, and whoever gets the lock after it finds it resumed.
//!
//! All three CLIs append a resumed conversation to the transcript it started in (claude 2.1.332,
//! codex 0.171.0, gemini 0.61.0; docs/providers.md#resume-and-fork), so the worker's turns,
//! `read --all`, `actions`, `diff` and `top`'s totals go on in one file.

use super::Ctx;
pub use super::revival::{LAUNCH_FILE, Launch};
use super::revival::{conversation_kept, recorded_launch, refused, resumable};
use super::send::state_now;
use super::startup::{StartWait, await_ready};
use super::worker::{REACH, Worker};
use crate::adapters::files::{self, Lock};
use crate::adapters::host::{self, now_ms};
use crate::core::args::{ParkArgs, ResumeArgs};
use crate::core::duration::{DEFAULT_STARTUP, parse_or};
use crate::core::errors::{Error, Result};
use crate::core::events::{PARKED_EVENT, RESUMED_EVENT};
use crate::core::meta::Meta;
use crate::core::name::WorkerName;
use crate::core::providers::ProviderModule;
use crate::core::providers::payload_session_id;
use crate::core::status::{WorkerState, since_last_start};
use crate::core::worker_env::{EnvSpec, compose, export_script};
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

/// `base` (composed from umbel's environment and the `--env` requests) with the launch's own
/// variables winning.
pub(super) fn with_own(
    mut base: Vec<(String, String)>,
    own: &[(String, String)],
) -> Vec<(String, String)> {
    for (key, value) in own {
        base.retain(|(k, _)| k != key);
        base.push((key.clone(), value.clone()));
    }
    base
}

/// Starts `launch` in the worker's tmux session through `launch.sh` (spawn, resume).
pub(super) fn start_in_tmux(
    ctx: &Ctx,
    name: &WorkerName,
    meta: &Meta,
    cwd: &Path,
    launch: &Launch,
) -> Result<()> {
    let mut argv = vec![
        "sh".to_string(),
        ctx.state
            .hooks_dir()
            .join("launch.sh")
            .to_string_lossy()
            .into_owned(),
        env_buffer(name),
        ctx.state.events_dir(name).to_string_lossy().into_owned(),
        meta.bin.clone(),
    ];
    argv.extend(launch.args.iter().cloned());
    let script = export_script(&launch.env);
    ctx.tmux.new_session(
        &meta.tmux_session,
        cwd,
        &env_buffer(name),
        script.as_bytes(),
        &argv,
    )
}

/// The worker's environment from umbel's own and the `--env` requests (spawn; a resume composes
/// it again the same way, so inherited values are never stored).
pub(super) fn worker_env(
    ctx: &Ctx,
    provider: &'static dyn ProviderModule,
    specs: &[EnvSpec],
) -> Result<Vec<(String, String)>> {
    let reserved = vec![(
        "UMBEL_STATE".to_string(),
        ctx.state.path().to_string_lossy().into_owned(),
    )];
    let mut env = compose(&ctx.env, provider.env(), specs, &reserved)?;
    provider.reconcile_env(&mut env);
    Ok(env)
}

/// The tmux buffer that carries a worker's environment to `launch.sh`.
pub(super) fn env_buffer(name: &WorkerName) -> String {
    format!("umbel-env-{name}")
}

/// What `park` did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParkReport {
    /// The workers parked now.
    pub parked: Vec<String>,
    /// Workers that were parked already.
    pub already: Vec<String>,
}

/// What a resume did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resumed {
    /// How long it took until the CLI was ready again, in milliseconds.
    pub resume_ms: u64,
}

/// `umbel park NAME…` / `--idle-for D`.
pub fn park(ctx: &Ctx, args: &ParkArgs) -> Result<ParkReport> {
    let workers = match &args.idle_for {
        Some(d) => idle_for(ctx, parse_or(Some(d), "--idle-for", Duration::ZERO)?)?,
        None => args
            .names
            .iter()
            .map(|n| Worker::load(ctx, n))
            .collect::<Result<Vec<_>>>()?,
    };
    let mut report = ParkReport {
        parked: Vec::new(),
        already: Vec::new(),
    };
    for worker in workers {
        match park_one(ctx, &worker) {
            Ok(true) => report.parked.push(worker.name.to_string()),
            Ok(false) => report.already.push(worker.name.to_string()),
            // `--idle-for` parks what it can: a worker that got busy meanwhile stays as it is.
            Err(Error::NotResumable { .. }) if args.idle_for.is_some() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(report)
}

/// The ready workers whose last event (a turn's end, or the CLI's start) is at least `idle` old.
fn idle_for(ctx: &Ctx, idle: Duration) -> Result<Vec<Worker>> {
    let now = now_ms();
    let mut found = Vec::new();
    for name in ctx.state.list()? {
        let Ok(worker) = Worker::load(ctx, name.as_str()) else {
            continue;
        };
        let Ok((WorkerState::Ready, _)) = state_now(ctx, &worker) else {
            continue;
        };
        let last = worker
            .recent_events(ctx)?
            .last()
            .map_or(worker.meta.created_at, |e| {
                (e.record.at_ns / 1_000_000) as u64
            });
        if now.saturating_sub(last) >= idle.as_millis() as u64 {
            found.push(worker);
        }
    }
    Ok(found)
}

/// Parks one worker: `Ok(false)` when it was parked already.
fn park_one(ctx: &Ctx, worker: &Worker) -> Result<bool> {
    let _resume = resume_lock(ctx, worker, None)?;
    let send_lock = ctx.state.session_dir(&worker.name).join("send.lock");
    let Some(_send) = files::try_lock(&send_lock)? else {
        return Err(refused(worker, "is taking a prompt (a `send` holds it)"));
    };
    let (state, _) = state_now(ctx, worker)?;
    let why = match state {
        WorkerState::Ready => None,
        WorkerState::Parked => return Ok(false),
        WorkerState::Busy => Some("is busy: a turn is running; park it once the turn ended"),
        WorkerState::NeedsInput => Some("is waiting for a person; answer it first"),
        WorkerState::Starting => Some("is still starting"),
        WorkerState::Dead => {
            Some("is dead: there is no CLI to end (`umbel resume` brings it back)")
        }
    };
    if let Some(why) = why {
        return Err(refused(worker, why));
    }
    if ctx.state.warm_mark(&worker.name).is_some() {
        // It ends itself when its time is up; parked, the next `-p --warm` would pay a resume.
        return Err(refused(
            worker,
            "is warm: it waits for the next `-p --warm` and ends itself when its time is up",
        ));
    }
    recorded_launch(
        ctx,
        worker,
        ": it could not be resumed, so it is not parked",
    )?;
    let events = worker.recent_events(ctx)?;
    let idle_ms = events
        .last()
        .map(|e| now_ms().saturating_sub((e.record.at_ns / 1_000_000) as u64));
    worker.await_recorded(ctx, &events);
    // Recorded before the CLI ends: whoever looks meanwhile (a `wait`, a queued send) sees a
    // parked worker, never a dead one; a park that cannot end the CLI is taken back.
    let payload = json!({ "at": now_ms(), "idleMs": idle_ms });
    ctx.state
        .append_event(&worker.name, PARKED_EVENT, &payload)?;
    if let Err(e) = stop_cli(ctx, worker.session()) {
        let undone = json!({ "at": now_ms(), "undone": format!("the park failed: {e}") });
        let _ = ctx.state.append_event(&worker.name, RESUMED_EVENT, &undone);
        return Err(e);
    }
    ctx.state.clear_exit(&worker.name)?;
    Ok(true)
}

/// `umbel resume NAME`: a parked or dead worker's CLI started again on its conversation.
pub fn resume(ctx: &Ctx, args: &ResumeArgs) -> Result<Resumed> {
    let worker = Worker::load(ctx, &args.name)?;
    let _lock = resume_lock(ctx, &worker, None)?;
    let (state, _) = state_now(ctx, &worker)?;
    let from = match state {
        WorkerState::Parked => {
            conversation_kept(ctx, &worker)?;
            "parked"
        }
        WorkerState::Dead => {
            resumable(ctx, &worker)?;
            "dead"
        }
        other => {
            return Err(refused(
                &worker,
                &format!(
                    "is {}: only a parked or dead worker is resumed",
                    other.as_str()
                ),
            ));
        }
    };
    start(ctx, &worker, from)
}

/// Before a prompt: starts a parked worker's CLI again (`Some`: how long it took), once however
/// many senders ask at the same time; `None` for a worker that is not parked. A resume by
/// another still running at `until` fails [`Error::Busy`].
pub fn wake(ctx: &Ctx, worker: &Worker, until: Option<Instant>) -> Result<Option<Resumed>> {
    if !parked(ctx, worker)? {
        return Ok(None);
    }
    let _lock = resume_lock(ctx, worker, until)?;
    if !parked(ctx, worker)? {
        // Another sender resumed it while this one waited for the lock.
        return Ok(None);
    }
    conversation_kept(ctx, worker)?;
    start(ctx, worker, "parked").map(Some)
}

/// After a send found the worker held: when a park (or a resume) holds it, waits for that to
/// end (until `until`: then [`Error::Busy`]); whether the worker is parked now (the send then
/// resumes it).
pub(super) fn after_park(ctx: &Ctx, worker: &Worker, until: Option<Instant>) -> Result<bool> {
    let path = ctx.state.session_dir(&worker.name).join("resume.lock");
    if files::try_lock(&path)?.is_none() {
        drop(resume_lock(ctx, worker, until)?);
    }
    parked(ctx, worker)
}

/// Whether the newest park/resume line of the worker's log is a park.
pub(super) fn parked(ctx: &Ctx, worker: &Worker) -> Result<bool> {
    Ok(since_last_start(&worker.recent_events(ctx)?).0)
}

/// Starts the worker's CLI again on its conversation and waits until it is ready.
fn start(ctx: &Ctx, worker: &Worker, from: &str) -> Result<Resumed> {
    let started = Instant::now();
    let launch = recorded_launch(ctx, worker, "")?;
    let provider = worker.provider();
    let continued = cli_session_id(ctx, worker).filter(|_| {
        worker
            .transcript_path(ctx)
            .is_some_and(|path| host::exists(&path))
    });
    let args = match &continued {
        Some(id) => provider.resume_args(&launch.args, id),
        // No conversation yet (no turn ran): the recorded launch starts it as spawn did.
        None => launch.args.clone(),
    };
    // Where the resumed CLI says it has loaded the conversation, when its start hook does not.
    let loaded_mark = continued
        .as_ref()
        .and(provider.resume_loaded_mark())
        .zip(worker.transcript_path(ctx))
        .map(|(mark, path)| (mark, files::len(&path), path));
    // A dead pane (remain-on-exit) or a stray session of the old CLI goes first.
    stop_cli(ctx, worker.session())?;
    ctx.state.clear_exit(&worker.name)?;
    let position = ctx.state.log_len(&worker.name)?;
    let base = worker_env(ctx, provider, &launch.requested)?;
    let env = with_own(base, &launch.own);
    let relaunch = Launch {
        args,
        env,
        ..launch
    };
    let result = start_in_tmux(ctx, &worker.name, &worker.meta, &worker.meta.cwd, &relaunch)
        .and_then(|()| {
            let given: Vec<&str> = relaunch.given.iter().map(String::as_str).collect();
            await_ready(
                ctx,
                &worker.name,
                &worker.meta,
                StartWait::ready(DEFAULT_STARTUP),
                &given,
                &relaunch.env,
                position,
            )
        })
        .and_then(|()| match &loaded_mark {
            Some((mark, from, path)) => {
                await_loaded(ctx, worker, path, *from, mark, started + DEFAULT_STARTUP)
            }
            None => Ok(()),
        });
    if let Err(e) = result {
        let _ = stop_cli(ctx, worker.session());
        return Err(e);
    }
    let resume_ms = started.elapsed().as_millis() as u64;
    let payload = json!({ "at": now_ms(), "ms": resume_ms, "from": from, "sessionId": continued });
    recorded_resume(ctx, worker, &payload)?;
    Ok(Resumed { resume_ms })
}

/// Records the resume; unrecorded, the CLI would run under a log that says parked (or dead), so
/// it is stopped again.
fn recorded_resume(ctx: &Ctx, worker: &Worker, payload: &serde_json::Value) -> Result<()> {
    let recorded = ctx.state.append_event(&worker.name, RESUMED_EVENT, payload);
    if recorded.is_err() {
        let _ = stop_cli(ctx, worker.session());
    }
    recorded
}

/// Waits until the resumed CLI has appended `mark` to `transcript` past `from`: it has loaded
/// the conversation, and a prompt sent now is not lost (gemini: its start hook comes first).
fn await_loaded(
    ctx: &Ctx,
    worker: &Worker,
    transcript: &Path,
    from: u64,
    mark: &str,
    deadline: Instant,
) -> Result<()> {
    loop {
        let fresh = files::read_from(transcript, from).unwrap_or_default();
        if String::from_utf8_lossy(&fresh)
            .lines()
            .any(|line| line.starts_with(mark))
        {
            return Ok(());
        }
        if ctx.cancelled() {
            return Err(Error::Interrupted);
        }
        if Instant::now() >= deadline {
            return Err(Error::StartupFailed {
                name: worker.name.to_string(),
                detail: format!(
                    "it started but did not load its conversation into {} within {}",
                    transcript.display(),
                    humantime::format_duration(DEFAULT_STARTUP)
                ),
                screen: ctx.tmux.capture(worker.session(), false).ok(),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The conversation id the CLI itself reported in its newest hook payload (codex picks its own;
/// umbel's is a placeholder until its first hook), else the one spawn gave it; `None` for a
/// codex worker that never started a thread.
pub fn cli_session_id(ctx: &Ctx, worker: &Worker) -> Option<String> {
    let reported = ctx
        .state
        .log_backwards(&worker.name)
        .ok()?
        .take(REACH)
        .find_map(|r| {
            let payload = ctx
                .state
                .read_payload(&worker.name, r.payload.as_deref()?)?;
            payload_session_id(&payload).map(str::to_string)
        });
    match reported {
        Some(id) => Some(id),
        None if worker.provider().picks_its_session_id() => None,
        None => Some(worker.meta.session_id.clone()),
    }
}

/// The worker's `resume.lock`, waited for: one park or resume of a worker at a time. Still held
/// by another at `until`: [`Error::Busy`].
fn resume_lock(ctx: &Ctx, worker: &Worker, until: Option<Instant>) -> Result<Lock> {
    let path = ctx.state.session_dir(&worker.name).join("resume.lock");
    files::lock_waiting(&path, &ctx.cancel, until)?.ok_or_else(|| Error::Busy {
        name: worker.name.to_string(),
        detail: "a park or resume of it still holds it".into(),
    })
}

/// Ends the CLI in `session` (its whole process group: SIGTERM, then SIGKILL after 3 s, as
/// `kill` does) and the session, and nothing else: no tombstone.
fn stop_cli(ctx: &Ctx, session: &str) -> Result<()> {
    let pane = ctx.tmux.pane(session)?;
    if let (crate::core::wait::Liveness::Alive, Some(pid)) = (&pane.liveness, pane.pid) {
        crate::adapters::process::end_group(pid, Duration::from_secs(3));
    }
    ctx.tmux.kill_session(session)
}
