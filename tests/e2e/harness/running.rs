//! `Running`: a [`Test`] started in the background, for a test that acts while umbel runs —
//! signals it, writes files it waits for, speaks to `umbel mcp` line by line, reads a stream as
//! it comes. Its finishers (`.success()`, `.status(n)`, `.run()`) wait for the exit and check the
//! Test's expectations as `Test`'s own finishers do.

use super::{Ran, Test};
use rustix::process::Signal;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

/// umbel running in the background ([`Test::start`], [`Test::talk`]).
pub struct Running<'a> {
    child: Child,
    test: Test<'a>,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
}

impl<'a> Running<'a> {
    #[track_caller]
    pub(super) fn new(test: Test<'a>, talk: bool) -> Self {
        let mut cmd = test.process();
        let bytes = test.stdin_bytes().map(<[u8]>::to_vec);
        if talk || bytes.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd.spawn().expect("start umbel");
        let mut stdin = child.stdin.take();
        if let Some(bytes) = bytes {
            // A thread, so a large input cannot block on a child busy writing its output.
            let mut pipe = stdin.take().expect("stdin pipe");
            std::thread::spawn(move || pipe.write_all(&bytes));
        }
        Running {
            child,
            test,
            stdin,
            stdout: None,
        }
    }

    /// The process id.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends SIGINT (a Ctrl-C).
    pub fn interrupt(&self) {
        self.signal(Signal::INT);
    }

    /// Sends `signal`.
    pub fn signal(&self, signal: Signal) {
        let pid = rustix::process::Pid::from_raw(self.pid()).expect("pid");
        rustix::process::kill_process(pid, signal).expect("send the signal");
    }

    /// Kills it (SIGKILL) and reaps it, whatever it would have printed.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Whether it still runs.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    /// Writes `line` and a newline to its stdin ([`Test::talk`]).
    pub fn write_line(&mut self, line: impl AsRef<[u8]>) {
        let stdin = self
            .stdin
            .as_mut()
            .expect("stdin is open: start it with .talk()");
        stdin.write_all(line.as_ref()).expect("write stdin");
        stdin.write_all(b"\n").expect("write stdin");
    }

    /// Closes its stdin (the end of input).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line of its stdout, without the newline (waits for it). The finishers' stdout
    /// holds only what was not read this way.
    #[track_caller]
    pub fn read_line(&mut self) -> String {
        let out = self.child.stdout.take();
        let reader = self
            .stdout
            .get_or_insert_with(|| BufReader::new(out.expect("stdout")));
        let mut line = String::new();
        reader.read_line(&mut line).expect("read stdout");
        assert!(!line.is_empty(), "stdout ended");
        line.trim_end_matches('\n').to_string()
    }

    /// Waits for it; checks the output expectations, not the exit status.
    #[track_caller]
    pub fn run(self) -> Ran {
        let (test, output) = self.wait();
        test.finish(output, None)
    }

    /// Waits for it; it must exit 0.
    #[track_caller]
    pub fn success(self) -> Ran {
        self.status(0)
    }

    /// Waits for it; it must exit with `code`.
    #[track_caller]
    pub fn status(self, code: i32) -> Ran {
        let (test, output) = self.wait();
        test.finish(output, Some(code))
    }

    /// Waits for the exit (stdin left as it is until then) and collects the output.
    #[track_caller]
    fn wait(mut self) -> (Test<'a>, std::process::Output) {
        let _stdin = self.stdin.take();
        let mut rest = Vec::new();
        if let Some(reader) = &mut self.stdout {
            reader.read_to_end(&mut rest).expect("read stdout");
        }
        let mut output = self.child.wait_with_output().expect("wait for umbel");
        rest.append(&mut output.stdout);
        output.stdout = rest;
        (self.test, output)
    }
}
