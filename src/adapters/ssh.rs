//! OpenSSH, the one way umbel reaches another host: `ssh HOST umbel remote-exec` with the
//! request on the channel's standard input, over one multiplexed connection per host
//! (ControlMaster/ControlPersist, its socket under `<state>/ssh/`). The user's ssh config,
//! keys, agent and known_hosts apply unchanged; `BatchMode` keeps ssh from prompting, and
//! host-key checking is left as the user has it.

use crate::core::errors::{Error, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How long the shared connection outlives its last use.
const PERSIST: &str = "10m";
/// How long a cancelled remote verb gets to end by itself once its stdin is closed.
const GRACE: Duration = Duration::from_secs(5);
/// How much of ssh's stderr is kept to explain a failure.
const STDERR_TAIL: usize = 8192;

/// How to reach hosts: the ssh program and the options umbel adds.
#[derive(Debug, Clone)]
pub struct Ssh {
    program: String,
    config: Option<String>,
    control_dir: PathBuf,
    remote_umbel: String,
    connect_timeout: u64,
    env: Vec<(String, String)>,
}

/// Where the host umbel's output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stdout {
    /// Straight to umbel's own stdout (text or JSON, exactly as the host printed it); its
    /// stderr copied to umbel's as it comes.
    Pass,
    /// Kept, for umbel to read; its stderr copied to umbel's as it comes.
    Capture,
    /// Both kept (a fan-out that reports each host in its own words).
    Quiet,
}

/// A finished ssh run.
#[derive(Debug)]
pub struct Ran {
    /// ssh's exit status: the host umbel's, or 255 for ssh's own failure; `None` on a signal.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    /// The end of ssh's stderr (the host umbel's and ssh's own messages).
    pub stderr: String,
    /// The caller cancelled while it ran.
    pub cancelled: bool,
}

impl Ssh {
    /// From umbel's environment: `UMBEL_SSH` (the ssh program), `UMBEL_SSH_CONFIG` (an ssh
    /// config file, `ssh -F`), `UMBEL_REMOTE_UMBEL` (umbel's path on the hosts),
    /// `UMBEL_SSH_CONNECT_TIMEOUT` (seconds, default 5).
    pub fn from_env(state_root: &Path, env: &[(String, String)]) -> Ssh {
        let get = |k: &str| {
            env.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .filter(|v| !v.is_empty())
        };
        Ssh {
            program: get("UMBEL_SSH").unwrap_or_else(|| "ssh".into()),
            config: get("UMBEL_SSH_CONFIG"),
            control_dir: state_root.join("ssh"),
            remote_umbel: get("UMBEL_REMOTE_UMBEL").unwrap_or_else(|| "umbel".into()),
            connect_timeout: get("UMBEL_SSH_CONNECT_TIMEOUT")
                .and_then(|v| v.parse().ok())
                .unwrap_or(5),
            env: env.to_vec(),
        }
    }

    /// How long reaching a host may take before it counts as unreachable.
    pub fn connect_timeout(&self) -> Duration {
        Duration::from_secs(self.connect_timeout)
    }

    /// `ssh [options] -- HOST <remote command>`; the remote command is fixed words (no value of
    /// the caller's ever reaches the remote shell).
    fn command(&self, host: &str, tty: bool, remote: &[&str]) -> Result<Command> {
        std::fs::create_dir_all(&self.control_dir)
            .map_err(|e| Error::io("cannot create", &self.control_dir, e))?;
        restrict(&self.control_dir)?;
        let mut cmd = Command::new(&self.program);
        cmd.env_clear().envs(self.env.iter().cloned());
        if let Some(config) = &self.config {
            cmd.args(["-F", config]);
        }
        let control = self.control_dir.join("%C");
        cmd.arg("-S").arg(control);
        for option in [
            "ControlMaster=auto".to_string(),
            format!("ControlPersist={PERSIST}"),
            "BatchMode=yes".to_string(),
            format!("ConnectTimeout={}", self.connect_timeout),
            "ServerAliveInterval=5".to_string(),
            "ServerAliveCountMax=3".to_string(),
            "LogLevel=ERROR".to_string(),
        ] {
            cmd.arg("-o").arg(option);
        }
        cmd.arg(if tty { "-tt" } else { "-T" });
        cmd.arg("--").arg(host).arg(&self.remote_umbel).args(remote);
        Ok(cmd)
    }

    /// `umbel remote-exec` on `host` with `request` on its stdin, which stays open until the
    /// run ends: closing it (on `cancel`) is what stops the host's umbel. `bound` kills ssh
    /// when it passes (a host that does not answer).
    pub fn exec(
        &self,
        host: &str,
        request: Vec<u8>,
        stdout: Stdout,
        cancel: &AtomicBool,
        bound: Option<Duration>,
    ) -> Result<Ran> {
        let mut cmd = self.command(host, false, &["remote-exec"])?;
        cmd.stdin(Stdio::piped()).stderr(Stdio::piped());
        cmd.stdout(match stdout {
            Stdout::Pass => Stdio::inherit(),
            Stdout::Capture | Stdout::Quiet => Stdio::piped(),
        });
        // Its own process group: a Ctrl-C at the terminal reaches umbel, which ends the remote
        // verb in order, instead of killing ssh under it.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child: Child = cmd.spawn().map_err(|e| Error::HostUnreachable {
            host: host.to_string(),
            detail: format!("cannot run `{}`: {e}", self.program),
        })?;
        let pid = child.id();
        let close = feed(&mut child, request);
        let err = drain(child.stderr.take(), stdout != Stdout::Quiet);
        let out = drain(child.stdout.take(), false);
        let ended = supervise(child, pid, &close, cancel, bound);
        drop(close);
        let (status, cancelled) = match ended {
            Ended::Exited(status) => (status, false),
            Ended::Cancelled(status) => (status, true),
            Ended::OverBound => {
                return Err(Error::HostUnreachable {
                    host: host.to_string(),
                    detail: format!(
                        "no answer within {}",
                        humantime::format_duration(bound.unwrap_or_default())
                    ),
                });
            }
        };
        // A persisting master that kept a pipe open must not hold us: bounded joins.
        let stderr = err
            .recv_timeout(Duration::from_millis(500))
            .unwrap_or_default();
        let stdout = out
            .recv_timeout(Duration::from_millis(500))
            .unwrap_or_default();
        let start = stderr.len().saturating_sub(STDERR_TAIL);
        Ok(Ran {
            code: status.and_then(|s| s.code()),
            stdout,
            stderr: String::from_utf8_lossy(&stderr[start..]).into_owned(),
            cancelled,
        })
    }

    /// `umbel attach NAME` on `host` in this terminal (`ssh -tt`), returning ssh's exit status.
    pub fn attach(&self, host: &str, name: &str) -> Result<Option<i32>> {
        let mut cmd = self.command(host, true, &["attach", name])?;
        let status = cmd.status().map_err(|e| Error::HostUnreachable {
            host: host.to_string(),
            detail: format!("cannot run `{}`: {e}", self.program),
        })?;
        Ok(status.code())
    }
}

/// How a supervised ssh run ended.
enum Ended {
    /// By itself (its status, `None` when a signal ended it).
    Exited(Option<std::process::ExitStatus>),
    /// After a cancel closed its stdin (or, past the grace, it was killed).
    Cancelled(Option<std::process::ExitStatus>),
    /// Killed at the bound: the host did not answer.
    OverBound,
}

/// Waits for ssh to end; on `cancel` closes its stdin (`close`) and gives the host's umbel
/// [`GRACE`] to stop before killing ssh; kills it at `bound`.
fn supervise(
    mut child: Child,
    pid: u32,
    close: &mpsc::Sender<()>,
    cancel: &AtomicBool,
    bound: Option<Duration>,
) -> Ended {
    let (done_tx, done) = mpsc::channel();
    thread::spawn(move || {
        let _ = done_tx.send(child.wait());
    });
    let started = Instant::now();
    let mut cancelled_at: Option<Instant> = None;
    let ended = |status, cancelled_at: Option<Instant>| match cancelled_at {
        Some(_) => Ended::Cancelled(status),
        None => Ended::Exited(status),
    };
    loop {
        match done.recv_timeout(Duration::from_millis(20)) {
            Ok(status) => return ended(status.ok(), cancelled_at),
            Err(mpsc::RecvTimeoutError::Disconnected) => return ended(None, cancelled_at),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if cancel.load(Ordering::Relaxed) && cancelled_at.is_none() {
            let _ = close.send(());
            cancelled_at = Some(Instant::now());
        }
        let over_grace = cancelled_at.is_some_and(|at| at.elapsed() > GRACE);
        let over_bound = bound.is_some_and(|b| started.elapsed() > b);
        if over_grace || over_bound {
            kill_group(pid);
            let _ = done.recv_timeout(Duration::from_secs(2));
            return match cancelled_at {
                Some(_) => Ended::Cancelled(None),
                None => Ended::OverBound,
            };
        }
    }
}

/// Writes the request, then holds ssh's stdin open until told to close it (or dropped).
fn feed(child: &mut Child, request: Vec<u8>) -> mpsc::Sender<()> {
    let (close_tx, close_rx) = mpsc::channel::<()>();
    if let Some(mut stdin) = child.stdin.take() {
        thread::spawn(move || {
            if stdin
                .write_all(&request)
                .and_then(|()| stdin.flush())
                .is_ok()
            {
                let _ = close_rx.recv();
            }
            drop(stdin);
        });
    }
    close_tx
}

/// Reads a pipe to its end on a thread (copying it to umbel's stderr as it comes when `echo`).
fn drain<R: Read + Send + 'static>(pipe: Option<R>, echo: bool) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(mut pipe) = pipe {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if echo {
                    let mut err = std::io::stderr().lock();
                    let _ = err.write_all(&buf[..n]).and_then(|()| err.flush());
                }
                kept.extend_from_slice(&buf[..n]);
            }
        }
        let _ = tx.send(kept);
    });
    rx
}

fn kill_group(pid: u32) {
    if let Some(group) = rustix::process::Pid::from_raw(pid as i32) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

fn restrict(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| Error::io("cannot restrict", dir, e))
}
