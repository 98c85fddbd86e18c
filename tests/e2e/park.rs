//! Park and resume on the fakes beyond the tiers' scenarios: concurrent senders to a parked
//! worker, refusals (docs/park.md).

use crate::harness::*;
use serde_json::json;

/// Five `send --queue`s at once to a parked worker: one resume (one `Resumed` line), five turns
/// in the order their tickets were taken, nothing lost.
#[test]
fn five_concurrent_sends_to_a_parked_worker_resume_it_once_and_are_five_turns() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "c",
        json!({ "default": { "reply": "done", "delay_ms": 200 } }),
    );
    sb.spawn("c", &["--provider", "claude", "--env", &scenario]);
    sb.turn_outcome("c", "warm up", 0);
    sb.umbel(["park", "c"]).stdout("parked c\n").success();
    let sends: Vec<_> = (1..=5)
        .map(|i| {
            sb.umbel(["send", "c", &format!("prompt {i}"), "--queue", "--json"])
                .start()
        })
        .collect();
    let sent: Vec<serde_json::Value> = sends.into_iter().map(|s| s.success().json()).collect();
    let resumed = sent.iter().filter(|s| s["resumed"] == true).count();
    assert_eq!(resumed, 1, "{sent:?}");
    let last = sent
        .iter()
        .filter_map(|s| s["position"].as_u64())
        .max()
        .expect("positions")
        .to_string();
    sb.umbel(["wait", "c", "--since", &last]).success();
    let all = sb.umbel(["read", "c", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all).len(), 6, "{all}");
    let log = std::fs::read_to_string(sb.session_dir("c").join("events/log")).expect("log");
    assert_eq!(log.matches(" Resumed ").count(), 1, "{log}");
}

/// A busy worker is not parked: the refusal says why, and the worker is left as it was.
#[test]
fn a_busy_worker_is_not_parked() {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "b",
        json!({ "default": { "reply": "slow", "delay_ms": 3000 } }),
        &[],
    );
    sb.umbel(["send", "b", "long"]).success();
    sb.umbel(["park", "b"])
        .stderr_has("is busy: a turn is running")
        .status(1);
    sb.umbel(["wait", "b"]).success();
    assert_eq!(sb.ls()[0]["state"], "ready", "{:?}", sb.ls());
}

/// `resume` of a worker that is running is refused; of a killed one too.
#[test]
fn resume_refuses_a_running_or_killed_worker() {
    let sb = Sandbox::new();
    sb.spawn("r", &[]);
    sb.umbel(["resume", "r"])
        .stderr_has("only a parked or dead worker is resumed")
        .status(1);
    sb.umbel(["kill", "r"]).success();
    sb.umbel(["resume", "r"])
        .stderr_has("was ended by `umbel kill`")
        .status(1);
}
