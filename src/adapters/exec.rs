//! Running a child process with a hard time bound: its output is collected on helper threads
//! (so a full pipe cannot wedge it) and, when the bound passes, it is killed with everything it
//! started (it runs in its own process group, so `sh -c 'sleep 99'` leaves no `sleep` behind).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// What a bounded run produced.
#[derive(Debug)]
pub struct Finished {
    pub status: std::process::ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Why a bounded run did not finish.
#[derive(Debug)]
pub enum RunError {
    /// The program could not be started.
    Spawn(std::io::Error),
    /// It did not finish in time and was killed.
    TimedOut,
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

/// Runs `program` (its `argv` must not be empty) like [`run_bounded`].
pub fn run_program(
    program: &Program,
    stdin: Option<&[u8]>,
    bound: Duration,
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
    run_bounded(cmd, stdin, bound)
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

/// Runs `cmd` with `stdin` fed in, waiting at most `bound`.
pub fn run_bounded(
    mut cmd: Command,
    stdin: Option<&[u8]>,
    bound: Duration,
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
    let pid = child.id();
    if let (Some(data), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let data = data.to_vec();
        // A writer thread, so a child that does not read cannot block us past the bound.
        thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
    }
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(collect(&mut child));
    });
    match rx.recv_timeout(bound) {
        Ok(Ok(done)) => Ok(done),
        Ok(Err(e)) => Err(RunError::Spawn(e)),
        Err(_) => {
            if let Some(group) = rustix::process::Pid::from_raw(pid as i32) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
            Err(RunError::TimedOut)
        }
    }
}

fn collect(child: &mut Child) -> std::io::Result<Finished> {
    let mut stderr_pipe = child.stderr.take();
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(pipe) = stderr_pipe.as_mut() {
            let _ = pipe.read_to_end(&mut buf);
        }
        buf
    });
    let mut stdout = Vec::new();
    if let Some(mut pipe) = child.stdout.take() {
        pipe.read_to_end(&mut stdout)?;
    }
    let status = child.wait()?;
    let stderr = err_reader.join().unwrap_or_default();
    Ok(Finished {
        status,
        stdout,
        stderr,
    })
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
}
