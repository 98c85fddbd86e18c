//! The state folder (`$UMBEL_STATE`, default `~/.umbel`, mode 0700):
//!
//! ```text
//! <root>/hooks/                      event.sh and launch.sh, installed from the binary itself
//! <root>/sessions/<name>/meta.json   who the worker is
//! <root>/sessions/<name>/spawn.lock  locked while its spawn is in progress
//! <root>/sessions/<name>/events/     hook payloads, the event log, `exit`, `dead`
//! <root>/sessions/<name>/warm.json   a warm worker's marker (`-p --warm`), taken by one rename
//! <root>/sessions/<name>/budget.json its limits; pool.json: the run whose budget it shares;
//!                                    budget-stop-<position>.json: a turn's budget stop, claimed once
//! <root>/fleet-budget.json           the fleet's limits and what its purged workers used (`pools`)
//! <root>/prices.json                 the user's own list prices
//! ```
//!
//! Every write is atomic (temp file + rename). A session folder is created with one `mkdir`, so
//! two spawns racing on a name get exactly one winner.

use super::atomic::write_json_durable;
pub use super::atomic::{write_atomic, write_json_atomic};
use super::event_log;
use crate::core::errors::{Error, Result};
use crate::core::events::{EventRecord, parse_log};
use crate::core::meta::Meta;
use crate::core::name::WorkerName;
use crate::core::outcome::ExitStatus;
use crate::core::warm::{KILL_ALL_FILE, MARK_FILE, TAKEN_FILE, WarmMark, is_warm_name};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The event log's line-count checkpoint, in the worker's folder (not `events/`, which `wait`
/// watches).
const LOG_CHECKPOINT: &str = "log.count";
/// Held by a spawn from before meta.json is written until it returns.
const SPAWN_LOCK: &str = "spawn.lock";
/// How long removing a session folder waits out hooks still writing into it.
const REMOVE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// How many times this process read a meta.json: a worker is loaded once per command, and
/// `UMBEL_DEBUG_META_READS=1` makes the CLI print this on exit so a test can hold it to that.
static META_READS: AtomicUsize = AtomicUsize::new(0);

/// The number of meta.json reads so far in this process.
pub fn meta_reads() -> usize {
    META_READS.load(Ordering::Relaxed)
}

/// The hook scripts, embedded from the repository's `hooks/`.
pub const EVENT_SH: &str = include_str!("../../hooks/event.sh");
pub const LAUNCH_SH: &str = include_str!("../../hooks/launch.sh");

/// Evidence kept when a worker died or was killed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct DeadRecord {
    /// Milliseconds since the epoch.
    pub at: u64,
    /// `kill` when umbel killed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitStatus>,
    /// The last screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
}

/// The state root.
#[derive(Debug, Clone)]
pub struct StateRoot {
    root: PathBuf,
}

impl StateRoot {
    /// Opens (and creates, mode 0700) the state root at `root`.
    pub fn open(root: PathBuf) -> Result<Self> {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(root.join("sessions"))
            .map_err(|e| Error::io("cannot create the state folder", &root, e))?;
        refuse_borrowed(&root)?;
        Ok(StateRoot { root })
    }

    /// The state root at `root`, created or not: for `doctor`, which only looks.
    pub fn at(root: PathBuf) -> Self {
        StateRoot { root }
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    pub fn session_dir(&self, name: &WorkerName) -> PathBuf {
        self.root.join("sessions").join(name.as_str())
    }

    /// Whether the worker's folder exists (it can be deleted under a running verb).
    pub fn has_folder(&self, name: &WorkerName) -> bool {
        self.session_dir(name).is_dir()
    }

    pub fn events_dir(&self, name: &WorkerName) -> PathBuf {
        self.session_dir(name).join("events")
    }

    pub fn hooks_dir(&self) -> PathBuf {
        self.root.join("hooks")
    }

    /// Installs the hook scripts if they are missing or differ from this binary's.
    pub fn install_hooks(&self) -> Result<()> {
        let dir = self.hooks_dir();
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| Error::io("cannot create", &dir, e))?;
        for (file, content) in [("event.sh", EVENT_SH), ("launch.sh", LAUNCH_SH)] {
            let path = dir.join(file);
            if fs::read_to_string(&path).ok().as_deref() != Some(content) {
                write_atomic(&path, content.as_bytes(), 0o700)?;
            }
        }
        Ok(())
    }

    /// Claims a new session folder (with `events/`). Exactly one of two racing callers wins;
    /// the other gets [`Error::Exists`].
    pub fn create_session(&self, name: &WorkerName) -> Result<PathBuf> {
        let dir = self.session_dir(name);
        match fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                let dead = self.read_dead(name).is_some() || self.read_exit(name).is_some();
                return Err(Error::Exists {
                    name: name.to_string(),
                    dead,
                });
            }
            Err(e) => return Err(Error::io("cannot create", &dir, e)),
        }
        let events = self.events_dir(name);
        if let Err(e) = fs::DirBuilder::new().mode(0o700).create(&events) {
            let _ = fs::remove_dir_all(&dir);
            return Err(Error::io("cannot create", &events, e));
        }
        Ok(dir)
    }

    /// Marks a spawn of `name` in progress for as long as the returned file is open (an
    /// advisory lock on `<session>/spawn.lock`, released by the kernel even when the spawner is
    /// killed). Taken before meta.json is written, so a worker listed with no lock held is done
    /// spawning.
    pub fn lock_spawn(&self, name: &WorkerName) -> Result<fs::File> {
        let path = self.session_dir(name).join(SPAWN_LOCK);
        let file = open_lock_file(&path)?;
        file.lock()
            .map_err(|e| Error::io("cannot lock", &path, e))?;
        Ok(file)
    }

    /// Whether a spawn of `name` is still in progress (see [`StateRoot::lock_spawn`]).
    pub fn spawning(&self, name: &WorkerName) -> bool {
        let Ok(file) = fs::File::open(self.session_dir(name).join(SPAWN_LOCK)) else {
            return false;
        };
        matches!(file.try_lock(), Err(fs::TryLockError::WouldBlock))
    }

    /// Removes a session folder entirely. A worker that just died may still have a hook writing
    /// a payload into it (a file appearing between the listing and the `rmdir`): such a removal
    /// is tried again for up to [`REMOVE_PATIENCE`] rather than failing "Directory not empty".
    pub fn remove_session(&self, name: &WorkerName) -> Result<()> {
        let dir = self.session_dir(name);
        let deadline = std::time::Instant::now() + REMOVE_PATIENCE;
        loop {
            match fs::remove_dir_all(&dir) {
                Err(e)
                    if e.kind() == ErrorKind::DirectoryNotEmpty
                        && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(e) if e.kind() != ErrorKind::NotFound => {
                    return Err(Error::io("cannot remove", &dir, e));
                }
                _ => return Ok(()),
            }
        }
    }

    /// Writes meta.json atomically.
    pub fn write_meta(&self, meta: &Meta, name: &WorkerName) -> Result<()> {
        write_json_durable(&self.session_dir(name).join("meta.json"), meta)
    }

    /// Reads meta.json; a missing worker is [`Error::NotFound`].
    pub fn read_meta(&self, name: &WorkerName) -> Result<Meta> {
        META_READS.fetch_add(1, Ordering::Relaxed);
        let path = self.session_dir(name).join("meta.json");
        let text = match fs::read(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(Error::NotFound {
                    name: name.to_string(),
                });
            }
            // EIO, EACCES, a folder in its place: as unreadable as a corrupt file, and handled
            // the same way (listed `corrupt`, killable by name, skipped by the sweeps).
            Err(e) => {
                return Err(Error::Corrupt {
                    path,
                    message: format!("cannot read it: {}", crate::core::errors::os_text(&e)),
                });
            }
        };
        serde_json::from_slice(&text).map_err(|e| Error::Corrupt {
            path,
            message: e.to_string(),
        })
    }

    /// Names of all workers with a meta.json, sorted.
    pub fn list(&self) -> Result<Vec<WorkerName>> {
        let dir = self.root.join("sessions");
        let entries = fs::read_dir(&dir).map_err(|e| Error::io("cannot list", &dir, e))?;
        let mut names: Vec<WorkerName> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| WorkerName::parse(&e.file_name().to_string_lossy()).ok())
            .filter(|n| self.session_dir(n).join("meta.json").exists())
            .collect();
        names.sort();
        Ok(names)
    }

    /// The folders of spawns that died before writing meta.json (killed between the `mkdir`
    /// and it): no meta.json, no spawn holding the lock, and untouched for `quiet` (a spawn in
    /// progress takes its lock a moment after its `mkdir`).
    pub fn interrupted_spawns(&self, quiet: std::time::Duration) -> Result<Vec<WorkerName>> {
        let now = std::time::SystemTime::now();
        Ok(self
            .folders()?
            .into_iter()
            .filter(|n| !self.session_dir(n).join("meta.json").exists() && !self.spawning(n))
            .filter(|n| {
                fs::metadata(self.session_dir(n))
                    .and_then(|m| m.modified())
                    .is_ok_and(|at| now.duration_since(at).is_ok_and(|age| age >= quiet))
            })
            .collect())
    }

    /// Names of all worker folders, with a meta.json or not yet (a spawn in progress).
    pub fn folders(&self) -> Result<Vec<WorkerName>> {
        let dir = self.root.join("sessions");
        let entries = fs::read_dir(&dir).map_err(|e| Error::io("cannot list", &dir, e))?;
        Ok(entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| WorkerName::parse(&e.file_name().to_string_lossy()).ok())
            .collect())
    }

    /// The event log, parsed (empty when nothing fired yet; an unreadable line is one
    /// [`crate::core::events::UNREADABLE`] position).
    pub fn read_log(&self, name: &WorkerName) -> Result<Vec<EventRecord>> {
        let path = self.events_dir(name).join("log");
        match fs::read(&path) {
            Ok(bytes) => Ok(parse_log(&bytes)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(Error::io("cannot read", &path, e)),
        }
    }

    /// The number of positions in the event log, counted from a checkpoint (`log.count`) so a
    /// big log costs only what was appended since.
    pub fn log_len(&self, name: &WorkerName) -> Result<usize> {
        let log = self.events_dir(name).join("log");
        event_log::count(&log, &self.session_dir(name).join(LOG_CHECKPOINT))
            .map_err(|e| Error::io("cannot read", &log, e))
    }

    /// The event log's records, newest first, read backwards with bounded memory.
    pub fn log_backwards(&self, name: &WorkerName) -> Result<event_log::Backwards> {
        let log = self.events_dir(name).join("log");
        let checkpoint = self.session_dir(name).join(LOG_CHECKPOINT);
        event_log::Backwards::open(&log, &checkpoint).map_err(|e| Error::io("cannot read", &log, e))
    }

    /// A hook payload by file name (None when missing or not JSON).
    pub fn read_payload(&self, name: &WorkerName, file: &str) -> Option<serde_json::Value> {
        if file.contains('/') {
            return None;
        }
        read_json_file(&self.events_dir(name).join(file))
    }

    /// The launch wrapper's exit record.
    pub fn read_exit(&self, name: &WorkerName) -> Option<ExitStatus> {
        read_json_file(&self.events_dir(name).join("exit"))
    }

    /// Forgets how the worker's last CLI ended (`events/exit`, `events/dead`): its CLI is
    /// started again on the same conversation (`resume`), or was ended on purpose (`park`).
    pub fn clear_exit(&self, name: &WorkerName) -> Result<()> {
        for file in ["exit", "dead"] {
            let path = self.events_dir(name).join(file);
            match fs::remove_file(&path) {
                Err(e) if e.kind() != ErrorKind::NotFound => {
                    return Err(Error::io("cannot remove", &path, e));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The evidence record of a death.
    pub fn read_dead(&self, name: &WorkerName) -> Option<DeadRecord> {
        read_json_file(&self.events_dir(name).join("dead"))
    }

    /// Appends one event umbel itself records (e.g. a guardrail check) to the worker's log: the
    /// payload file first, then the line in one append, as `hooks/event.sh` does.
    pub fn append_event(
        &self,
        name: &WorkerName,
        kind: &str,
        payload: &serde_json::Value,
    ) -> Result<()> {
        let dir = self.events_dir(name);
        let ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let file = format!("{ns}-{}.{kind}.json", std::process::id());
        write_atomic(&dir.join(&file), payload.to_string().as_bytes(), 0o600)?;
        let log = dir.join("log");
        // umbel's own line may be the first (a worker parked before any hook fired).
        fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&log)
            .and_then(|mut f| f.write_all(format!("{ns} {kind} {file}\n").as_bytes()))
            .map_err(|e| Error::io("cannot append to", &log, e))
    }

    /// A record umbel wrote into the worker's folder (launch.json, rules.json, guard.json):
    /// `Ok(None)` when there is none. Missing, unreadable ([`Error::Io`]) and invalid
    /// ([`Error::Corrupt`]) are three answers: a record read as missing would drop what it holds
    /// (the worker's rules, its guardrails, its launch) without a word.
    pub fn read_record<T: serde::de::DeserializeOwned>(
        &self,
        name: &WorkerName,
        file: &str,
    ) -> Result<Option<T>> {
        read_record_at(self.session_dir(name).join(file))
    }

    /// A small JSON file of the worker's folder that may be missing or half-made (a warm
    /// marker, the last send's note): `None` when missing or unreadable.
    pub fn read_json<T: serde::de::DeserializeOwned>(
        &self,
        name: &WorkerName,
        file: &str,
    ) -> Option<T> {
        read_json_file(&self.session_dir(name).join(file))
    }

    /// Writes a record of the worker's folder a reboot must find whole (launch.json), synced
    /// to disk ([`super::atomic::write_durable`]).
    pub fn write_record<T: Serialize>(
        &self,
        name: &WorkerName,
        file: &str,
        value: &T,
    ) -> Result<()> {
        write_json_durable(&self.session_dir(name).join(file), value)
    }

    /// Writes a small JSON file into the worker's folder; `None` removes it.
    pub fn write_json<T: Serialize>(
        &self,
        name: &WorkerName,
        file: &str,
        value: Option<&T>,
    ) -> Result<()> {
        let path = self.session_dir(name).join(file);
        match value {
            Some(value) => write_json_atomic(&path, value),
            None => match fs::remove_file(&path) {
                Err(e) if e.kind() != ErrorKind::NotFound => {
                    Err(Error::io("cannot remove", &path, e))
                }
                _ => Ok(()),
            },
        }
    }

    /// The marker of a warm worker still waiting for its `-p` (`-p --warm`); `None` for any
    /// other worker, and once a `-p` took it.
    pub fn warm_mark(&self, name: &WorkerName) -> Option<WarmMark> {
        is_warm_name(name.as_str())
            .then(|| self.read_json(name, MARK_FILE))
            .flatten()
    }

    /// Takes the warm marker (`warm.json`, renamed to `warm.taken`): `true` for the one caller
    /// whose rename moved it. A `-p` claiming the warm worker and its expiry race for it; the
    /// rename is atomic, so exactly one wins and the other sees it gone.
    pub fn take_warm(&self, name: &WorkerName) -> bool {
        let dir = self.session_dir(name);
        fs::rename(dir.join(MARK_FILE), dir.join(TAKEN_FILE)).is_ok()
    }

    /// Notes that a `kill --all` begins now (`at`, ms since the epoch).
    pub fn mark_kill_all(&self, at: u64) -> Result<()> {
        write_json_atomic(&self.root.join(KILL_ALL_FILE), &at)
    }

    /// When the last `kill --all` began, if one ever ran here.
    pub fn kill_all_at(&self) -> Option<u64> {
        read_json_file(&self.root.join(KILL_ALL_FILE))
    }

    /// Writes the evidence record (when the folder still exists).
    pub fn write_dead(&self, name: &WorkerName, record: &DeadRecord) -> Result<()> {
        let dir = self.events_dir(name);
        if !dir.is_dir() {
            return Ok(());
        }
        write_json_atomic(&dir.join("dead"), record)
    }
}

/// Refuses a state root another user owns or can write: the hook scripts in it run inside every
/// CLI, so whoever can change them runs code as the user (as tmux refuses such a socket folder,
/// and ssh such a `~/.ssh`).
fn refuse_borrowed(root: &Path) -> Result<()> {
    let (mode, owned) = crate::adapters::files::mode_and_ownership(root)
        .map_err(|e| Error::io("cannot look at the state folder", root, e))?;
    let why = match (owned, mode & 0o022) {
        (false, _) => "belongs to another user".to_string(),
        (true, 0) => return Ok(()),
        (true, _) => format!("can be written by other users (mode {:o})", mode & 0o777),
    };
    Err(Error::usage(format!(
        "the state folder {} {why}: the hook scripts in it run inside every CLI, so umbel will \
         not use it; `chmod 700 {}` (if it is yours), or set UMBEL_STATE to a folder of your own",
        root.display(),
        root.display()
    )))
}

/// A record umbel wrote at `path`: `Ok(None)` when there is none, [`Error::Io`] when it cannot
/// be read, [`Error::Corrupt`] when it is not the expected JSON.
pub fn read_record_at<T: serde::de::DeserializeOwned>(path: PathBuf) -> Result<Option<T>> {
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("cannot read", &path, e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| Error::Corrupt {
            path,
            message: e.to_string(),
        })
}

/// A small JSON file, parsed (`None` when missing or not the expected JSON).
fn read_json_file<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

/// Opens (creating it if needed) a file used only for its advisory lock.
pub fn open_lock_file(path: &Path) -> Result<fs::File> {
    fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::io("cannot create", path, e))
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
