//! Faults in umbel's own state: a `prune` racing spawns, a lost hook payload, a workflow run
//! resumed from its copy, a runner killed by a signal.

use crate::harness::*;
use crate::workflow::{alive, no_orphans, run, run_id_of, run_record};
use rustix::process::Signal;
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
                let _ = sb.umbel(["prune"]).run();
                rounds += 1;
            }
            rounds
        })
    };
    let names: Vec<String> = (1..=6).map(|n| format!("p{n}")).collect();
    let spawns: Vec<_> = names
        .iter()
        .map(|name| sb.umbel(["spawn", "--name", name]).start())
        .collect();
    // `-p` spawns an anonymous worker of its own: the same window.
    let prints: Vec<_> = (1..=3)
        .map(|n| sb.umbel(["-p", &format!("q{n}")]).start())
        .collect();
    let outputs: Vec<_> = spawns.into_iter().map(|c| c.run()).collect();
    let printed: Vec<_> = prints.into_iter().map(|c| c.run()).collect();
    stop.store(true, Ordering::Relaxed);
    let rounds = pruner.join().expect("pruner");
    assert!(rounds > 0, "prune never ran");
    outputs.iter().for_each(Ran::assert_success);
    for (n, out) in (1..).zip(&printed) {
        out.assert_success();
        assert_eq!(out.stdout(), format!("Response to: q{n}\n"));
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
    let is_end = |l: &String| {
        l.contains(" Stop ") || l.contains(" AfterAgent ") || l.contains(" SessionIdle ")
    };
    let ends: Vec<usize> = (0..lines.len()).filter(|&i| is_end(&lines[i])).collect();
    assert!(ends.len() >= 2, "two finished turns in {log}");
    for line in &mut lines[ends[ends.len() - 2] + 1..] {
        let parts: Vec<&str> = line.split(' ').collect();
        if parts.len() == 3 && parts[2] != "-" {
            std::fs::remove_file(events.join(parts[2])).expect("remove payload");
        }
        *line = format!("{} {} -", parts[0], parts[1]);
    }
    sb.write(events.join("log"), lines.join("\n") + "\n");
}

fn read_answers_the_last_turn_when_its_hook_payload_is_lost(provider: &str) {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "w",
        sim::replies(&["First answer.", "Second answer."]),
        &["--provider", provider, "--unattended"],
    );
    for prompt in ["one", "two"] {
        sb.turn("w", prompt).args(["--timeout", "30s"]).success();
    }
    lose_last_turn_payloads(&sb, "w");
    let answer = sb.umbel(["read", "w", "--json"]).success().json();
    assert_eq!(answer["text"], "Second answer.", "{answer}");
    assert_eq!(answer["source"], "transcript", "{answer}");
}

/// With the last turn's payload lost and that turn not in the transcript yet, `read` says so
/// instead of answering with the turn before.
#[test]
fn read_never_answers_with_an_older_turn_when_the_last_payload_is_lost() {
    let sb = Sandbox::new();
    crate::inspect::two_turns_with_a_late_transcript(&sb, 8000);
    lose_last_turn_payloads(&sb, "lag");
    let out = sb.umbel(["read", "lag"]).stderr_has("payload").status(1);
    assert_ne!(out.stdout(), "One.\n", "answered with the turn before");
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
    let wedge = sb.scenario_file("wedge", sim::wedge());
    let file = flows.join("wf.yaml");
    sb.write(
        &file,
        format!(
            "workers:\n  a: {{env: {{UMBEL_SIM_SCENARIO: \"{wedge}\"}}}}\n  b: {{cwd: work}}\n\
             steps:\n  - {{id: one, worker: a, prompt: hi, wait: {{timeout: 2s}}}}\n  \
             - {{id: two, worker: b, needs: [one], prompt: hi}}\n"
        ),
    );
    let run_id = run_id_of(&run(&sb, &[file.to_str().unwrap()]).status(124));
    sb.write(
        sb.root.join("wedge.json"),
        sim::reply("unstuck").to_string(),
    );
    run(&sb, &["--resume", &run_id]).success();
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

/// A two-worker workflow: `a` answers at once, then `b` takes 30 s (long enough to signal its
/// runner mid-step). Returns the file.
fn slow_second_step(sb: &Sandbox) -> std::path::PathBuf {
    let slow = sb.scenario_file(
        "slow",
        json!({ "default": { "reply": "late", "delay_ms": 30000 } }),
    );
    let file = sb.project.join("wf.yaml");
    sb.write(
        &file,
        format!(
            "workers:\n  a: {{}}\n  b: {{env: {{UMBEL_SIM_SCENARIO: \"{slow}\"}}}}\n\
             steps:\n  - {{id: one, worker: a, prompt: hi}}\n  \
             - {{id: two, worker: b, needs: [one], prompt: take your time}}\n"
        ),
    );
    file
}

/// Starts `umbel run FILE` as a child and returns it with its run id once step `two` was sent.
fn run_until_second_step<'a>(sb: &'a Sandbox, file: &std::path::Path) -> (Running<'a>, String) {
    let child = run(sb, &[file.to_str().unwrap()]).start();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let started = loop {
        let run = std::fs::read_dir(sb.state.join("workflows"))
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .map(|e| e.path());
        if let Some(run) = run.filter(|r| r.join("steps/two/prompt").exists()) {
            break Some(run);
        }
        if std::time::Instant::now() >= deadline {
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let Some(run) = started else {
        child.kill();
        panic!("step two never started");
    };
    // The prompt is written just before it is sent; let the send land.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    (child, id)
}

/// A runner killed outright (SIGKILL, the OOM killer) leaves a record that says `running`; a
/// resume sees its runner is gone, kills the workers it left and runs the rest.
#[test]
fn a_run_whose_runner_was_sigkilled_can_be_resumed_and_leaks_no_worker() {
    let sb = Sandbox::new();
    let file = slow_second_step(&sb);
    let (child, run_id) = run_until_second_step(&sb, &file);
    assert_eq!(alive(&sb).len(), 2, "the run's workers are running");
    child.kill();
    assert_eq!(run_record(&sb, &run_id)["status"], "running");
    sb.write(sb.root.join("slow.json"), sim::reply("quick").to_string());
    run(&sb, &["--resume", &run_id]).success();
    let record = run_record(&sb, &run_id);
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(record["attempt"], 2);
    // Worker `a` had no step left to rerun: only the resume's cleanup could stop it.
    assert_eq!(alive(&sb), Vec::<String>::new());
    no_orphans(&sb);
}

/// A runner still alive keeps its run: `--resume` refuses it while it runs.
#[test]
fn a_run_whose_runner_is_alive_is_not_resumed() {
    let sb = Sandbox::new();
    let file = slow_second_step(&sb);
    let (child, run_id) = run_until_second_step(&sb, &file);
    let out = run(&sb, &["--resume", &run_id])
        .stderr_has("still running")
        .run();
    child.kill();
    assert_eq!(out.code(), Some(2), "{}", out.stderr());
}

/// SIGTERM (a service stop, `timeout`, CI cancelling) and SIGHUP (a closed terminal) end a run
/// as Ctrl-C does: its workers killed, the run recorded as interrupted, resumable.
#[test]
fn sigterm_and_sighup_interrupt_the_run_and_stop_its_workers() {
    for signal in [Signal::TERM, Signal::HUP] {
        let sb = Sandbox::new();
        let file = slow_second_step(&sb);
        let (child, run_id) = run_until_second_step(&sb, &file);
        child.signal(signal);
        let out = child.run();
        assert_eq!(out.code(), Some(130), "{signal:?}: {}", out.stderr());
        let record = run_record(&sb, &run_id);
        let status = &record["status"];
        assert_eq!(status, "interrupted", "{signal:?}: {record:#}");
        assert_eq!(alive(&sb), Vec::<String>::new(), "{signal:?}");
        no_orphans(&sb);
    }
}

/// A failed spawn removes its folder: a `prune` (or `kill --all`) that listed that worker a
/// moment before finds it gone, and must go on with the others, not fail the whole sweep with
/// "no worker named …" (the soak saw it). Fleet verbs skip a worker that vanished under them.
#[test]
fn prune_in_a_loop_goes_on_past_workers_whose_failed_spawn_removed_them() {
    fleet_verb_in_a_loop_past_failed_spawns(&["prune"]);
}

#[test]
fn kill_all_in_a_loop_goes_on_past_workers_whose_failed_spawn_removed_them() {
    fleet_verb_in_a_loop_past_failed_spawns(&["kill", "--all"]);
}

/// Runs `verb` in a loop while 80 spawns fail (a "claude" that exits after a moment), with 12
/// live workers listed first so each run spends a while between its listing and the failing
/// spawns' turn; every run of `verb` must succeed.
fn fleet_verb_in_a_loop_past_failed_spawns(verb: &'static [&'static str]) {
    let mut sb = Sandbox::new();
    for n in 0..12 {
        sb.spawn(&format!("a{n}"), &[]);
    }
    let bin = sb.write_executable(sb.root.join("short-lived"), "#!/bin/sh\nsleep 0.1\n");
    sb.var("UMBEL_CLAUDE_BIN", bin.to_str().expect("utf-8 path"));
    let sb = Arc::new(sb);
    let stop = Arc::new(AtomicBool::new(false));
    let looper = {
        let (sb, stop) = (sb.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut failures = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let out = sb.umbel(verb).run();
                if !out.status.success() {
                    failures.push(out.stderr());
                }
            }
            failures
        })
    };
    std::thread::scope(|s| {
        for t in 0..4 {
            let sb = &sb;
            s.spawn(move || {
                for n in 0..20 {
                    let out = sb.umbel(["spawn", "--name", &format!("f{t}-{n}")]).run();
                    assert!(
                        !out.status.success(),
                        "a CLI that exits at once cannot start"
                    );
                }
            });
        }
    });
    stop.store(true, Ordering::Relaxed);
    let failures = looper.join().expect("looper");
    assert!(
        failures.is_empty(),
        "{} failed: {failures:?}",
        verb.join(" ")
    );
}

/// A spawn that ends while a `prune` walks the fleet made its session after that prune listed
/// the panes: the worker is judged on its pane as it is now, not on the older list, or prune
/// kills a live worker. Plays the spawn with its lock (held by the test) and its session (made
/// through umbel's tmux adapter) while the prune stands paused right after its listing.
#[test]
fn prune_judges_a_worker_whose_spawn_ended_during_it_on_its_pane_now() {
    let sb = Sandbox::new();
    sb.spawn("model", &[]);
    sb.spawn("tomb", &[]);
    sb.umbel(["kill", "tomb"]).success();
    // Worker `z`, mid-spawn: meta.json written, its spawn lock held, no session yet.
    let meta = std::fs::read_to_string(sb.session_dir("model").join("meta.json")).expect("meta");
    let mut meta: serde_json::Value = serde_json::from_str(&meta).expect("meta json");
    meta["name"] = json!("z");
    meta["tmuxSession"] = json!("umbel-z");
    let dir = sb.session_dir("z");
    std::fs::create_dir_all(dir.join("events")).expect("mkdir");
    let lock = std::fs::File::create(dir.join("spawn.lock")).expect("lock file");
    lock.lock().expect("lock");
    sb.write(dir.join("meta.json"), meta.to_string());
    let pause = Pause::new(&sb, "prune-listed");
    let prune = pause.on(sb.umbel(["prune", "--json"])).start();
    pause.reached();
    // The prune has listed the panes (z had none): the spawn ends now.
    sandbox_tmux(&sb)
        .new_session(
            "umbel-z",
            &sb.project,
            "umbel-env-z",
            b"",
            &["sleep".to_string(), "60".to_string()],
        )
        .expect("z's session");
    drop(lock);
    pause.release();
    let pruned = prune.run().json();
    assert_eq!(pruned["removed"], json!(["tomb"]), "{pruned}");
    assert!(
        sb.session_dir("z").join("meta.json").exists(),
        "prune took live z: {pruned}"
    );
}

/// A spawn killed between its `mkdir` and its meta.json leaves a folder nothing lists, which
/// holds the name; once it has been quiet for a minute `prune` removes it and the name is free
/// (issue 45 item 13). A younger one may be a spawn about to take its lock: kept.
#[test]
fn prune_sweeps_the_folder_of_an_interrupted_spawn() {
    let sb = Sandbox::new();
    let left = sb.state.join("sessions/ghost");
    std::fs::create_dir_all(left.join("events")).expect("mkdir");
    sb.umbel(["prune"]).success();
    assert!(left.exists(), "a young folder may be a spawn in progress");
    let old = std::process::Command::new("touch")
        .args(["-d", "2 minutes ago"])
        .arg(&left)
        .status();
    assert!(old.is_ok_and(|s| s.success()), "touch");
    let pruned = sb.umbel(["prune", "--json"]).success().json();
    assert_eq!(pruned["removed"], serde_json::json!(["ghost"]), "{pruned}");
    assert!(!left.exists());
    sb.spawn("ghost", &[]);
}

/// A state root other users can write is refused by every verb (its hook scripts run inside
/// every CLI), with the remedy; `doctor` still reports it (issue 45 item 4).
#[test]
fn a_state_root_others_can_write_is_refused() {
    let sb = Sandbox::new();
    sb.umbel(["ls"]).success();
    let open = std::process::Command::new("chmod")
        .arg("0777")
        .arg(&sb.state)
        .status();
    assert!(open.is_ok_and(|s| s.success()), "chmod");
    let err = sb.umbel(["ls"]).status(2).stderr();
    assert!(
        err.contains("can be written by other users (mode 777)"),
        "{err}"
    );
    assert!(err.contains("chmod 700"), "{err}");
    sb.cmd("spawn --name s1").status(2);
    assert!(sb.worker_dirs().is_empty());
    let doctor = sb.umbel(["doctor"]).status(1).stdout();
    assert!(doctor.contains("fail  state-root"), "{doctor}");
}

/// run.json cannot be written after a step ended (a full disk; here a folder in its place):
/// the run stops there, failed and saying so, instead of running the next steps on progress
/// nothing records — a `--resume` would run them again, side effects and all.
#[test]
fn a_run_whose_record_cannot_be_written_stops_and_says_so() {
    let sb = Sandbox::new();
    let file = sb.project.join("wf.yaml");
    sb.write(
        &file,
        "workers:\n  a: {}\nsteps:\n  - {id: one, worker: a, prompt: hi}\n  \
         - {id: two, worker: a, needs: [one], prompt: again}\n",
    );
    let pause = Pause::new(&sb, "run-step-ended");
    let child = pause.on(run(&sb, &[file.to_str().unwrap()])).start();
    pause.reached();
    let runs = sb.state.join("workflows");
    let dir = std::fs::read_dir(&runs)
        .expect("runs")
        .next()
        .expect("a run")
        .expect("entry");
    let record = dir.path().join("run.json");
    std::fs::remove_file(&record).expect("rm run.json");
    std::fs::create_dir_all(record.join("in-the-way")).expect("a folder in its place");
    pause.release();
    let out = child.status(1);
    assert!(out.stderr().contains("run.json"), "{}", out.stderr());
    assert!(
        !dir.path().join("steps/two/prompt").exists(),
        "step two ran on an unrecorded step one"
    );
    no_orphans(&sb);
}

/// A launch.json that is not JSON is said to be that, not taken for a worker spawned before
/// umbel recorded launches; a `-p --name` of a worker whose meta.json is corrupt says so too,
/// rather than trying to spawn the name anew and failing `exists`.
#[test]
fn a_corrupt_record_is_called_corrupt_not_missing() {
    let sb = Sandbox::new();
    sb.spawn("lc", &[]);
    sb.umbel(["park", "lc"]).success();
    sb.write(sb.session_dir("lc").join("launch.json"), "{ half");
    let out = sb.umbel(["resume", "lc", "--json"]).status(1);
    let error = &out.json()["error"];
    assert_eq!(error["code"], "corrupt_state", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .contains("launch.json"),
        "{error}"
    );

    sb.spawn("mc", &[]);
    sb.write(sb.session_dir("mc").join("meta.json"), "{ half");
    let out = sb
        .umbel(["-p", "hi", "--name", "mc", "--output-format", "json"])
        .status(1);
    assert!(
        out.stderr().contains("meta.json") || out.stdout().contains("meta.json"),
        "{}{}",
        out.stdout(),
        out.stderr()
    );
    assert!(!out.stderr().contains("exists"), "{}", out.stderr());
}
