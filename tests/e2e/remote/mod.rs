//! The remote tier (`just test-remote`): workers on simulated hosts reached through OpenSSH's
//! real `sshd` on 127.0.0.1, driven by the real `umbel` on both sides. Skipped with a notice
//! where sshd is missing (`.ci/run` installs it).

mod clash;
mod conversation;
mod doctor;
mod guards;
mod hosts;
mod outputs;
mod real;
mod scenarios;
mod top;
mod workflow;
mod worktree;

use serde_json::Value;

/// stdout parsed as JSON.
pub fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Runs workflow `yaml` (written to the local project as `wf.yaml`) with `run --json`: how it
/// ran, and its run record.
pub fn run_workflow(local: &crate::harness::Sandbox, yaml: &str) -> (crate::harness::Ran, Value) {
    let path = local.project.join("wf.yaml");
    std::fs::write(&path, yaml).expect("write wf.yaml");
    let out = local
        .umbel(["run", "--json", path.to_str().expect("UTF-8 path")])
        .env("UMBEL_PROGRESS", "plain")
        .run();
    let record = json_of(&out);
    (out, record)
}

/// A file the run kept of a step (`prompt`, `answer`, `outputs/KEY`).
pub fn step_file(
    local: &crate::harness::Sandbox,
    record: &Value,
    step: &str,
    file: &str,
) -> String {
    let run_id = record["runId"].as_str().expect("runId");
    let dir = local.state.join("workflows").join(run_id).join("steps");
    std::fs::read_to_string(dir.join(step).join(file)).expect("step file")
}
