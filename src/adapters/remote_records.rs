//! The local records of remote workers: `<state>/remote/<name>.json`, one per worker.
//! The only file access of remote workers' bookkeeping: adapters/ keeps the side effects.

use crate::adapters::atomic::write_json_atomic;
use crate::adapters::state::StateRoot;
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::remote::RemoteRecord;
use std::path::PathBuf;

fn dir(state: &StateRoot) -> PathBuf {
    state.path().join("remote")
}

fn path(state: &StateRoot, name: &WorkerName) -> PathBuf {
    dir(state).join(format!("{}.json", name.as_str()))
}

/// The record of remote worker `name`, if it is one (an invalid name is no remote worker:
/// the local verb reports it).
pub fn find(state: &StateRoot, name: &str) -> Result<Option<RemoteRecord>> {
    let Ok(name) = WorkerName::parse(name) else {
        return Ok(None);
    };
    let path = path(state, &name);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| Error::Corrupt {
                path,
                message: e.to_string(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("cannot read", path, e)),
    }
}

/// Every remote worker's record, by name (unreadable ones are skipped: `kill NAME` still
/// removes them).
pub fn list(state: &StateRoot) -> Vec<RemoteRecord> {
    let mut found: Vec<RemoteRecord> = std::fs::read_dir(dir(state))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok())
        .collect();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// Records a remote worker.
pub fn save(state: &StateRoot, record: &RemoteRecord) -> Result<()> {
    let name = WorkerName::parse(&record.name)?;
    let dir = dir(state);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io("cannot create", &dir, e))?;
    write_json_atomic(&path(state, &name), record)
}

/// Forgets a remote worker.
pub fn remove(state: &StateRoot, name: &str) -> Result<()> {
    let name = WorkerName::parse(name)?;
    let path = path(state, &name);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::io("cannot remove", path, e))
        }
        _ => Ok(()),
    }
}
