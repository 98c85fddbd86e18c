//! `Test`: one run of `umbel` in a sandbox, written as one chain in the style of `just`'s
//! `tests/test.rs` — arguments, environment and stdin, then what stdout and stderr must hold,
//! then the finisher that runs it and checks the exit status (`.success()`, `.status(n)`,
//! `.run()` for no status check, `.json()` for stdout parsed). Every check failing prints the
//! command, its status, stdout and stderr in one panic that points at the test's line
//! (`#[track_caller]` all the way down).
//!
//! ```ignore
//! let sb = Sandbox::new();
//! sb.umbel(["send", "w1", "hello"]).success();
//! let outcome = sb.umbel(["wait", "w1", "--json"]).status(122).json();
//! sb.umbel(["read", "w1"]).stdout("Response to: hello\n").success();
//! ```
//!
//! `.start()` runs umbel in the background instead (`Running`), for a test that signals it or
//! acts while it waits; its finishers check the same expectations.

use super::Running;
use super::Sandbox;
use serde_json::Value;
use std::ffi::{OsStr, OsString};
use std::process::Output;

/// One expectation on a stream's text.
#[derive(Debug)]
enum Expect {
    /// Exactly this text.
    Is(String),
    /// This text somewhere.
    Has(String),
}

impl Expect {
    /// The complaint when `text` misses the expectation, or None.
    fn check(&self, stream: &str, text: &str) -> Option<String> {
        match self {
            Expect::Is(want) if text != want => Some(format!(
                "{stream} differs\n--- expected\n{want}\n--- actual\n{text}\n---"
            )),
            Expect::Has(want) if !text.contains(want.as_str()) => {
                Some(format!("{stream} lacks {want:?}"))
            }
            _ => None,
        }
    }
}

/// `umbel ARGS` in a sandbox, not yet run: built by [`Sandbox::umbel`].
#[must_use = "a Test runs only at its finisher: .success(), .status(n), .run() or .json()"]
pub struct Test<'a> {
    sandbox: &'a Sandbox,
    args: Vec<OsString>,
    env: Vec<(String, String)>,
    stdin: Option<Vec<u8>>,
    stdout: Vec<Expect>,
    stderr: Vec<Expect>,
}

impl<'a> Test<'a> {
    pub(super) fn new(sandbox: &'a Sandbox) -> Self {
        Test {
            sandbox,
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
        }
    }

    /// More arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// One more variable in umbel's environment, for this run only.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// Bytes piped to umbel's stdin (without it, stdin is empty).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// stdout must be exactly `text`.
    pub fn stdout(mut self, text: impl Into<String>) -> Self {
        self.stdout.push(Expect::Is(text.into()));
        self
    }

    /// stdout must contain `text`; `.stderr_has` is the same for stderr.
    pub fn stdout_has(mut self, text: impl Into<String>) -> Self {
        self.stdout.push(Expect::Has(text.into()));
        self
    }

    /// stderr must contain `text` (checked after the run, with every other expectation).
    pub fn stderr_has(mut self, text: impl Into<String>) -> Self {
        self.stderr.push(Expect::Has(text.into()));
        self
    }

    /// Runs it; checks the output expectations, not the exit status.
    #[track_caller]
    pub fn run(self) -> Ran {
        let output = self.run_unchecked();
        self.finish(output, None)
    }

    /// Runs it; it must exit 0.
    #[track_caller]
    pub fn success(self) -> Ran {
        let output = self.run_unchecked();
        self.finish(output, Some(0))
    }

    /// Runs it; it must exit with `code`.
    #[track_caller]
    pub fn status(self, code: i32) -> Ran {
        let output = self.run_unchecked();
        self.finish(output, Some(code))
    }

    /// Runs it (no status check) and parses its stdout as JSON.
    #[track_caller]
    pub fn json(self) -> Value {
        self.run().json()
    }

    /// Starts it in the background (stdin what `.stdin` gave, else empty; stdout and stderr
    /// captured); its finishers check this Test's expectations.
    #[track_caller]
    pub fn start(self) -> Running<'a> {
        Running::new(self, false)
    }

    /// Starts it in the background with its stdin kept open (no `.stdin`), to speak to it line by line
    /// ([`Running::write_line`], [`Running::read_line`]).
    #[track_caller]
    pub fn talk(self) -> Running<'a> {
        Running::new(self, true)
    }

    /// The bytes `.stdin` gave, if any.
    pub(super) fn stdin_bytes(&self) -> Option<&[u8]> {
        self.stdin.as_deref()
    }

    /// The lower-level command under [`Test::start`]: stdin null, stdout and stderr piped.
    pub(super) fn process(&self) -> std::process::Command {
        let mut cmd = self.sandbox.process(&[] as &[&str]);
        cmd.args(&self.args).envs(self.env.iter().cloned());
        cmd
    }

    #[track_caller]
    fn run_unchecked(&self) -> Output {
        let mut cmd = self.sandbox.command();
        cmd.args(&self.args).envs(self.env.iter().cloned());
        if let Some(bytes) = &self.stdin {
            cmd.write_stdin(bytes.clone());
        }
        cmd.output().expect("run umbel")
    }

    /// Checks `output` against every expectation (and `status`), one panic for all misses.
    #[track_caller]
    pub(super) fn finish(self, output: Output, status: Option<i32>) -> Ran {
        let ran = Ran {
            what: self.describe(),
            output,
        };
        let (stdout, stderr) = (ran.stdout(), ran.stderr());
        let mut misses: Vec<String> = Vec::new();
        if let Some(code) = status.filter(|code| ran.code() != Some(*code)) {
            misses.push(format!("exit status {:?}, not {code}", ran.code()));
        }
        misses.extend(
            self.stdout
                .iter()
                .filter_map(|e| e.check("stdout", &stdout)),
        );
        misses.extend(
            self.stderr
                .iter()
                .filter_map(|e| e.check("stderr", &stderr)),
        );
        if !misses.is_empty() {
            ran.fail(&misses.join("\n"));
        }
        ran
    }

    fn describe(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| format!("{:?}", a.to_string_lossy()))
            .collect();
        format!("umbel {}", args.join(" "))
    }
}

/// A finished run of umbel: its output (also reachable through `Deref`) and what it was.
pub struct Ran {
    what: String,
    output: Output,
}

impl std::ops::Deref for Ran {
    type Target = Output;
    fn deref(&self) -> &Output {
        &self.output
    }
}

impl Ran {
    /// The exit code (None when a signal ended it).
    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    /// stdout as text.
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// stderr as text.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// stdout without surrounding whitespace (a position `send` printed, a one-word outcome).
    pub fn line(&self) -> String {
        self.stdout().trim().to_string()
    }

    /// stdout parsed as JSON.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.output.stdout)
            .unwrap_or_else(|e| self.fail(&format!("stdout is not JSON ({e})")))
    }

    /// Asserts a zero exit (for a run whose finisher could not check it, e.g. one of several
    /// started side by side).
    #[track_caller]
    pub fn assert_success(&self) {
        if self.code() != Some(0) {
            self.fail("it failed");
        }
    }

    /// Panics with `why`, the command, its status and both streams.
    #[track_caller]
    pub fn fail(&self, why: &str) -> ! {
        panic!(
            "{why}\ncommand: {}\nstatus: {:?}\n--- stdout\n{}\n--- stderr\n{}\n---",
            self.what,
            self.code(),
            self.stdout(),
            self.stderr()
        )
    }
}
