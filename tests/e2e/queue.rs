//! `send --queue`: a prompt waits for the running turn and is delivered after it, exactly once;
//! a worker that dies or needs a person meanwhile fails the send with nothing typed; a queued
//! send that is killed leaves no ticket and the others still go. The three-senders case runs on
//! both tiers (tiers.rs).

use crate::harness::*;
use rustix::process::Signal;
use serde_json::json;
use std::time::Duration;

fn queued<'a>(sb: &'a Sandbox, name: &str, prompt: &str) -> Test<'a> {
    sb.umbel(["send", name, prompt, "--queue"])
}

fn tickets(sb: &Sandbox, name: &str) -> usize {
    std::fs::read_dir(sb.session_dir(name).join("queue")).map_or(0, |d| d.count())
}

#[test]
fn a_queued_send_to_a_worker_that_dies_is_dead_125_and_nothing_is_typed() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "d",
        json!({ "turns": [{ "reply": "partial", "delay_ms": 1500, "end": { "crash": 3 } }] }),
    );
    sb.spawn("d", &["--env", &scenario, "--env", &sb.record_env()]);
    sb.umbel(["send", "d", "long task"]).success();
    let failed = queued(&sb, "d", "never typed")
        .args(["--json"])
        .stderr_has("not delivered (dead)")
        .status(125);
    assert!(
        failed.stderr().contains("nothing was typed"),
        "{}",
        failed.stderr()
    );
    assert_eq!(sb.received(), [b"long task".to_vec()]);
    assert_eq!(tickets(&sb, "d"), 0);
}

#[test]
fn a_queued_send_to_a_worker_that_needs_a_person_is_input_126() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "p",
        json!({ "turns": [{ "reply": "Asking.", "delay_ms": 1000, "end": { "permission": {
            "tool": "Bash", "input": { "command": "echo hi > t.txt", "description": "Write hi" } } } }] }),
    );
    sb.spawn("p", &["--env", &scenario, "--env", &sb.record_env()]);
    sb.umbel(["send", "p", "run the tool"]).success();
    queued(&sb, "p", "never typed")
        .stderr_has("not delivered (input)")
        .status(126);
    assert_eq!(sb.received(), [b"run the tool".to_vec()]);
    assert_eq!(tickets(&sb, "p"), 0);
}

#[test]
fn a_queued_send_on_an_idle_worker_goes_at_once_and_a_timeout_is_124() {
    let sb = Sandbox::new();
    sb.spawn_playing("i", sim::wedge(), &["--env", &sb.record_env()]);
    queued(&sb, "i", "first").success();
    queued(&sb, "i", "second")
        .args(["--queue-timeout", "1s"])
        .stderr_has("not delivered (timeout)")
        .status(124);
    assert_eq!(sb.received(), [b"first".to_vec()]);
    sb.umbel(["send", "i", "x", "--queue-timeout", "1s"])
        .stderr_has("--queue")
        .status(2);
}

#[test]
fn a_queued_send_killed_while_waiting_leaves_no_ticket_and_the_others_go() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "k",
        json!({ "turns": [{ "match": "long task", "reply": "long done", "delay_ms": 4000 }] }),
    );
    sb.spawn("k", &["--env", &scenario, "--env", &sb.record_env()]);
    sb.umbel(["send", "k", "long task"]).success();
    let mut started = Vec::new();
    // In this order: each takes its ticket before the next starts.
    for (n, prompt) in (1..).zip(["one", "terminated", "killed", "four"]) {
        started.push(queued(&sb, "k", prompt).start());
        sb.until_queued("k", n);
    }
    let four = started.pop().expect("four");
    let killed = started.pop().expect("killed");
    let terminated = started.pop().expect("terminated");
    let one = started.pop().expect("one");
    terminated.signal(Signal::TERM);
    terminated.status(130);
    killed.kill();
    assert_eq!(
        tickets(&sb, "k"),
        3,
        "the SIGTERMed send removed its ticket"
    );
    one.success();
    four.success();
    let prompts: Vec<String> = sb
        .received()
        .iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    assert_eq!(prompts, ["long task", "one", "four"]);
    assert_eq!(
        tickets(&sb, "k"),
        0,
        "the killed send's ticket was skipped and removed"
    );
}

/// Anything in `queue/` that is not a ticket — a FIFO, a folder — is passed by: a queued send
/// is delivered (it hung forever in open(2) on a FIFO, past `--queue-timeout`).
#[test]
fn a_fifo_in_the_queue_folder_does_not_hold_a_queued_send() {
    let sb = Sandbox::new();
    sb.spawn_playing("f", sim::reply("Done."), &[]);
    let queue = sb.session_dir("f").join("queue");
    std::fs::create_dir_all(queue.join("00-a-folder")).expect("mkdir");
    let made = std::process::Command::new("mkfifo")
        .arg(queue.join("0000"))
        .status()
        .expect("mkfifo");
    assert!(made.success());
    queued(&sb, "f", "hello")
        .args(["--queue-timeout", "20s"])
        .success();
    sb.umbel(["wait", "f", "--timeout", "20s"]).success();
}

/// A sender queued on a worker that is then `kill --purge`d is told the worker was killed
/// (not_delivered, dead 125, nothing typed), not a raw file or tmux error.
#[test]
fn a_queued_send_to_a_purged_worker_says_it_was_killed() {
    let sb = Sandbox::new();
    sb.spawn_playing("kp", sim::wedge(), &[]);
    sb.umbel(["send", "kp", "hang"]).success();
    let waiting = queued(&sb, "kp", "never typed").start();
    assert!(eventually(Duration::from_secs(10), || tickets(&sb, "kp") == 1));
    sb.umbel(["kill", "kp", "--purge"]).success();
    let failed = waiting.run();
    assert_eq!(failed.code(), Some(125), "{}", failed.stderr());
    assert!(failed.stderr().contains("killed"), "{}", failed.stderr());
}
