//! Driving a fake in a pseudo-terminal with rexpect (no tmux).

use rexpect::process::WaitStatus;
use rexpect::session::{PtySession, spawn_command};

use super::Sim;

/// The fake playing `scenario` with `args`, in a fresh pty.
pub fn spawn(s: &impl Sim, scenario: &str, args: &[&str]) -> PtySession {
    spawn_command(s.scripted(scenario, args), Some(10_000)).unwrap()
}

/// [`spawn`], the fake playing release `version` (`UMBEL_SIM_VERSION`).
pub fn spawn_at(s: &impl Sim, version: &str, scenario: &str, args: &[&str]) -> PtySession {
    let mut cmd = s.scripted(scenario, args);
    cmd.env("UMBEL_SIM_VERSION", version);
    spawn_command(cmd, Some(10_000)).unwrap()
}

/// rexpect turns every output byte into one char, so UTF-8 needles are
/// matched in that same byte-per-char form. Returns what came before.
pub fn exp(p: &mut PtySession, needle: &str) -> String {
    let bytewise: String = needle.bytes().map(char::from).collect();
    match p.exp_string(&bytewise) {
        Ok(before) => String::from_utf8_lossy(&before.chars().map(|c| c as u8).collect::<Vec<_>>())
            .into_owned(),
        Err(e) => panic!("waiting for {needle:?}: {e}"),
    }
}

/// Writes keys and flushes (rexpect buffers writes).
pub fn send(p: &mut PtySession, keys: &str) {
    p.send(keys).unwrap();
    p.flush().unwrap();
}

/// Sends `keys`, then waits for `needle` (returns what came before it).
pub fn step(p: &mut PtySession, keys: &str, needle: &str) -> String {
    send(p, keys);
    exp(p, needle)
}

/// Waits for the process to end.
pub fn status(p: &PtySession) -> WaitStatus {
    p.process().wait().unwrap()
}

/// The exit code, or `None` when a signal ended the process.
pub fn exit_code(p: &PtySession) -> Option<i32> {
    match status(p) {
        WaitStatus::Exited(_, code) => Some(code),
        _ => None,
    }
}

/// Ctrl-C twice (the way out of every fake), then the end of the process.
pub fn ctrl_c_twice(p: &mut PtySession) {
    p.send_control('c').unwrap();
    p.send_control('c').unwrap();
    p.exp_eof().unwrap();
}
