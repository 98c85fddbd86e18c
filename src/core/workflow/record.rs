//! A workflow run's record: what `<state>/workflows/<run-id>/run.json` holds and `--json`
//! prints. Plain data; the runner updates it, the store writes it, `--resume` reads it back.

use serde::{Deserialize, Serialize};

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    Running,
    Completed,
    Failed,
    Interrupted,
}

/// Where a step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StepStatus {
    /// Not started yet.
    Pending,
    Running,
    /// Its turn stopped and its outputs are kept.
    Done,
    Failed,
    /// Not run: something it needs failed, or the run stopped first.
    Skipped,
    /// Was running when the run stopped (another step failed, or SIGINT).
    Cancelled,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::Running => "running",
            StepStatus::Done => "done",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
            StepStatus::Cancelled => "cancelled",
        }
    }
}

/// One step's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepRecord {
    pub id: String,
    /// The worker's key in the file.
    pub worker: String,
    /// The worker's umbel name (`<run id>-<key>`).
    pub worker_name: String,
    pub provider: String,
    pub status: StepStatus,
    /// How its wait ended (`stop`, `timeout`, …), once it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// Why it failed or was skipped, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The exit code its failure maps to (an outcome's or an error's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<u8>,
    /// Milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<u64>,
    /// The names of its outputs (their values are files in the run folder).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<String>,
    /// Which run attempt (1, then +1 per `--resume`) last ran it.
    #[serde(default)]
    pub attempt: u32,
}

impl StepRecord {
    /// How long it ran, when it has started and ended.
    pub fn duration_ms(&self) -> Option<u64> {
        Some(self.ended_at?.saturating_sub(self.started_at?))
    }
}

/// The failed step that stopped a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    pub step: String,
    pub message: String,
}

/// A run's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The workflow file as given (a copy is kept as `workflow.yaml` beside the record).
    pub file: String,
    /// The workflow file's folder (absolute): relative and default `cwd`s, schemas and checks
    /// resolve against it, on `--resume` from the kept copy too. Absent in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    pub status: RunStatus,
    /// 1 for the first run, +1 per `--resume`.
    pub attempt: u32,
    pub started_at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<u64>,
    pub steps: Vec<StepRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<Failure>,
    /// The process running (or that last ran) this attempt: a `running` record whose runner is
    /// gone was killed without a chance to record it, and may be resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<Runner>,
    /// Once the run completed: what its final steps (those no other step needs) ended with, in
    /// the file's order. What `umbel run` prints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<FinalResult>,
}

/// What a final step ended with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FinalResult {
    pub step: String,
    /// Its turn's answer (under a `schema` guard, the accepted value as clean JSON).
    pub answer: String,
    /// The answer as a JSON value, when the step's guard has a `schema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    /// Its named outputs other than the answer (`diff`, `file:`), by name.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub outputs: std::collections::BTreeMap<String, String>,
}

/// A runner process: its pid and start time (clock ticks after boot, `/proc/PID/stat` field
/// 22), which tell it from a later process that got the same pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Runner {
    pub pid: u32,
    pub started: u64,
}

impl RunRecord {
    /// The step record of `id`.
    pub fn step_mut(&mut self, id: &str) -> Option<&mut StepRecord> {
        self.steps.iter_mut().find(|s| s.id == id)
    }

    pub fn step(&self, id: &str) -> Option<&StepRecord> {
        self.steps.iter().find(|s| s.id == id)
    }

    /// The exit code the CLI reports for this run.
    pub fn exit_code(&self) -> u8 {
        match self.status {
            RunStatus::Completed => 0,
            RunStatus::Interrupted => 130,
            RunStatus::Running => 1,
            RunStatus::Failed => self
                .failed
                .as_ref()
                .and_then(|f| self.step(&f.step))
                .and_then(|s| s.exit)
                .unwrap_or(1),
        }
    }
}

/// A worker's umbel name within a run.
pub fn worker_name(run_id: &str, key: &str) -> String {
    format!("{run_id}-{key}")
}

/// A run id from 64 random bits: `wf-` and six base-36 characters.
pub fn run_id(entropy: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut n = entropy;
    let mut out = String::from("wf-");
    for _ in 0..6 {
        out.push(DIGITS[(n % 36) as usize] as char);
        n /= 36;
    }
    out
}

/// Whether `text` looks like a run id (so `--resume` can refuse paths and typos early).
pub fn is_run_id(text: &str) -> bool {
    text.strip_prefix("wf-").is_some_and(|rest| {
        rest.len() == 6
            && rest
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_short_and_recognisable() {
        let id = run_id(u64::MAX);
        assert!(is_run_id(&id), "{id}");
        assert_eq!(run_id(0), "wf-000000");
        assert!(!is_run_id("wf-ABCDEF") && !is_run_id("../x") && !is_run_id("wf-1234567"));
        assert_eq!(worker_name("wf-abc123", "writer"), "wf-abc123-writer");
    }

    #[test]
    fn a_failed_run_exits_with_its_failed_steps_code() {
        let step = StepRecord {
            id: "s".into(),
            worker: "w".into(),
            worker_name: "wf-000000-w".into(),
            provider: "claude".into(),
            status: StepStatus::Failed,
            outcome: Some("timeout".into()),
            message: None,
            exit: Some(124),
            started_at: Some(5),
            ended_at: Some(12),
            outputs: vec![],
            attempt: 1,
        };
        assert_eq!(step.duration_ms(), Some(7));
        let mut run = RunRecord {
            run_id: "wf-000000".into(),
            name: None,
            file: "wf.yaml".into(),
            base: None,
            status: RunStatus::Failed,
            attempt: 1,
            started_at: 0,
            ended_at: None,
            steps: vec![step],
            failed: Some(Failure {
                step: "s".into(),
                message: "timed out".into(),
            }),
            runner: None,
            results: vec![],
        };
        assert_eq!(run.exit_code(), 124);
        run.status = RunStatus::Interrupted;
        assert_eq!(run.exit_code(), 130);
        run.status = RunStatus::Completed;
        assert_eq!(run.exit_code(), 0);
    }
}
