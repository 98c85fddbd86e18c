//! A workflow step's `file:` output when its worker runs on a host: the host's umbel reads
//! the file, inside the worker's folder there; a path that leads out of it is refused (by
//! `run`'s checks when it says so, else by the host), not read here. (The simulated hosts
//! share this machine's files, so only the refusal tells where the file was read.)

use super::hosts::Net;
use super::{run_workflow, step_file};
use crate::harness::*;
use serde_json::Value;

/// Runs a one-step workflow on h1 whose step keeps `file:{path}` as output `kept`.
fn run_with_output(net: &Net, path: &str) -> (Ran, Value) {
    let h1 = &net.host("h1").sandbox;
    let scenario = h1.scenario_file("writer", sim::reply("written"));
    let yaml = format!(
        "workers:\n  writer: {{provider: claude, host: h1, cwd: {project}, \
         env: {{UMBEL_SIM_SCENARIO: \"{scenario}\"}}}}\nsteps:\n  - id: write\n    \
         worker: writer\n    prompt: Write\n    outputs: {{kept: \"file:{path}\"}}\n",
        project = h1.project.display(),
    );
    run_workflow(&net.local, &yaml)
}

#[test]
fn a_remote_workers_file_output_is_read_by_its_host_inside_its_folder() {
    let Some(net) = Net::up(1) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    std::fs::create_dir_all(h1.project.join("out")).unwrap();
    std::fs::write(h1.project.join("out/notes.txt"), "NOTES FROM H1\n").unwrap();
    let (out, record) = run_with_output(&net, "out/notes.txt");
    assert_success(&out, "run");
    let kept = step_file(&net.local, &record, "write", "outputs/kept");
    assert_eq!(kept, "NOTES FROM H1\n");

    // Out of the worker's folder: a symbolic link is refused by the host, and the step fails
    // saying why; a path with `..` already by `run`'s checks, at its line.
    std::fs::write(h1.project.join("../outside.txt"), "NOT YOURS").unwrap();
    std::os::unix::fs::symlink("../outside.txt", h1.project.join("link.txt")).unwrap();
    let (out, record) = run_with_output(&net, "link.txt");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(record["status"], "failed", "{record:#}");
    let said = record.to_string();
    assert!(
        said.contains("output `kept`") && said.contains("leads outside worker"),
        "{record:#}"
    );
    assert!(!said.contains("NOT YOURS"), "{record:#}");
    let (out, _) = run_with_output(&net, "../outside.txt");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("wf.yaml:7:21: output `kept: file:../outside.txt`"),
        "{}",
        stderr(&out)
    );
}
