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

/// Waits up to `bound` for `child` to exit; whether it did (it is killed otherwise).
fn exits_within(child: &mut Running, bound: Duration) -> bool {
    let deadline = Instant::now() + bound;
    while child.is_running() {
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// One SIGTERM ends any umbel command, even one blocked where no stop flag is looked at: a
/// `run` of a FIFO nobody writes waits in open(2), which the signal does not break. umbel
/// exits all the same (130, as for every signal), and says why.
#[test]
fn one_sigterm_ends_a_command_blocked_in_a_system_call() {
    let sb = Sandbox::new();
    let fifo = sb.root.join("wf.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let mut child = sb.umbel(["run", fifo.to_str().expect("UTF-8")]).start();
    std::thread::sleep(Duration::from_millis(500));
    child.signal(Signal::TERM);
    let ended = exits_within(&mut child, Duration::from_secs(30));
    if !ended {
        child.kill();
        panic!("still running 30 s after SIGTERM");
    }
    let out = child.status(130);
    assert!(out.stderr().contains("did not stop"), "{}", out.stderr());
}

/// A command waiting for a lock another process holds (here `resume`, behind a park or resume
/// of the same worker) stops at once on SIGTERM: the wait looks at the stop flag.
#[test]
fn sigterm_ends_a_wait_for_a_workers_lock_at_once() {
    let sb = Sandbox::new();
    sb.spawn("lk", &[]);
    sb.umbel(["park", "lk"]).success();
    // Held here, as a park or resume of the worker would hold it.
    let lock = std::fs::File::create(sb.session_dir("lk").join("resume.lock")).expect("lock file");
    lock.lock().expect("take the lock");
    let mut child = sb.umbel(["resume", "lk"]).start();
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.is_running(), "resume waits for the lock");
    child.signal(Signal::TERM);
    let ended = exits_within(&mut child, Duration::from_secs(3));
    drop(lock);
    assert!(ended, "resume still waiting 3 s after SIGTERM");
    let out = child.status(130);
    assert!(!out.stderr().contains("did not stop"), "{}", out.stderr());
}

/// A queued send to a parked worker whose park or resume holds it past `--queue-timeout` ends
/// at that deadline, as a queued send whose turn did not come: nothing typed, exit 124.
#[test]
fn a_queued_send_waits_for_a_workers_lock_no_longer_than_its_queue_timeout() {
    let sb = Sandbox::new();
    sb.spawn("lq", &[]);
    sb.umbel(["park", "lq"]).success();
    let lock = std::fs::File::create(sb.session_dir("lq").join("resume.lock")).expect("lock file");
    lock.lock().expect("take the lock");
    let mut child = sb
        .umbel([
            "send",
            "lq",
            "hi",
            "--queue",
            "--queue-timeout",
            "1s",
            "--json",
        ])
        .start();
    let ended = exits_within(&mut child, Duration::from_secs(6));
    drop(lock);
    assert!(
        ended,
        "the queued send still waited 6 s past its 1 s queue timeout"
    );
    let out = child.status(124);
    assert!(out.stderr().contains("--queue-timeout"), "{}", out.stderr());
}

/// opencode's log lags its screen (its plugin runs each hook in turn while the TUI draws on):
/// an interrupt returns, the next prompt is sent, and only then do the interrupted turn's abort
/// and idle reach the log — after the send's position, before the new turn's own submit. The
/// new turn's outcome comes from its own events: it ends `stop` with its answer.
#[test]
fn a_late_abort_of_the_interrupted_turn_is_not_the_next_turns_end() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "lag",
        json!({ "startup": { "hook_lag_ms": 4000 },
                "turns": [ { "match": "long", "reply": "late", "delay_ms": 30000 },
                           { "match": "next", "reply": "Next." } ] }),
    );
    sb.spawn("oc", &["--provider", "opencode", "--env", &scenario]);
    let long = sb.umbel(["send", "oc", "long task"]).success().line();
    until("the turn to run", || {
        std::fs::read_to_string(sb.session_dir("oc").join("events/log"))
            .is_ok_and(|l| l.contains(" SessionBusy "))
    });
    sb.umbel(["interrupt", "oc"]).success();
    let pos = sb.umbel(["send", "oc", "next one"]).success().line();
    let out = sb
        .umbel(["wait", "oc", "--since", &pos, "--json"])
        .success()
        .json();
    assert_eq!(out["outcome"], "stop", "{out}");
    assert_eq!(sb.umbel(["read", "oc"]).success().stdout(), "Next.\n");
    assert_ne!(long, pos);
}

/// `/dev/full`: every write fails with ENOSPC, as on a full disk.
fn full_disk() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
}

/// A stderr that cannot be written (a terminal closed under umbel gives EIO; `/dev/full` here
/// gives ENOSPC) never panics umbel: `-p` of a failing turn still exits with the turn's code
/// (122, not a panic's 101) and still removes its worker (issue 45 item 3).
#[test]
fn print_mode_with_an_unwritable_stderr_exits_with_its_code_and_leaves_no_worker() {
    let sb = Sandbox::new();
    let failing = sb.scenario(
        "fail",
        json!({ "turns": [{ "end": { "api_error": { "status": 400, "message": "scripted" } } }] }),
    );
    let mut cmd = sb.process(&["-p", "fail please", "--env", &failing]);
    cmd.stderr(full_disk());
    let out = cmd.output().expect("run umbel -p");
    assert_eq!(out.status.code(), Some(122), "{out:?}");
    assert!(sb.worker_dirs().is_empty(), "{:?}", sb.worker_dirs());
}

/// An answer that cannot be written to stdout (a full disk: `/dev/full`) is not a success:
/// `read` says so and exits 1. A closed pipe (`umbel read w | head -c1`) still ends quietly.
#[test]
fn an_answer_that_cannot_be_written_is_not_a_success() {
    let sb = Sandbox::new();
    sb.spawn("rw", &[]);
    sb.turn_outcome("rw", "hello", 0);
    let mut cmd = sb.process(&["read", "rw"]);
    cmd.stdout(full_disk());
    let out = cmd.output().expect("run umbel read");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("could not all be written"), "{stderr}");
    let mut piped = sb.process(&["read", "rw"]);
    let mut child = piped.spawn().expect("spawn");
    drop(child.stdout.take());
    assert_eq!(child.wait().expect("wait").code(), Some(0));
}

/// `send -` reads its prompt only as far as the largest prompt: an endless stdin is refused at
/// once, not held in memory (issue 45 item 10).
#[test]
fn an_endless_stdin_prompt_is_refused_without_reading_it_all() {
    let sb = Sandbox::new();
    sb.spawn("es", &[]);
    let mut cmd = sb.process(&["send", "es", "-"]);
    cmd.stdin(std::fs::File::open("/dev/zero").expect("/dev/zero"));
    let started = Instant::now();
    let out = cmd.output().expect("run umbel send");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("umbel pastes at most 1 MiB"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(20));
}
