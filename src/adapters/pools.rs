//! Shared limits on disk: the fleet's at `<state>/fleet-budget.json`, a workflow run's at
//! `<state>/workflows/<run-id>/budget.json`, each changed under its own advisory lock
//! (`….lock` beside it) so two kills retiring workers at once both count; and the claim a
//! budget stop takes on a worker's turn, one `create_new` so exactly one process presses the
//! interrupt keys.

use super::atomic::write_json_durable;
use super::state::{StateRoot, open_lock_file, read_record_at};
use crate::core::budget::{Pool, PoolRecord};
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use serde::Serialize;
use std::fs;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

/// The fleet's limits, in the state root.
const FLEET_FILE: &str = "fleet-budget.json";

impl StateRoot {
    /// Where a shared limit's record is kept.
    pub fn pool_file(&self, pool: &Pool) -> PathBuf {
        match pool {
            Pool::Fleet => self.path().join(FLEET_FILE),
            Pool::Run(id) => self.path().join("workflows").join(id).join("budget.json"),
        }
    }

    /// A shared limit's record; `Ok(None)` when none was set.
    pub fn read_pool(&self, pool: &Pool) -> Result<Option<PoolRecord>> {
        read_record_at(self.pool_file(pool))
    }

    /// Changes a shared limit's record (a new one starts from the default) under its lock,
    /// and returns it as written.
    pub fn update_pool(
        &self,
        pool: &Pool,
        change: impl FnOnce(&mut PoolRecord),
    ) -> Result<PoolRecord> {
        let path = self.pool_file(pool);
        let lock_path = path.with_extension("lock");
        let lock = open_lock_file(&lock_path)?;
        lock.lock()
            .map_err(|e| Error::io("cannot lock", &lock_path, e))?;
        let mut record = self.read_pool(pool)?.unwrap_or_default();
        change(&mut record);
        write_json_durable(&path, &record)?;
        Ok(record)
    }

    /// Creates the worker's `file` holding `value` unless it exists: whether this call made
    /// it (of several processes racing, exactly one does).
    pub fn claim<T: Serialize>(&self, name: &WorkerName, file: &str, value: &T) -> Result<bool> {
        let path = self.session_dir(name).join(file);
        let created = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path);
        let mut out = match created {
            Ok(out) => out,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => return Ok(false),
            Err(e) => return Err(Error::io("cannot create", &path, e)),
        };
        let bytes = serde_json::to_vec(value).unwrap_or_default();
        out.write_all(&bytes)
            .map_err(|e| Error::io("cannot write", &path, e))?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::budget::Limits;

    #[test]
    fn a_pool_is_changed_in_place_and_a_claim_is_taken_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = StateRoot::at(dir.path().to_path_buf());
        assert_eq!(state.read_pool(&Pool::Fleet).expect("read"), None);
        let limits = Limits {
            max_prompts: Some(3),
            ..Limits::default()
        };
        state
            .update_pool(&Pool::Fleet, |r| r.limits = limits.clone())
            .expect("set");
        let after = state
            .update_pool(&Pool::Fleet, |r| r.retired.tokens += 7)
            .expect("retire");
        assert_eq!(after.limits, limits);
        assert_eq!(
            state.read_pool(&Pool::Fleet).expect("read"),
            Some(after.clone())
        );
        let name = WorkerName::parse("w").expect("name");
        fs::create_dir_all(state.session_dir(&name)).expect("dir");
        assert!(state.claim(&name, "stop-1.json", &1).expect("claim"));
        assert!(!state.claim(&name, "stop-1.json", &2).expect("claim"));
    }
}
