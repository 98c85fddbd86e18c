//! Running a child process with a hard time bound. One loop feeds its stdin and reads its
//! stdout and stderr (non-blocking, under `poll`), so a full pipe cannot wedge it, and watches
//! three things: the program's own exit (which decides — a background child still holding its
//! pipes does not), the time bound, and the caller's stop flag (Ctrl-C). On the bound or the
//! flag it is killed with everything it started: it runs in its own process group, so
//! `sh -c 'sleep 99'` leaves no `sleep` behind. Output is kept through [`ByteTail`]s, so a
//! caller that needs only the end of a huge output holds only that.

use super::process::end_group;
use crate::core::byte_tail::ByteTail;
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::io::Errno;
use rustix::process::{Pid, Signal, kill_process_group};
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest the loop sleeps between two looks at the program's exit and the stop flag.
const TICK: Duration = Duration::from_millis(10);
/// Where the program's exit cannot be polled (no pidfd) and its pipes are closed: how long the
/// loop sleeps before it looks again (a tmux call's exit should cost no more).
const EXIT_POLL: Duration = Duration::from_millis(1);
/// After the program exited, how long its pipes are still read when something it left
/// behind (outside its group, or ignoring SIGTERM) holds them open.
const DRAIN: Duration = Duration::from_millis(300);
/// With [`Watch::end_group`]: how long what the program left running in its group has, after
/// SIGTERM, before SIGKILL.
const LEFTOVER_GRACE: Duration = Duration::from_secs(1);
/// How much is read from a pipe at once.
const CHUNK: usize = 64 * 1024;

/// What a bounded run produced.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Bytes dropped from the start of stdout and stderr (see [`Watch::keep`]).
    pub dropped: u64,
}

/// Why a bounded run did not finish.
#[derive(Debug)]
pub enum RunError {
    /// The program could not be started (or its pipes failed).
    Spawn(std::io::Error),
    /// It did not finish in time and was killed.
    TimedOut,
    /// The caller's stop flag was raised; it was killed.
    Interrupted,
}

/// What a run watches and keeps, beyond its time bound. The default keeps all output, has no
/// stop flag and leaves the group alone after the exit (a tmux client, `--version`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Watch<'a> {
    /// The most bytes kept of each stream, its end; `None` keeps everything.
    pub keep: Option<usize>,
    /// Raised by the caller to stop the run at once (SIGINT, a cancelled request).
    pub cancel: Option<&'a AtomicBool>,
    /// Once the program exits, end whatever it left running in its process group (SIGTERM,
    /// then SIGKILL after a second): nothing it started outlives it.
    pub end_group: bool,
}

/// A program as a verb describes it: what to run, where, and with which environment.
#[derive(Debug, Default)]
pub struct Program {
    pub argv: Vec<String>,
    /// The folder to run in (umbel's own when `None`).
    pub dir: Option<PathBuf>,
    /// Variables set for it.
    pub env: Vec<(String, String)>,
    /// Start from an empty environment instead of umbel's own.
    pub clear_env: bool,
}

/// Runs `program` (its `argv` must not be empty) like [`run_watched`].
pub fn run_program(
    program: &Program,
    stdin: Option<&[u8]>,
    bound: Duration,
    watch: Watch<'_>,
) -> Result<Finished, RunError> {
    let Some((first, rest)) = program.argv.split_first() else {
        return Err(RunError::Spawn(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "no program given",
        )));
    };
    let mut cmd = Command::new(first);
    cmd.args(rest);
    if program.clear_env {
        cmd.env_clear();
    }
    cmd.envs(program.env.iter().map(|(k, v)| (k, v)));
    if let Some(dir) = &program.dir {
        cmd.current_dir(dir);
    }
    run_watched(cmd, stdin, bound, watch)
}

/// Starts `program` (its `argv` must not be empty) detached and does not wait for it: its own
/// process group (a Ctrl-C meant for umbel's terminal does not reach it), no stdin, stdout or
/// stderr (a reader of umbel's pipes sees them end when umbel exits), umbel's environment and
/// current directory. Warm `-p` starts its refill this way.
pub fn start_detached(program: &Program) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let Some((first, rest)) = program.argv.split_first() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "no program given",
        ));
    };
    let mut cmd = Command::new(first);
    cmd.args(rest)
        .envs(program.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    if let Some(dir) = &program.dir {
        cmd.current_dir(dir);
    }
    cmd.spawn().map(drop)
}

impl Finished {
    /// How it ended, in words: `exit status 1`, `killed by signal 9`.
    pub fn ended(&self) -> String {
        use std::os::unix::process::ExitStatusExt;
        match (self.status.code(), self.status.signal()) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}"),
            (None, None) => "ended abnormally".into(),
        }
    }
}

/// Runs `cmd` with `stdin` fed in, waiting at most `bound`, keeping all its output.
pub fn run_bounded(
    cmd: Command,
    stdin: Option<&[u8]>,
    bound: Duration,
) -> Result<Finished, RunError> {
    run_watched(cmd, stdin, bound, Watch::default())
}

/// Runs `cmd` with `stdin` fed in until it exits, `bound` passes or `watch`'s stop flag is
/// raised. Its exit decides: its pipes are then read for at most [`DRAIN`] more.
pub fn run_watched(
    mut cmd: Command,
    stdin: Option<&[u8]>,
    bound: Duration,
    watch: Watch<'_>,
) -> Result<Finished, RunError> {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().map_err(RunError::Spawn)?;
    let mut pipes = match Pipes::take(&mut child, stdin, watch.keep) {
        Ok(pipes) => pipes,
        Err(e) => {
            stop(&mut child);
            return Err(RunError::Spawn(e));
        }
    };
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                stop(&mut child);
                return Err(RunError::Spawn(e));
            }
        }
        if watch
            .cancel
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            stop(&mut child);
            return Err(RunError::Interrupted);
        }
        let left = bound.saturating_sub(started.elapsed());
        if left.is_zero() {
            stop(&mut child);
            return Err(RunError::TimedOut);
        }
        pipes.pump(left.min(TICK));
    };
    pipes.exit = None; // readable for good now
    if watch.end_group {
        end_group(child.id(), LEFTOVER_GRACE);
    }
    let drain_until = Instant::now() + DRAIN;
    while pipes.open() {
        let left = drain_until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        pipes.pump(left.min(TICK));
    }
    Ok(pipes.finish(status))
}

/// Kills the program's whole group, and the program itself should it have left the group,
/// and reaps it.
fn stop(child: &mut Child) {
    if let Some(group) = i32::try_from(child.id()).ok().and_then(Pid::from_raw) {
        let _ = kill_process_group(group, Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The program's three pipes, from umbel's side, all non-blocking.
struct Pipes {
    /// stdin and what is left to write to it; dropped (closed) once written or refused.
    stdin: Option<(OwnedFd, Vec<u8>)>,
    /// stdout then stderr while open, and what was read of each.
    outputs: [(Option<OwnedFd>, ByteTail); 2],
    /// Readable once the program exits (Linux's pidfd), so the loop wakes at its exit; `None`
    /// once it has, or where there is none.
    exit: Option<OwnedFd>,
}

impl Pipes {
    fn take(child: &mut Child, stdin: Option<&[u8]>, keep: Option<usize>) -> std::io::Result<Self> {
        let tail = || keep.map_or_else(ByteTail::unbounded, ByteTail::new);
        let stdin = match (child.stdin.take(), stdin) {
            (Some(pipe), Some(data)) if !data.is_empty() => {
                Some((OwnedFd::from(pipe), data.to_vec()))
            }
            _ => None, // nothing to write: the pipe closes here
        };
        let stdout = child.stdout.take().map(OwnedFd::from);
        let stderr = child.stderr.take().map(OwnedFd::from);
        for fd in stdin.iter().map(|(fd, _)| fd).chain(&stdout).chain(&stderr) {
            rustix::io::ioctl_fionbio(fd, true)?;
        }
        Ok(Pipes {
            stdin,
            outputs: [(stdout, tail()), (stderr, tail())],
            exit: exit_fd(child),
        })
    }

    /// Whether stdout or stderr is still open.
    fn open(&self) -> bool {
        self.outputs.iter().any(|(fd, _)| fd.is_some())
    }

    /// Waits up to `timeout` for a pipe to be ready, then writes and reads what it can.
    fn pump(&mut self, timeout: Duration) {
        let ready = {
            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(3);
            if let Some((fd, _)) = &self.stdin {
                fds.push(PollFd::new(fd, PollFlags::OUT));
            }
            for (fd, _) in &self.outputs {
                if let Some(fd) = fd {
                    fds.push(PollFd::new(fd, PollFlags::IN));
                }
            }
            let pipes = fds.len();
            if let Some(fd) = &self.exit {
                fds.push(PollFd::new(fd, PollFlags::IN));
            }
            if fds.is_empty() {
                std::thread::sleep(timeout.min(EXIT_POLL));
                return;
            }
            let timeout = Timespec::try_from(timeout).ok();
            match poll(&mut fds, timeout.as_ref()) {
                Ok(n) => n > 0 && fds[..pipes].iter().any(|fd| !fd.revents().is_empty()),
                Err(_) => false, // EINTR (a signal: the caller looks at its flag) or worse
            }
        };
        if ready {
            self.write_stdin();
            for (fd, tail) in &mut self.outputs {
                read_into(fd, tail);
            }
        }
    }

    /// Writes what the pipe takes now; a program that closed its stdin gets no more.
    fn write_stdin(&mut self) {
        let Some((fd, data)) = &mut self.stdin else {
            return;
        };
        match rustix::io::write(&*fd, data.as_slice()) {
            Ok(n) => {
                data.drain(..n);
                if data.is_empty() {
                    self.stdin = None;
                }
            }
            Err(Errno::AGAIN | Errno::INTR) => {}
            Err(_) => self.stdin = None,
        }
    }

    fn finish(self, status: ExitStatus) -> Finished {
        let [(_, out), (_, err)] = self.outputs;
        let (stdout, out_dropped) = out.finish();
        let (stderr, err_dropped) = err.finish();
        Finished {
            status,
            stdout,
            stderr,
            dropped: out_dropped + err_dropped,
        }
    }
}

/// A descriptor that becomes readable when `child` exits, where the system has one.
#[cfg(target_os = "linux")]
fn exit_fd(child: &Child) -> Option<OwnedFd> {
    let pid = i32::try_from(child.id()).ok().and_then(Pid::from_raw)?;
    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
}

#[cfg(not(target_os = "linux"))]
fn exit_fd(_child: &Child) -> Option<OwnedFd> {
    None
}

/// Reads what `fd` holds now into `tail` (a bounded number of chunks, so one busy stream
/// cannot keep the loop from looking at the exit); closes it at its end.
fn read_into(fd: &mut Option<OwnedFd>, tail: &mut ByteTail) {
    let Some(pipe) = fd else {
        return;
    };
    let mut buf = [0u8; CHUNK];
    for _ in 0..16 {
        match rustix::io::read(&*pipe, &mut buf) {
            Ok(0) => {
                *fd = None;
                return;
            }
            Ok(n) => tail.push(&buf[..n]),
            Err(Errno::AGAIN | Errno::INTR) => return,
            Err(_) => {
                *fd = None;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_output_and_feeds_stdin() {
        let done =
            run_bounded(Command::new("cat"), Some(b"hello"), Duration::from_secs(5)).unwrap();
        assert!(done.status.success());
        assert_eq!(done.stdout, b"hello");
    }

    #[test]
    fn a_hung_child_is_killed_at_the_bound() {
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let started = std::time::Instant::now();
        let res = run_bounded(cmd, None, Duration::from_millis(200));
        assert!(matches!(res, Err(RunError::TimedOut)));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_timed_out_shell_takes_its_children_along() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survived");
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("(sleep 1; touch '{}') & wait", marker.display()));
        let res = run_bounded(cmd, None, Duration::from_millis(100));
        assert!(matches!(res, Err(RunError::TimedOut)));
        std::thread::sleep(Duration::from_millis(1500));
        assert!(!marker.exists(), "the shell's child outlived the bound");
    }

    #[test]
    fn large_output_does_not_wedge_the_pipe() {
        let mut cmd = Command::new("head");
        cmd.args(["-c", "1000000", "/dev/zero"]);
        let done = run_bounded(cmd, None, Duration::from_secs(10)).unwrap();
        assert_eq!(done.stdout.len(), 1_000_000);
    }

    fn shell(script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(script);
        cmd
    }

    #[test]
    fn the_exit_decides_though_a_background_child_holds_the_pipes() {
        let started = std::time::Instant::now();
        let done = run_bounded(
            shell("echo done; (sleep 30 &) ; exit 0"),
            None,
            Duration::from_secs(10),
        )
        .unwrap();
        assert!(done.status.success());
        assert_eq!(done.stdout, b"done\n");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn the_stop_flag_kills_the_group_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survived");
        let flag = AtomicBool::new(false);
        let script = format!("(sleep 1; touch '{}') & sleep 30", marker.display());
        let started = std::time::Instant::now();
        let res = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                flag.store(true, Ordering::Relaxed);
            });
            let watch = Watch {
                cancel: Some(&flag),
                ..Watch::default()
            };
            run_watched(shell(&script), None, Duration::from_secs(20), watch)
        });
        assert!(matches!(res, Err(RunError::Interrupted)), "{res:?}");
        assert!(started.elapsed() < Duration::from_secs(3));
        std::thread::sleep(Duration::from_millis(1500));
        assert!(!marker.exists(), "the check's child outlived the stop");
    }

    #[test]
    fn end_group_ends_what_the_program_left_running() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survived");
        let script = format!(
            "(sleep 1; touch '{}') >/dev/null 2>&1 & exit 0",
            marker.display()
        );
        let watch = Watch {
            end_group: true,
            ..Watch::default()
        };
        let done = run_watched(shell(&script), None, Duration::from_secs(10), watch).unwrap();
        assert!(done.status.success());
        std::thread::sleep(Duration::from_millis(1500));
        assert!(!marker.exists(), "the check's daemon outlived it");
    }

    #[test]
    fn keep_bounds_what_is_held_and_counts_the_rest() {
        let watch = Watch {
            keep: Some(1000),
            ..Watch::default()
        };
        let script = "head -c 3000000 /dev/zero; printf end; printf err >&2";
        let done = run_watched(shell(script), None, Duration::from_secs(10), watch).unwrap();
        assert_eq!(done.stdout.len(), 1000);
        assert!(done.stdout.ends_with(b"end"));
        assert_eq!(done.stderr, b"err");
        assert_eq!(done.dropped, 3_000_003 - 1000);
    }

    #[test]
    fn a_large_stdin_a_child_never_reads_does_not_wedge_it() {
        let data = vec![b'x'; 1_000_000];
        let done = run_bounded(shell("exit 3"), Some(&data), Duration::from_secs(5)).unwrap();
        assert_eq!(done.status.code(), Some(3));
    }
}
