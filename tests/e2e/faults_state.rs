//! Faults in umbel's own state: a `prune` racing spawns, a lost hook payload, a workflow run
//! resumed from its copy, a runner killed by a signal.

use crate::harness::*;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// `prune` from another terminal (or cron) never takes a worker whose spawn is still going:
/// its meta.json exists before its tmux session does.
#[test]
fn prune_in_a_loop_leaves_spawning_workers_alone() {
    let sb = Arc::new(Sandbox::new());
    let stop = Arc::new(AtomicBool::new(false));
    let pruner = {
        let (sb, stop) = (sb.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut rounds = 0;
            while !stop.load(Ordering::Relaxed) {
                let _ = sb.process(&["prune"]).output();
                rounds += 1;
            }
            rounds
        })
    };
    let names: Vec<String> = (1..=6).map(|n| format!("p{n}")).collect();
    let spawns: Vec<_> = names
        .iter()
        .map(|name| {
            sb.process(&["spawn", "--name", name])
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outputs: Vec<_> = spawns
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait spawn"))
        .collect();
    stop.store(true, Ordering::Relaxed);
    let rounds = pruner.join().expect("pruner");
    assert!(rounds > 0, "prune never ran");
    for (name, out) in names.iter().zip(&outputs) {
        assert_success(out, &format!("spawn {name} while prune ran"));
    }
    let ready = sb.ls().iter().filter(|w| w["state"] == "ready").count();
    assert_eq!(ready, names.len(), "{:?}", sb.ls());
}

crate::each_provider!(read_answers_the_last_turn_when_its_hook_payload_is_lost);

/// Loses every hook payload of worker `name`'s last turn, as a full disk does: each of its log
/// lines reads `<ns> <EVENT> -` (what event.sh logs when it could not save the payload) and the
/// payload files are gone.
fn lose_last_turn_payloads(sb: &Sandbox, name: &str) {
    let events = sb.session_dir(name).join("events");
    let log = std::fs::read_to_string(events.join("log")).expect("read log");
    let mut lines: Vec<String> = log.lines().map(str::to_string).collect();
    let is_end = |l: &String| l.contains(" Stop ") || l.contains(" AfterAgent ");
    let ends: Vec<usize> = (0..lines.len()).filter(|&i| is_end(&lines[i])).collect();
    assert!(ends.len() >= 2, "two finished turns in {log}");
    for line in &mut lines[ends[ends.len() - 2] + 1..] {
        let parts: Vec<&str> = line.split(' ').collect();
        if parts.len() == 3 && parts[2] != "-" {
            std::fs::remove_file(events.join(parts[2])).expect("remove payload");
        }
        *line = format!("{} {} -", parts[0], parts[1]);
    }
    std::fs::write(events.join("log"), lines.join("\n") + "\n").expect("write log");
}

fn read_answers_the_last_turn_when_its_hook_payload_is_lost(provider: &str) {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "s",
        json!({ "turns": [{ "reply": "First answer." }, { "reply": "Second answer." }] }),
    );
    sb.spawn(
        "w",
        &["--provider", provider, "--unattended", "--env", &scenario],
    );
    for prompt in ["one", "two"] {
        assert_success(&sb.run(&["send", "w", prompt]), "send");
        assert_success(&sb.run(&["wait", "w", "--timeout", "30s"]), "wait");
    }
    lose_last_turn_payloads(&sb, "w");
    let out = sb.run(&["read", "w", "--json"]);
    assert_success(&out, "read");
    let answer = json_of(&out);
    assert_eq!(answer["text"], "Second answer.", "{answer}");
    assert_eq!(answer["source"], "transcript", "{answer}");
}

/// With the last turn's payload lost and that turn not in the transcript yet, `read` says so
/// instead of answering with the turn before.
#[test]
fn read_never_answers_with_an_older_turn_when_the_last_payload_is_lost() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "s",
        json!({ "turns": [{ "reply": "One." }, { "reply": "Two.", "late_transcript_ms": 8000 }] }),
    );
    sb.spawn("lag", &["--env", &scenario]);
    for prompt in ["first", "second"] {
        let since = stdout(&sb.run(&["send", "lag", prompt])).trim().to_string();
        assert_success(&sb.run(&["wait", "lag", "--since", &since]), "wait");
    }
    lose_last_turn_payloads(&sb, "lag");
    let out = sb.run(&["read", "lag"]);
    assert_ne!(stdout(&out), "One.\n", "answered with the turn before");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("payload"), "{}", stderr(&out));
}

/// `umbel run ARGS` in the sandbox, progress as plain lines.
fn run_workflow(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    let mut cmd = sb.umbel();
    cmd.env("UMBEL_PROGRESS", "plain").arg("run").args(args);
    cmd.output().expect("run umbel run")
}

/// The cwd a worker was started in, from its meta.json (kept after the run tore it down).
fn worker_cwd(sb: &Sandbox, name: &str) -> String {
    let meta = std::fs::read(sb.session_dir(name).join("meta.json")).expect("meta.json");
    let meta: serde_json::Value = serde_json::from_slice(&meta).expect("meta is JSON");
    meta["cwd"].as_str().expect("cwd").to_string()
}

/// A resumed run's workers start where the workflow file is (a relative `cwd` resolves against
/// its folder), not in the run's copy of it under the state folder.
#[test]
fn a_resumed_run_resolves_cwds_against_the_original_workflow_folder() {
    let sb = Sandbox::new();
    let flows = sb.project.join("flows");
    std::fs::create_dir_all(flows.join("work")).expect("mkdir");
    let wedge = sb.scenario("wedge", json!({ "default": { "end": "wedge" } }));
    let wedge = wedge.trim_start_matches("UMBEL_SIM_SCENARIO=");
    let file = flows.join("wf.yaml");
    std::fs::write(
        &file,
        format!(
            "workers:\n  a: {{env: {{UMBEL_SIM_SCENARIO: \"{wedge}\"}}}}\n  b: {{cwd: work}}\n\
             steps:\n  - {{id: one, worker: a, prompt: hi, wait: {{timeout: 2s}}}}\n  \
             - {{id: two, worker: b, needs: [one], prompt: hi}}\n"
        ),
    )
    .expect("write workflow");
    let out = run_workflow(&sb, &[file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(124), "{}", stderr(&out));
    let run_id = stdout(&out).trim().to_string();
    std::fs::write(
        sb.root.join("wedge.json"),
        json!({ "default": { "reply": "unstuck" } }).to_string(),
    )
    .expect("fix the scenario");
    let out = run_workflow(&sb, &["--resume", &run_id]);
    assert_success(&out, "resume");
    assert_eq!(
        worker_cwd(&sb, &format!("{run_id}-a")),
        flows.display().to_string(),
        "a default cwd is the workflow's folder"
    );
    assert_eq!(
        worker_cwd(&sb, &format!("{run_id}-b")),
        flows.join("work").display().to_string(),
        "a relative cwd resolves against the workflow's folder"
    );
}
