//! Ending a worker's processes: the pane's process group gets SIGTERM, a grace period to exit
//! on its own (the CLIs save their session on TERM), then SIGKILL for whatever is left. Also
//! how a process is recognised later (a workflow runner): its pid and its start time.

use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// How often the group is checked during the grace period.
const POLL: Duration = Duration::from_millis(3);

/// How a process group ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupEnd {
    /// There was no such group (already gone).
    Absent,
    /// Every process exited within the grace period after SIGTERM.
    Terminated,
    /// Some were still there after the grace period and got SIGKILL.
    Killed,
}

/// Sends SIGTERM to the process group `pgid`, waits up to `grace` for it to empty, then sends
/// SIGKILL to what is left.
pub fn end_group(pgid: u32, grace: Duration) -> GroupEnd {
    let Some(group) = group_of(pgid) else {
        return GroupEnd::Absent;
    };
    if kill_process_group(group, Signal::TERM).is_err() {
        return GroupEnd::Absent;
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if !has_live_member(group, pgid) {
            return GroupEnd::Terminated;
        }
        sleep(POLL);
    }
    match kill_process_group(group, Signal::KILL) {
        Ok(()) => GroupEnd::Killed,
        Err(_) => GroupEnd::Terminated,
    }
}

/// Sends SIGKILL to the process group `pgid` at once: for processes nothing of which is kept
/// (a `-p` worker, whose answer was read and whose folder goes next).
pub fn kill_group(pgid: u32) -> GroupEnd {
    let Some(group) = group_of(pgid) else {
        return GroupEnd::Absent;
    };
    match kill_process_group(group, Signal::KILL) {
        Ok(()) => GroupEnd::Killed,
        Err(_) => GroupEnd::Absent,
    }
}

/// The process group `pgid` names (none for 0 or a value past `i32`).
fn group_of(pgid: u32) -> Option<Pid> {
    i32::try_from(pgid).ok().and_then(Pid::from_raw)
}

/// Whether a process of group `pgid` is still running. Zombies do not count: a CLI whose
/// wrapper died first is reparented to init, which in a container may reap it only seconds
/// later, and `kill(-pgid, 0)` still finds it until then.
fn has_live_member(group: Pid, pgid: u32) -> bool {
    if test_kill_process_group(group).is_err() {
        return false; // no process at all, not even a zombie: no need to scan /proc
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true; // the group exists; which of its members are zombies cannot be told
    };
    entries.flatten().any(|entry| {
        let is_pid = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        is_pid
            && std::fs::read_to_string(entry.path().join("stat"))
                .ok()
                .and_then(|stat| live_field::<u32>(&stat, PGRP))
                == Some(pgid)
    })
}

/// `/proc/PID/stat` field numbers (1-based, as proc(5) counts them).
const PGRP: usize = 5;
const STARTTIME: usize = 22;

/// Field `field` of a `/proc/PID/stat` line, unless the process is a zombie (or dead). The
/// command name in parentheses may hold spaces and parentheses: fields are read after the last
/// `)`, which is where field 3 (the state) starts.
fn live_field<T: std::str::FromStr>(stat: &str, field: usize) -> Option<T> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = *fields.first()?;
    let value = fields.get(field.checked_sub(3)?)?.parse().ok()?;
    (!matches!(state, "Z" | "X" | "x")).then_some(value)
}

/// When process `pid` started (clock ticks after boot, field 22 of `/proc/PID/stat`), while it
/// runs: `None` once it is gone or a zombie. Together with the pid it names one process, not a
/// later one that got the same pid.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    live_field(&stat, STARTTIME)
}

/// This process's pid and start time.
pub fn this_process() -> Option<(u32, u64)> {
    let pid = std::process::id();
    Some((pid, start_time(pid)?))
}

/// Whether the process that started at `started` under `pid` still runs.
pub fn is_running(pid: u32, started: u64) -> bool {
    start_time(pid) == Some(started)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    /// A shell leading its own process group, reaped by a thread (as tmux reaps a pane's
    /// process), so an exited group does not linger as a zombie.
    fn group(script: &str) -> u32 {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .process_group(0)
            .spawn()
            .expect("sh");
        let id = child.id();
        std::thread::spawn(move || child.wait());
        id
    }

    #[test]
    fn a_group_that_exits_on_term_is_not_killed() {
        let id = group("sleep 30");
        assert_eq!(end_group(id, Duration::from_secs(5)), GroupEnd::Terminated);
    }

    #[test]
    fn a_group_that_ignores_term_gets_kill_after_the_grace() {
        let id = group("trap '' TERM; sleep 30 & wait");
        // Let the shell install its trap before the signal.
        sleep(Duration::from_millis(200));
        assert_eq!(end_group(id, Duration::from_millis(300)), GroupEnd::Killed);
        let gone = Instant::now() + Duration::from_secs(5);
        while has_live_member(Pid::from_raw(id as i32).expect("pid"), id) && Instant::now() < gone {
            sleep(POLL);
        }
        assert!(
            !has_live_member(Pid::from_raw(id as i32).expect("pid"), id),
            "the group is gone"
        );
    }

    #[test]
    fn a_zombie_is_not_a_live_member() {
        let stat = "27526 (fake (claude)) Z 1 27514 27514 0 -1 4228356";
        assert_eq!(live_field::<u32>(stat, PGRP), None);
        let stat = "27526 (fake (claude)) S 27514 27514 27514 34816 27526 4194304";
        assert_eq!(live_field::<u32>(stat, PGRP), Some(27514));
    }

    #[test]
    fn a_process_is_known_by_its_start_time() {
        let stat = "9 (umbel (run)) S 1 9 9 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 424242 1 2";
        assert_eq!(live_field::<u64>(stat, STARTTIME), Some(424242));
        assert_eq!(
            live_field::<u64>(&stat.replace(") S", ") Z"), STARTTIME),
            None
        );
        let (pid, started) = this_process().expect("this process");
        assert!(is_running(pid, started));
        assert!(
            !is_running(pid, started + 1),
            "another process with the same pid"
        );
    }

    #[test]
    fn no_group_is_absent() {
        assert_eq!(
            end_group(4_000_000, Duration::from_millis(10)),
            GroupEnd::Absent
        );
    }
}
