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

/// `umbel events` names a park and a resume: `parked` when the CLI was ended, `resumed` when
/// the next send started it again (no `ready` in between: the resume is it), then the turn.
#[test]
fn events_show_a_park_and_the_resume_a_send_made() {
    let sb = Sandbox::new();
    sb.spawn("e", &[]);
    sb.turn_outcome("e", "first", 0);
    sb.umbel(["park", "e"]).stdout("parked e\n").success();
    sb.turn_outcome("e", "second", 0);
    let lines = sb.umbel(["events", "--json", "e"]).success().stdout();
    let events: Vec<String> = lines
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            v["event"].as_str().unwrap_or("?").to_string()
        })
        .collect();
    let parked = events.iter().position(|e| e == "parked");
    let resumed = events.iter().position(|e| e == "resumed");
    assert!(parked.is_some() && resumed.is_some(), "{events:?}");
    assert_eq!(
        &events[parked.unwrap()..],
        ["parked", "resumed", "submitted", "turn-ended"],
        "{events:?}"
    );
}

/// A warm worker (`-p --warm`) is not parked: it ends itself when its time is up, and parked
/// the next `-p --warm` would pay a resume. `--idle-for` passes it by, a name is refused; `ls`
/// shows it warm next to a parked worker.
#[test]
fn a_warm_worker_is_not_parked_and_ls_shows_warm_and_parked_side_by_side() {
    let sb = Sandbox::new();
    sb.spawn("p", &[]);
    sb.umbel(["-p", "hi", "--warm"]).success();
    let warm = crate::warm::warm_worker(&sb, None);
    let name = warm["name"].as_str().expect("name").to_string();
    let parked = sb
        .umbel(["park", "--idle-for", "0s", "--json"])
        .success()
        .json();
    assert_eq!(parked["parked"], json!(["p"]), "{parked}");
    sb.umbel(["park", &name]).stderr_has("is warm").status(1);
    sb.cmd("ls")
        .stdout_has("parked")
        .stdout_has("warm ")
        .success();
    let ls = sb.ls();
    let of = |n: &str| ls.iter().find(|w| w["name"] == n).cloned().expect(n);
    assert_eq!(of("p")["state"], "parked", "{ls:?}");
    assert!(of(&name)["warm"].is_object(), "{ls:?}");
    assert_eq!(of(&name)["state"], "ready", "{ls:?}");
}
