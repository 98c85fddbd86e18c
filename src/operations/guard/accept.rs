//! Running the `--accept` command once: argv without a shell (unless asked), in the directory the
//! guardrails were given in, the answer on stdin, the worker in its environment, bounded in time
//! (killed with everything it started), stopped at once when the caller is (Ctrl-C, SIGTERM, a
//! cancelled request). Its exit decides; whatever it left running in its process group is ended
//! then, and only the end of its output is held.

use crate::adapters::exec::{Program, RunError, Watch, run_program};
use crate::core::errors::{Error, Result};
use crate::operations::worker::{Answer, Worker};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The most bytes kept of each of the check's streams: what the report keeps of their
/// concatenation, and a few more for a character cut at the start.
pub(super) const KEPT_OUTPUT: usize = super::check::MAX_RECORDED_OUTPUT + 8;

/// The command, ready to run.
pub(super) struct Accept {
    pub argv: Vec<String>,
    pub shown: String,
    pub dir: PathBuf,
    pub timeout: Duration,
}

/// What one run of the `--accept` command said.
pub(super) struct Ran {
    pub passed: bool,
    pub exit_code: Option<i32>,
    /// `exit status 1`, `killed by signal 9`.
    pub status: String,
    /// stdout, then stderr (each stream's end, [`KEPT_OUTPUT`] bytes at most).
    pub output: String,
    /// Bytes of output dropped before those kept.
    pub dropped: u64,
}

impl Accept {
    pub(super) fn run(
        &self,
        worker: &Worker,
        answer: &Answer,
        attempt: u32,
        stdin: &[u8],
        cancel: &AtomicBool,
    ) -> Result<Ran> {
        let vars = [
            ("UMBEL_WORKER", worker.name.to_string()),
            ("UMBEL_PROVIDER", worker.meta.provider.as_str().to_string()),
            ("UMBEL_CWD", worker.meta.cwd.to_string_lossy().into_owned()),
            ("UMBEL_ATTEMPT", attempt.to_string()),
            ("UMBEL_SESSION_ID", answer.session_id.clone()),
            (
                "UMBEL_TRANSCRIPT",
                answer.transcript_path.clone().unwrap_or_default(),
            ),
        ];
        let program = Program {
            argv: self.argv.clone(),
            dir: Some(self.dir.clone()),
            env: vars.map(|(k, v)| (k.to_string(), v)).to_vec(),
            clear_env: false,
        };
        let failed = |detail: String| Error::CheckFailed {
            command: self.shown.clone(),
            detail,
        };
        let watch = Watch {
            keep: Some(KEPT_OUTPUT),
            cancel: Some(cancel),
            end_group: true,
        };
        let done = run_program(&program, Some(stdin), self.timeout, watch).map_err(|e| match e {
            RunError::Spawn(e) => failed(format!("could not start: {e}")),
            RunError::Interrupted => Error::Interrupted,
            RunError::TimedOut => failed(format!(
                "did not finish within {} and was stopped (raise --check-timeout if it needs longer)",
                humantime::format_duration(self.timeout)
            )),
        })?;
        let mut output = String::from_utf8_lossy(&done.stdout).into_owned();
        output.push_str(&String::from_utf8_lossy(&done.stderr));
        let status = done.ended();
        Ok(Ran {
            passed: done.status.success(),
            exit_code: done.status.code(),
            status,
            output,
            dropped: done.dropped,
        })
    }
}
