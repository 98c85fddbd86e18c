//! Guardrail checks, signals and programs under faults (issue 34): a signal while an `--accept`
//! check runs, a check that exits leaving a child on its output, a check printing 50 MB, a
//! passing check's daemon, `-p` with a PATH the hooks cannot run on, and `kill` when the
//! tombstone cannot be written.

use crate::harness::*;
use rustix::process::Signal;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A check that writes its pid (its process group's) to a file, then hangs.
fn hanging_check(sb: &Sandbox) -> (String, PathBuf) {
    let pidfile = sb.root.join("check.pid");
    let check = format!("echo $$ > '{}'; sleep 300", pidfile.display());
    (check, pidfile)
}

/// The pid a check wrote to `file`, once it has (within 60 s: the turn comes first).
#[track_caller]
fn pid_in(file: &Path) -> i32 {
    let written = eventually(Duration::from_secs(60), || {
        std::fs::read_to_string(file).is_ok_and(|s| s.ends_with('\n'))
    });
    assert!(
        written,
        "the check never started ({} missing)",
        file.display()
    );
    let text = std::fs::read_to_string(file).expect("pid file");
    text.trim().parse().expect("a pid")
}

/// Whether `pid` runs (a zombie does not).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| !stat.contains(") Z"))
}

/// Whether `pid` or a process of its group runs.
fn group_alive(pgid: i32) -> bool {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .any(|entry| {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                return false;
            };
            let Some(after) = stat.rfind(") ").map(|i| &stat[i + 2..]) else {
                return false;
            };
            let fields: Vec<&str> = after.split(' ').collect();
            fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str())
        })
}

/// Runs `test` (an `--accept` of [`hanging_check`], whose pid lands in `pidfile`), sends it
/// `signal` once the check runs, and sees umbel exit 130 with the check's process group gone.
fn signalled_during_the_check(test: Test<'_>, pidfile: &Path, signal: Signal) {
    let running = test
        .args(["--check-timeout", "30s"])
        .stderr_has("interrupted")
        .start();
    let pgid = pid_in(pidfile);
    running.signal(signal);
    running.status(130);
    assert!(
        !group_alive(pgid),
        "the check's process group outlived umbel"
    );
}

fn signal_during_a_print_check(signal: Signal) {
    let sb = Sandbox::new();
    let (check, pidfile) = hanging_check(&sb);
    let print = sb.umbel(["-p", "Go", "--accept-shell", "--accept", &check]);
    signalled_during_the_check(print, &pidfile, signal);
    assert_eq!(sb.worker_dirs(), Vec::<String>::new(), "-p's worker purged");
    assert_no_process_left(&sb.root, "-p interrupted during its check");
}

#[test]
fn ctrl_c_during_a_print_check_ends_the_check_and_the_worker_with_130() {
    signal_during_a_print_check(Signal::INT);
}

#[test]
fn sigterm_during_a_print_check_ends_the_check_and_the_worker_with_130() {
    signal_during_a_print_check(Signal::TERM);
}

fn signal_during_a_wait_check(signal: Signal) {
    let sb = Sandbox::new();
    sb.spawn_playing("c1", sim::reply("ok"), &[]);
    sb.umbel(["send", "c1", "Go"]).success();
    let (check, pidfile) = hanging_check(&sb);
    let wait = sb.umbel(["wait", "c1", "--accept-shell", "--accept", &check]);
    signalled_during_the_check(wait, &pidfile, signal);
    // A worker umbel was only asked about is left as it was.
    let status = sb.cmd("status c1 --json").success().json();
    assert_eq!(status["state"], "ready", "{status}");
}

#[test]
fn ctrl_c_during_a_wait_check_ends_the_check_with_130() {
    signal_during_a_wait_check(Signal::INT);
}

#[test]
fn sigterm_during_a_wait_check_ends_the_check_with_130() {
    signal_during_a_wait_check(Signal::TERM);
}

#[test]
fn sighup_during_a_wait_check_ends_the_check_with_130() {
    signal_during_a_wait_check(Signal::HUP);
}

#[test]
fn a_check_that_exits_0_leaving_a_child_on_its_output_passes() {
    let sb = Sandbox::new();
    sb.spawn_playing("c6", sim::reply("ok"), &[]);
    let outcome = sb
        .turn("c6", "Go")
        .args(["--json", "--accept-shell", "--accept"])
        .args([
            "echo checked; (sleep 300 &) ; exit 0",
            "--check-timeout",
            "4s",
        ])
        .success()
        .json();
    assert_eq!(outcome["check"]["accepted"], true);
    assert_eq!(outcome["check"]["output"], "checked\n");
}

#[test]
fn a_passing_checks_daemon_is_ended_with_it() {
    let sb = Sandbox::new();
    sb.spawn_playing("c17", sim::reply("ok"), &[]);
    let pidfile = sb.root.join("daemon.pid");
    let check = format!(
        "nohup sleep 300 >/dev/null 2>&1 & echo $! > '{}'; exit 0",
        pidfile.display()
    );
    sb.turn("c17", "Go")
        .args(["--accept-shell", "--accept", &check])
        .success();
    let daemon = pid_in(&pidfile);
    assert!(
        eventually(Duration::from_secs(5), || !alive(daemon)),
        "the passing check's daemon {daemon} outlived it"
    );
}

#[test]
fn a_check_printing_50_mb_leaves_umbels_memory_bounded() {
    let sb = Sandbox::new();
    sb.spawn_playing("c9", sim::reply("ok"), &[]);
    let peak = sb.root.join("peak");
    // The check prints 50 MB, then reads umbel's (its parent's) peak resident memory: by then
    // umbel has read all but a pipe's worth of the output.
    let check = format!(
        "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 50000000; echo the-end; \
         sed -n 's/^VmHWM:[^0-9]*\\([0-9]*\\) kB$/\\1/p' /proc/$PPID/status > '{}'",
        peak.display()
    );
    let outcome = sb
        .turn("c9", "Go")
        .args(["--json", "--accept-shell", "--accept", &check])
        .success()
        .json();
    let output = outcome["check"]["output"]
        .as_str()
        .expect("the check's output");
    assert!(
        output.ends_with("the-end\n"),
        "{}",
        &output[output.len() - 100..]
    );
    assert!(output.starts_with("[… 49934"), "{}", &output[..40]);
    let peak_kb: u64 = std::fs::read_to_string(&peak)
        .expect("the check read umbel's peak memory")
        .trim()
        .parse()
        .expect("VmHWM in kB");
    // umbel itself takes about 10 MB; holding the output took 50 MB more, and more again as
    // its buffer doubled.
    assert!(peak_kb < 40_000, "umbel's peak RSS was {peak_kb} kB");
}

#[test]
fn print_and_spawn_refuse_a_path_the_hooks_cannot_run_on() {
    let sb = Sandbox::new();
    sb.umbel(["-p", "hello", "--env", "PATH="])
        .stderr_has("`--env PATH` is ``, which has no sh, cat, date")
        .status(2);
    let empty = sb.root.join("empty-bin");
    std::fs::create_dir(&empty).unwrap();
    let path = format!("PATH={}", empty.display());
    sb.umbel(["spawn", "--name", "p1", "--env", &path])
        .stderr_has("keep /usr/bin and /bin on it")
        .status(2);
    assert_eq!(sb.worker_dirs(), Vec::<String>::new(), "nothing spawned");
    assert_no_process_left(&sb.root, "a refused spawn");
    // A PATH that keeps the system folders is fine.
    let path = format!("PATH={}:/usr/bin:/bin", empty.display());
    sb.umbel(["-p", "hello", "--env", &path])
        .stdout_has("hello")
        .success();
}

#[test]
fn kill_reports_the_kill_and_warns_when_the_tombstone_cannot_be_written() {
    let sb = Sandbox::new();
    sb.spawn("k1", &[]);
    // A state root that cannot take the tombstone. chmod is no use: the tests run as root,
    // whom permissions do not stop. A directory where the tombstone goes makes its write (a
    // rename over it) fail for any user, and changes nothing else kill reads.
    std::fs::create_dir(sb.session_dir("k1").join("events").join("dead")).unwrap();
    sb.cmd("kill k1")
        .stdout("killed k1\n")
        .stderr_has("umbel: warning: worker `k1`: killed, but its tombstone")
        .success();
    assert_no_process_left(&sb.root, "kill without a tombstone");
}

#[test]
fn a_worker_whose_hooks_cannot_run_is_named_so_when_a_send_is_not_seen() {
    let sb = Sandbox::new();
    // Passes the PATH check (an `sh` is on it) but runs no hook: its `sh` fails.
    sb.write_executable("broken-bin/sh", "#!/bin/sh\nexit 1\n");
    let path = format!(
        "PATH={}:/usr/bin:/bin",
        sb.project.join("broken-bin").display()
    );
    sb.umbel(["-p", "hello", "--env", &path])
        .stderr_has("none of its hooks has fired since it started")
        .stderr_has("they need `sh`, `cat` and `date` on the worker's PATH")
        .status(1);
    assert_no_process_left(&sb.root, "-p whose hooks cannot run");
}
