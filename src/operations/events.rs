//! `umbel events`: the fleet's state changes, one [`FleetEvent`] each, read from the workers'
//! own files — their event logs (each read forward from where the last look stopped), their
//! meta.json (spawned) and tombstones (killed). Following is event-driven: one inotify instance
//! on `sessions/`, every worker's folder and its `events/` ([`FleetWatch`]); an idle fleet
//! wakes nothing but the Ctrl-C check. `--exec` runs a command per event ([`Exec`]).

use super::Ctx;
use super::worker::Worker;
use crate::adapters::exec::{Program, RunError, Watch, run_program};
use crate::adapters::files;
use crate::adapters::fleet_watch::FleetWatch;
use crate::adapters::host::now_ms;
use crate::core::args::EventsArgs;
use crate::core::budget::Reached;
use crate::core::duration::{parse_duration, parse_or};
use crate::core::errors::{Error, Result};
use crate::core::events::{EventRecord, parse_record};
use crate::core::fleet_events::{
    ANSWERED, BUDGET, BUDGET_WARNING, DEAD, FleetEvent, KILLED, SPAWNED, TURN_ENDED, Tracker,
    first_line, in_time_order, line_event,
};
use crate::core::name::WorkerName;
use crate::core::providers::EventClass;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, SyncSender, TrySendError, channel, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a follower with nothing to do looks at the Ctrl-C flag (it reads no file then).
const CANCEL_CHECK: Duration = Duration::from_millis(250);
/// The safety net: a look at the fleet when no change woke the follower for this long.
const SAFETY_NET: Duration = Duration::from_secs(30);
/// How long an `--exec` command may run by default.
const EXEC_TIMEOUT: Duration = Duration::from_secs(60);
/// How many events may wait for one worker's `--exec` commands before more are skipped.
const EXEC_QUEUE: usize = 16;
/// How much of a failed `--exec` command's stderr is reported.
const EXEC_STDERR: usize = 400;

/// One worker as the stream follows it.
struct Followed {
    worker: Worker,
    /// Bytes of its log read so far (whole lines only).
    offset: u64,
    /// Lines read so far: the next line's position.
    lines: usize,
    tracker: Tracker,
    tombstone_seen: bool,
    /// Its meta.json as last seen ([`files::stamp`]): when it changes, the folder may hold
    /// another worker of the same name (purged and spawned again).
    meta_stamp: Option<(u64, i64, i64, u64)>,
}

/// The fleet's events, look after look.
pub struct Stream {
    only: Option<Vec<WorkerName>>,
    since_ms: u64,
    workers: BTreeMap<WorkerName, Followed>,
}

impl Stream {
    /// A stream over `args.names` (each must exist), or every worker.
    pub fn new(ctx: &Ctx, args: &EventsArgs) -> Result<Self> {
        let only = match args.names.as_slice() {
            [] => None,
            names => Some(
                names
                    .iter()
                    .map(|n| Worker::load(ctx, n).map(|w| w.name))
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        Ok(Stream {
            only,
            since_ms: since_ms(args.since.as_deref(), now_ms())?,
            workers: BTreeMap::new(),
        })
    }

    /// Every worker folder the stream reads (spawns in progress included).
    fn names(&self, ctx: &Ctx) -> Vec<WorkerName> {
        match &self.only {
            Some(names) => names.clone(),
            None => ctx.state.folders().unwrap_or_default(),
        }
    }

    /// The folders whose changes are events ([`fleet_dirs`] of the workers it reads).
    pub fn dirs(&self, ctx: &Ctx) -> Vec<PathBuf> {
        fleet_dirs(ctx, &self.names(ctx))
    }

    /// Everything that happened since the last look, oldest first.
    pub fn look(&mut self, ctx: &Ctx) -> Vec<FleetEvent> {
        let mut out = Vec::new();
        self.workers.retain(|_, followed| {
            let gone = match followed.successor(ctx) {
                Successor::Same => return true,
                Successor::Gone => now_ms(),
                // Spawned again under its name: the old one ended before the new one began.
                Successor::Other(created_at) => created_at.unwrap_or(u64::MAX).min(now_ms()),
            };
            // Purged (`kill --purge`) while followed: no tombstone will say so.
            if followed.tracker.admit(KILLED) {
                out.push(event_of(&followed.worker, gone, KILLED));
            }
            false
        });
        for name in self.names(ctx) {
            if self.workers.contains_key(&name) {
                continue;
            }
            // No meta.json yet: a spawn in progress, picked up when it is written.
            let Ok(meta) = ctx.state.read_meta(&name) else {
                continue;
            };
            let Ok(worker) = Worker::from_meta(meta) else {
                continue;
            };
            let mut followed = Followed {
                offset: 0,
                lines: 0,
                tracker: Tracker::default(),
                tombstone_seen: false,
                meta_stamp: files::stamp(&meta_path(ctx, &name)),
                worker,
            };
            followed.tracker.admit(SPAWNED);
            out.push(event_of(
                &followed.worker,
                followed.worker.meta.created_at,
                SPAWNED,
            ));
            self.workers.insert(name, followed);
        }
        for followed in self.workers.values_mut() {
            followed.read_new(ctx, &mut out);
        }
        out.retain(|e| e.at >= self.since_ms);
        in_time_order(&mut out);
        out
    }
}

/// What a followed worker's folder holds now.
enum Successor {
    /// The same worker.
    Same,
    /// Nothing: it was purged.
    Gone,
    /// Another worker of its name, spawned at this time (ms), or being spawned (`None`).
    Other(Option<u64>),
}

fn meta_path(ctx: &Ctx, name: &WorkerName) -> PathBuf {
    ctx.state.session_dir(name).join("meta.json")
}

impl Followed {
    /// Whether the folder still holds this worker: its meta.json is read again only when it
    /// changed, and a different `createdAt` is another worker.
    fn successor(&mut self, ctx: &Ctx) -> Successor {
        let name = &self.worker.name;
        if !ctx.state.has_folder(name) {
            return Successor::Gone;
        }
        let stamp = files::stamp(&meta_path(ctx, name));
        if stamp == self.meta_stamp {
            return Successor::Same;
        }
        // meta.json is replaced whole (a rename), never missing for a worker: a folder without
        // one is a spawn in progress. One umbel cannot read is still this worker's.
        if stamp.is_none() {
            return Successor::Other(None);
        }
        match ctx.state.read_meta(name) {
            Ok(meta) if meta.created_at != self.worker.meta.created_at => {
                Successor::Other(Some(meta.created_at))
            }
            _ => {
                self.meta_stamp = stamp;
                Successor::Same
            }
        }
    }

    /// The events of the log lines written since the last look, then its tombstone's.
    fn read_new(&mut self, ctx: &Ctx, out: &mut Vec<FleetEvent>) {
        let log = ctx.state.events_dir(&self.worker.name).join("log");
        if files::len(&log) > self.offset
            && let Some(fresh) = files::read_from(&log, self.offset)
        {
            // Whole lines only: a line being written is read once it is complete.
            let complete = fresh.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            if let Some(lines) = fresh[..complete].strip_suffix(b"\n") {
                for line in lines.split(|b| *b == b'\n') {
                    let record = parse_record(self.lines, line);
                    self.lines += 1;
                    out.extend(self.line(ctx, &record));
                }
            }
            self.offset += complete as u64;
        }
        if !self.tombstone_seen
            && let Some(dead) = ctx.state.read_dead(&self.worker.name)
        {
            self.tombstone_seen = true;
            let kind = match dead.by.as_deref() {
                Some("kill") => KILLED,
                _ => DEAD,
            };
            if self.tracker.admit(kind) {
                let mut event = event_of(&self.worker, dead.at, kind);
                event.exit = dead.exit;
                out.push(event);
            }
        }
    }

    /// The event one log line is, if it is a change.
    fn line(&mut self, ctx: &Ctx, record: &EventRecord) -> Option<FleetEvent> {
        let worker = &self.worker;
        let payload = record
            .payload
            .as_deref()
            .and_then(|file| ctx.state.read_payload(&worker.name, file));
        let class = worker.provider().class_of(&record.kind, payload.as_ref());
        if class == EventClass::Progress {
            self.tracker.progress();
        }
        let change = line_event(record, &class)?;
        if !self.tracker.admit(change.event) {
            return None;
        }
        let at = u64::try_from(record.at_ns / 1_000_000).unwrap_or(u64::MAX);
        let mut event = event_of(worker, at, change.event);
        event.position = Some(record.index + 1);
        event.outcome = change.outcome;
        event.reason = change.reason;
        event.tool = change.tool;
        if change.event == TURN_ENDED {
            event.answer = payload
                .as_ref()
                .and_then(|p| worker.provider().answer_from_payload(p))
                .and_then(|a| first_line(&a));
        }
        if change.event == DEAD {
            event.exit = ctx.state.read_exit(&worker.name);
        }
        if matches!(change.event, BUDGET | BUDGET_WARNING) {
            let reached = payload.and_then(|p| serde_json::from_value::<Reached>(p).ok());
            event.reason = reached.as_ref().map(|r| r.limit.as_str().to_string());
            event.detail = reached.map(|r| r.to_string());
            return Some(event);
        }
        if change.event == ANSWERED {
            let field = |key| payload.as_ref().and_then(|p| p.get(key)).cloned();
            event.reason = field("answer").and_then(|a| a.as_str().map(str::to_string));
            event.tool = field("tool").filter(|t| !t.is_null());
            let text = |key| field(key).and_then(|v| v.as_str().map(str::to_string));
            event.by = text("by");
            event.rule = text("rule");
            // A question's answer: the choice picked.
            event.answer = text("choice");
        }
        Some(event)
    }
}

fn event_of(worker: &Worker, at: u64, event: &str) -> FleetEvent {
    let provider = worker.meta.provider.module().identity().name;
    FleetEvent::new(at, worker.name.as_str(), provider, event)
}

/// `--since`: a duration ago, or a UTC time; none is the beginning.
fn since_ms(given: Option<&str>, now: u64) -> Result<u64> {
    let Some(text) = given else { return Ok(0) };
    if let Ok(time) = humantime::parse_rfc3339_weak(text) {
        let since_epoch = time
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|_| Error::usage(format!("`--since {text}` is before 1970")))?;
        return Ok(u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX));
    }
    let ago = parse_duration(text, "--since").map_err(|_| {
        Error::usage(format!(
            "invalid `--since {text}`: give a duration ago (`10m`, `2h`) or a UTC time (`2026-12-04T21:00:00Z`)"
        ))
    })?;
    Ok(now.saturating_sub(u64::try_from(ago.as_millis()).unwrap_or(u64::MAX)))
}

/// Hands every event to `emit`, oldest first; with `follow`, keeps doing so as they happen
/// until the caller cancels.
pub fn events(ctx: &Ctx, args: &EventsArgs, mut emit: impl FnMut(&FleetEvent)) -> Result<()> {
    let mut stream = Stream::new(ctx, args)?;
    if !args.follow {
        stream.look(ctx).iter().for_each(&mut emit);
        return Ok(());
    }
    follow_fleet(
        ctx,
        &mut stream,
        |stream| stream.dirs(ctx),
        |stream| {
            stream.look(ctx).iter().for_each(&mut emit);
            Ok(())
        },
    )
}

/// The folders whose changes are the fleet's events: `sessions/` (workers come and go), and
/// each of `names`' folder (meta.json) and `events/` (hooks).
pub fn fleet_dirs(ctx: &Ctx, names: &[WorkerName]) -> Vec<PathBuf> {
    let mut dirs = vec![ctx.state.path().join("sessions")];
    for name in names {
        dirs.push(ctx.state.session_dir(name));
        dirs.push(ctx.state.events_dir(name));
    }
    dirs
}

/// Follows the fleet until the caller cancels: `look` reads what changed in `state` each time
/// one of the folders `dirs` names changes (woken by [`FleetWatch`], with a look every
/// [`SAFETY_NET`] regardless). The folders are watched before each look, and again before
/// waiting when a worker came or went during it.
pub fn follow_fleet<S>(
    ctx: &Ctx,
    state: &mut S,
    dirs: impl Fn(&S) -> Vec<PathBuf>,
    mut look: impl FnMut(&mut S) -> Result<()>,
) -> Result<()> {
    let (tx, wake) = channel();
    let mut watch = FleetWatch::new(move || {
        let _ = tx.send(());
    })?;
    loop {
        // Watch first, then read: a change landing in between still wakes the loop.
        let watched = dirs(state);
        watch.sync(&watched);
        look(state)?;
        if dirs(state) != watched {
            continue; // a worker came or went while looking: watch it before waiting
        }
        let idle_since = Instant::now();
        loop {
            if ctx.cancelled() {
                return Ok(());
            }
            match wake.recv_timeout(CANCEL_CHECK) {
                Ok(()) => break,
                Err(RecvTimeoutError::Timeout) if idle_since.elapsed() >= SAFETY_NET => break,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
        }
        while wake.try_recv().is_ok() {}
    }
}

/// `--exec`: a shell command run once per event, one at a time per worker: each worker's
/// events queue for a thread of their own, so the stream never waits for a command and one
/// worker's slow command never delays another's. A worker's thread ends once its queue has been
/// empty for [`QUEUE_IDLE`] (a stream over hours of short-lived workers keeps none of theirs),
/// and at most [`MAX_QUEUES`] run at once. What goes wrong is told to `report`.
pub struct Exec {
    command: Arc<str>,
    bound: Duration,
    queues: Queues,
    report: Report,
    /// Raised on Ctrl-C (SIGTERM, SIGHUP): the running commands are ended, no new one starts.
    cancel: Arc<AtomicBool>,
}

/// Each worker's queue and the thread running its commands, by name, while that thread runs.
type Queues = Arc<Mutex<HashMap<String, Queue>>>;

struct Queue {
    tx: SyncSender<FleetEvent>,
    thread: std::thread::JoinHandle<()>,
}

/// Where `--exec`'s problems go (stderr, from the face).
pub type Report = Arc<dyn Fn(String) + Send + Sync>;

/// How long a worker's `--exec` thread waits for its next event before it ends.
const QUEUE_IDLE: Duration = Duration::from_secs(2);

/// At most this many workers' commands run side by side; an event past it is skipped, said.
const MAX_QUEUES: usize = 256;

impl Exec {
    /// `command` run by `sh -c`, ended after `--exec-timeout`, or when `ctx` is cancelled.
    pub fn new(ctx: &Ctx, command: &str, timeout: Option<&str>, report: Report) -> Result<Self> {
        Ok(Exec {
            command: command.into(),
            bound: parse_or(timeout, "--exec-timeout", EXEC_TIMEOUT)?,
            queues: Arc::new(Mutex::new(HashMap::new())),
            report,
            cancel: Arc::clone(&ctx.cancel),
        })
    }

    /// The end of the stream: the commands queued run to their end (each within its timeout),
    /// or after a cancel (Ctrl-C) the running ones are ended and the rest dropped; returns once
    /// every thread is gone, so no command outlives umbel.
    pub fn finish(&self) {
        let queues: Vec<Queue> = match self.queues.lock() {
            Ok(mut queues) => queues.drain().map(|(_, q)| q).collect(),
            Err(_) => return,
        };
        for Queue { tx, thread } in queues {
            drop(tx); // its thread runs what is queued, then sees the queue closed
            let _ = thread.join();
        }
    }

    /// Queues the command for `event` behind its worker's earlier ones; when [`EXEC_QUEUE`]
    /// are already waiting (its commands are slower than its events), skips it and says so.
    pub fn run(&self, event: &FleetEvent) {
        let Ok(mut queues) = self.queues.lock() else {
            return;
        };
        // Twice at most: a queue whose thread has gone (it takes its queue out first, but
        // never lose an event to one) is replaced by a new one.
        for _ in 0..2 {
            if !queues.contains_key(&event.worker) {
                let started = match queues.len() < MAX_QUEUES {
                    true => self.start_queue(&event.worker),
                    false => Err(format!("{MAX_QUEUES} workers' commands are running")),
                };
                match started {
                    Ok(queue) => queues.insert(event.worker.clone(), queue),
                    Err(why) => return self.skipped(event, &why),
                };
            }
            let Some(queue) = queues.get(&event.worker) else {
                return;
            };
            match queue.tx.try_send(event.clone()) {
                Ok(()) => return,
                Err(TrySendError::Full(_)) => {
                    let why = format!("{EXEC_QUEUE} commands of this worker are still waiting");
                    return self.skipped(event, &why);
                }
                Err(TrySendError::Disconnected(_)) => queues.remove(&event.worker),
            };
        }
    }

    fn skipped(&self, event: &FleetEvent, why: &str) {
        (self.report)(format!(
            "--exec skipped for `{}` {}: {why}",
            event.worker, event.event
        ));
    }

    /// A worker's queue and the thread that runs its commands in order, until it has been
    /// idle for [`QUEUE_IDLE`]; `Err` says why no thread could start.
    fn start_queue(&self, worker: &str) -> std::result::Result<Queue, String> {
        let (tx, rx) = sync_channel::<FleetEvent>(EXEC_QUEUE);
        let run = {
            let (command, bound, report) = (self.command.clone(), self.bound, self.report.clone());
            let cancel = Arc::clone(&self.cancel);
            move |event: FleetEvent| {
                if let Some(problem) = run_one(&command, (bound, &cancel), &event) {
                    report(format!(
                        "--exec for `{}` {}: {problem}",
                        event.worker, event.event
                    ));
                }
            }
        };
        let (queues, worker) = (Arc::clone(&self.queues), worker.to_string());
        let cancel = Arc::clone(&self.cancel);
        let thread = std::thread::Builder::new()
            .name(format!("exec {worker}"))
            .spawn(move || {
                while let Some(event) = next_or_leave(&rx, &queues, &worker, &cancel) {
                    run(event);
                }
            })
            .map_err(|e| format!("no thread to run it: {e}"))?;
        Ok(Queue { tx, thread })
    }
}

/// The worker's next event; `None` once its queue has been idle for [`QUEUE_IDLE`] or the
/// stream is cancelled, when the queue is taken out of `queues` — under their lock, so no event
/// can be sent to it after.
fn next_or_leave(
    rx: &std::sync::mpsc::Receiver<FleetEvent>,
    queues: &Queues,
    worker: &str,
    cancel: &AtomicBool,
) -> Option<FleetEvent> {
    if cancel.load(Ordering::Relaxed) {
        queues.lock().ok()?.remove(worker);
        return None;
    }
    match rx.recv_timeout(QUEUE_IDLE) {
        Ok(event) if !cancel.load(Ordering::Relaxed) => Some(event),
        Ok(_) => {
            queues.lock().ok()?.remove(worker);
            None
        }
        Err(RecvTimeoutError::Disconnected) => None,
        Err(RecvTimeoutError::Timeout) => {
            let mut queues = queues.lock().ok()?;
            match rx.try_recv() {
                Ok(event) => Some(event),
                Err(_) => {
                    queues.remove(worker);
                    None
                }
            }
        }
    }
}

/// Runs the command for one event, ended after `bound` or once `cancel` is raised; what went
/// wrong, if anything.
fn run_one(
    command: &str,
    (bound, cancel): (Duration, &AtomicBool),
    event: &FleetEvent,
) -> Option<String> {
    let program = Program {
        argv: vec!["sh".into(), "-c".into(), command.to_string()],
        env: exec_env(event),
        ..Program::default()
    };
    let mut stdin = serde_json::to_vec(event).unwrap_or_default();
    stdin.push(b'\n');
    let watch = Watch {
        keep: Some(EXEC_STDERR),
        end_group: true,
        cancel: Some(cancel),
    };
    exec_problem(run_program(&program, Some(&stdin), bound, watch), bound)
}

fn exec_env(event: &FleetEvent) -> Vec<(String, String)> {
    let outcome = event.outcome.map(|o| o.as_str().to_string());
    [
        ("UMBEL_EVENT", Some(event.event.clone())),
        ("UMBEL_WORKER", Some(event.worker.clone())),
        ("UMBEL_OUTCOME", outcome),
        ("UMBEL_REASON", event.reason.clone()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.unwrap_or_default()))
    .collect()
}

fn exec_problem(
    ran: std::result::Result<crate::adapters::exec::Finished, RunError>,
    bound: Duration,
) -> Option<String> {
    match ran {
        Ok(done) if done.status.success() => None,
        Ok(done) => {
            let stderr = String::from_utf8_lossy(&done.stderr);
            let stderr = stderr.trim();
            Some(match stderr.is_empty() {
                true => done.ended(),
                false => format!("{} ({stderr})", done.ended()),
            })
        }
        Err(RunError::TimedOut) => Some(format!(
            "still running after {}: ended",
            humantime::format_duration(bound)
        )),
        Err(RunError::Interrupted) => Some("interrupted".into()),
        Err(RunError::Spawn(e)) => Some(format!("could not start: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_a_duration_ago_or_a_time() {
        assert_eq!(since_ms(None, 10_000).unwrap(), 0);
        assert_eq!(since_ms(Some("5s"), 10_000).unwrap(), 5_000);
        assert_eq!(
            since_ms(Some("1970-01-01T00:00:02Z"), 10_000).unwrap(),
            2_000
        );
        let err = since_ms(Some("yesterday"), 10_000).unwrap_err();
        assert!(err.to_string().contains("UTC time"), "{err}");
    }
}
