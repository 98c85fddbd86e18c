//! Workflow run folders: `<state>/workflows/<run-id>/` holds `run.json` (the record),
//! `workflow.yaml` (the file as it ran), `runner.lock` (held by the process running it) and
//! `steps/<id>/` with the rendered `prompt`, the `answer` and `outputs/<key>`. The run id is claimed with one `mkdir`, so two runs never share
//! a folder.

use super::atomic::{write_atomic, write_json_durable};
use super::state::open_lock_file;
use crate::core::errors::{Error, Result};
use crate::core::workflow::record::{RunRecord, is_run_id};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// One run's folder.
#[derive(Debug, Clone)]
pub struct RunStore {
    dir: PathBuf,
}

/// What holds a run's lock: the open lock file.
pub type RunLock = fs::File;

impl RunStore {
    /// Claims `<state>/workflows/<run_id>/`; `Ok(None)` when the id is taken.
    pub fn create(state_root: &Path, run_id: &str) -> Result<Option<Self>> {
        use std::os::unix::fs::DirBuilderExt;
        let parent = state_root.join("workflows");
        let private = || {
            let mut builder = fs::DirBuilder::new();
            builder.mode(0o700);
            builder
        };
        private()
            .recursive(true)
            .create(&parent)
            .map_err(|e| Error::io("cannot create", &parent, e))?;
        let dir = parent.join(run_id);
        match private().create(&dir) {
            Ok(()) => Ok(Some(RunStore { dir })),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(None),
            Err(e) => Err(Error::io("cannot create", &dir, e)),
        }
    }

    /// An existing run's folder.
    pub fn open(state_root: &Path, run_id: &str) -> Result<Self> {
        if !is_run_id(run_id) {
            return Err(Error::usage(format!(
                "`--resume {run_id}`: a run id looks like `wf-k3x9aa` (see `ls {}`)",
                state_root.join("workflows").display()
            )));
        }
        let dir = state_root.join("workflows").join(run_id);
        if !dir.join("run.json").is_file() {
            return Err(Error::usage(format!(
                "`--resume {run_id}`: no such run under {}",
                state_root.join("workflows").display()
            )));
        }
        Ok(RunStore { dir })
    }

    /// Takes the run's lock (`runner.lock`), held for as long as the returned file is open:
    /// `Ok(None)` when another process holds it (a runner, or another `--resume`). The kernel
    /// releases it when its holder dies, however it dies.
    pub fn lock(&self) -> Result<Option<RunLock>> {
        let path = self.dir.join("runner.lock");
        let file = open_lock_file(&path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(e)) => Err(Error::io("cannot lock", &path, e)),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The copy of the workflow file this run was started from.
    pub fn workflow_copy(&self) -> PathBuf {
        self.dir.join("workflow.yaml")
    }

    /// Keeps the workflow text as it ran.
    pub fn save_workflow(&self, text: &str) -> Result<()> {
        write_atomic(&self.workflow_copy(), text.as_bytes(), 0o600)
    }

    pub fn write_record(&self, record: &RunRecord) -> Result<()> {
        write_json_durable(&self.dir.join("run.json"), record)
    }

    pub fn read_record(&self) -> Result<RunRecord> {
        let path = self.dir.join("run.json");
        let text = fs::read(&path).map_err(|e| Error::io("cannot read", &path, e))?;
        serde_json::from_slice(&text).map_err(|e| Error::Corrupt {
            path,
            message: e.to_string(),
        })
    }

    fn step_dir(&self, step: &str) -> PathBuf {
        self.dir.join("steps").join(step)
    }

    /// Writes one of a step's files: `prompt`, `answer`, or `outputs/<key>`.
    pub fn write_step_file(&self, step: &str, file: &str, text: &str) -> Result<PathBuf> {
        let path = self.step_dir(step).join(file);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::io("cannot create", parent, e))?;
        }
        write_atomic(&path, text.as_bytes(), 0o600)?;
        Ok(path)
    }

    /// Reads back one of a step's files (for `--resume`).
    pub fn read_step_file(&self, step: &str, file: &str) -> Result<String> {
        let path = self.step_dir(step).join(file);
        fs::read_to_string(&path).map_err(|e| Error::io("cannot read", &path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::workflow::record::RunStatus;

    fn record() -> RunRecord {
        RunRecord {
            run_id: "wf-abc123".into(),
            name: None,
            file: "wf.yaml".into(),
            base: None,
            status: RunStatus::Running,
            attempt: 1,
            started_at: 1,
            ended_at: None,
            steps: vec![],
            failed: None,
            runner: None,
            results: vec![],
        }
    }

    #[test]
    fn a_run_id_is_claimed_once_and_round_trips() {
        let root = tempfile::tempdir().unwrap();
        let store = RunStore::create(root.path(), "wf-abc123").unwrap().unwrap();
        // Private whatever the umask (issue 45 item 4): a run's prompts and outputs are in it.
        for dir in [root.path().join("workflows"), store.dir().to_path_buf()] {
            let mode =
                std::os::unix::fs::PermissionsExt::mode(&fs::metadata(&dir).unwrap().permissions());
            assert_eq!(mode & 0o777, 0o700, "{}", dir.display());
        }
        assert!(
            RunStore::create(root.path(), "wf-abc123")
                .unwrap()
                .is_none()
        );
        store.write_record(&record()).unwrap();
        store
            .write_step_file("s1", "outputs/text", "hello")
            .unwrap();
        let again = RunStore::open(root.path(), "wf-abc123").unwrap();
        assert_eq!(again.read_record().unwrap(), record());
        assert_eq!(again.read_step_file("s1", "outputs/text").unwrap(), "hello");
    }

    #[test]
    fn resume_refuses_unknown_and_malformed_ids() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(
            RunStore::open(root.path(), "../etc")
                .unwrap_err()
                .exit_code(),
            2
        );
        assert_eq!(
            RunStore::open(root.path(), "wf-zzzzzz")
                .unwrap_err()
                .exit_code(),
            2
        );
    }
}
