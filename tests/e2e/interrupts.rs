//! Signals and leftovers around a turn's delivery: `-p` and `spawn` ended by SIGTERM or SIGHUP
//! remove what they started; a `send` interrupted after its paste still reports the position
//! (the prompt was delivered). (Text left on the input line: `tiers.rs`, on the real CLIs too.)

use crate::harness::*;
use rustix::process::Signal;
use serde_json::json;
use std::time::{Duration, Instant};

/// Polls `ready` every 20 ms for up to 30 s.
fn until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn submits(sb: &Sandbox, name: &str) -> usize {
    std::fs::read_to_string(sb.session_dir(name).join("events/log"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(" UserPromptSubmit "))
        .count()
}

#[test]
fn print_mode_ended_by_sigterm_or_sighup_leaves_no_worker_and_no_process() {
    for sig in [Signal::TERM, Signal::HUP] {
        let sb = Sandbox::new();
        let slow = sb.scenario("slow", json!({ "default": { "delay_ms": 20000 } }));
        let child = sb.umbel(["-p", "Say hello", "--env", &slow]).start();
        // The turn is running once the prompt was submitted.
        until("the prompt to be submitted", || {
            sb.worker_dirs().iter().any(|w| submits(&sb, w) > 0)
        });
        child.signal(sig);
        child.status(130);
        assert!(
            sb.worker_dirs().is_empty(),
            "{sig:?}: the worker is removed"
        );
        until("the worker's processes to end", || {
            processes_under(&sb.root).is_empty()
        });
    }
}

#[test]
fn spawn_ended_by_sigterm_during_startup_leaves_no_worker() {
    let sb = Sandbox::new();
    let slow = sb.scenario("slow", json!({ "startup": { "delay_ms": 20000 } }));
    let child = sb.umbel(["spawn", "--name", "s1", "--env", &slow]).start();
    until("the worker's folder", || !sb.worker_dirs().is_empty());
    std::thread::sleep(Duration::from_millis(300));
    child.signal(Signal::TERM);
    child.status(130);
    assert!(
        sb.worker_dirs().is_empty(),
        "the half-spawned worker is gone"
    );
    // The name is free again.
    sb.spawn("s1", &[]);
}
