//! The e2e harness: a [`Sandbox`] per test (state root, HOME with a claude config, a project
//! folder, TMUX_TMPDIR, so a private tmux server) and [`Test`], the builder every test runs
//! `umbel` through: `sb.umbel([..])` or `sb.cmd("..")`, then expectations, then a finisher
//! (test.rs). [`Running`] is a Test started in the background (running.rs); `sim` names the
//! common scenarios. Dropping the sandbox kills every worker through `umbel kill --all
//! --purge`, so no tmux server outlives its test; tests never run tmux themselves.
//!
//! Lower-level calls remain only where a test cannot go through `Test`:
//! - `Sandbox::pty_command`: `umbel` in a pseudo-terminal under rexpect (attach.rs,
//!   progress.rs, faults_input.rs's terminal `read`), which needs the bare command.
//! - `Sandbox::process`: the command rmcp's `TokioChildProcess` transport spawns (mcp/client.rs).
//! - `Sandbox::run` and `Sandbox::command`: the benches (benches/latency.rs, benches/figures).
//! - `assert_success` and `stdout` on a plain `Output`: programs other than umbel — bash
//!   driving the completion script (inspect.rs, cli_answers.rs), the real CLIs' own print
//!   modes (tiers.rs), the model server and git of the real tier (real.rs); hooks.rs runs the
//!   hook script under `sh` with a fake `date`; reference.rs runs `scripts/try.sh --check`
//!   (the docs' commands in `just try`'s own sandbox, with its own state root and TMUX_TMPDIR).
//! - `top_pane::TopPane`: `umbel top` in a tmux pane (a real terminal to type keys into and
//!   read the screen of), started by the pane's shell with `Sandbox::env` (top.rs, the bench).
//! - `sandbox_tmux`, `umbel::operations::Ctx::from_env`: a test playing the person at the
//!   keyboard, or calling umbel's library to count tmux calls or poll a pane (fleet.rs,
//!   inspect.rs, faults.rs, tiers.rs, secrets.rs, faults_state.rs).

#![allow(dead_code, unused_imports)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

mod pause;
mod running;
pub mod sim;
mod test;
pub use pause::Pause;
pub use running::Running;
pub use test::{Ran, Test};

/// The fake binary built by the `sim` crate.
pub fn fake(name: &str) -> PathBuf {
    let path = assert_cmd::cargo::cargo_bin(name);
    assert!(
        path.exists(),
        "{} is missing: build the fakes first (`just test`, or `cargo build -p sim --bins`)",
        path.display()
    );
    path
}

/// One test's private world.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub state: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
    pub record: PathBuf,
    vars: Vec<(String, String)>,
    /// The model server the real CLIs talk to (the offline tier only).
    pub(crate) model: Option<std::process::Child>,
}

impl Sandbox {
    /// A sandbox whose claude is onboarded and trusts the project folder.
    pub fn new() -> Self {
        let sandbox = Sandbox::bare();
        sandbox.claude_config(true);
        sandbox
    }

    /// A sandbox whose claude is onboarded but has never seen the project (trust dialog).
    pub fn untrusted() -> Self {
        let sandbox = Sandbox::bare();
        sandbox.claude_config(false);
        sandbox
    }

    /// A sandbox with no claude config at all (first run: onboarding).
    pub fn bare() -> Self {
        // Short path: tmux socket paths must stay under 108 bytes.
        let dir = tempfile::Builder::new()
            .prefix("u")
            .tempdir_in("/tmp")
            .expect("tempdir");
        let root = dir.path().to_path_buf();
        let mk = |name: &str| {
            let p = root.join(name);
            std::fs::create_dir_all(&p).expect("mkdir");
            p.canonicalize().expect("canonicalize")
        };
        let (state, home, project, record, tmux) = (
            root.join("state"),
            mk("home"),
            mk("project"),
            mk("record"),
            mk("t"),
        );
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
        let vars = vec![
            ("PATH".to_string(), path),
            ("HOME".to_string(), home.to_string_lossy().into_owned()),
            ("LANG".to_string(), "C.UTF-8".to_string()),
            (
                "UMBEL_STATE".to_string(),
                state.to_string_lossy().into_owned(),
            ),
            (
                "TMUX_TMPDIR".to_string(),
                tmux.to_string_lossy().into_owned(),
            ),
            (
                "UMBEL_CLAUDE_BIN".to_string(),
                fake("fake-claude").to_string_lossy().into_owned(),
            ),
            (
                "UMBEL_CODEX_BIN".to_string(),
                fake("fake-codex").to_string_lossy().into_owned(),
            ),
            (
                "UMBEL_GEMINI_BIN".to_string(),
                fake("fake-gemini").to_string_lossy().into_owned(),
            ),
            (
                "UMBEL_QWEN_BIN".to_string(),
                fake("fake-qwen").to_string_lossy().into_owned(),
            ),
            (
                "UMBEL_OPENCODE_BIN".to_string(),
                fake("fake-opencode").to_string_lossy().into_owned(),
            ),
            (
                "UMBEL_COPILOT_BIN".to_string(),
                fake("fake-copilot").to_string_lossy().into_owned(),
            ),
            // copilot's own token variable (inherited by copilot workers only), so copilot does
            // not ask to `/login` (fake; nothing talks to a network).
            ("COPILOT_GITHUB_TOKEN".to_string(), "fake-token".to_string()),
            // qwen's DashScope key (not OPENAI_API_KEY, which would sign codex in too), so
            // qwen does not open "Connect a Provider" (fake; nothing talks to a network).
            ("DASHSCOPE_API_KEY".to_string(), "fake-key".to_string()),
            // A key in umbel's environment, inherited by gemini workers, so gemini does not ask
            // how to sign in (it is fake; nothing talks to a network).
            ("GEMINI_API_KEY".to_string(), "fake-key".to_string()),
            // claude refuses bypass mode (`--unattended`) as root unless the user declares a
            // sandbox; the tests run as root in CI, and are one. Inherited by claude workers.
            ("IS_SANDBOX".to_string(), "1".to_string()),
        ];
        Sandbox {
            _dir: dir,
            root,
            state,
            home,
            project,
            record,
            vars,
            model: None,
        }
    }

    fn claude_config(&self, trusted: bool) {
        let mut config = json!({ "hasCompletedOnboarding": true, "theme": "dark" });
        if trusted {
            config["projects"] = json!({
                self.project.to_string_lossy(): { "hasTrustDialogAccepted": true }
            });
        }
        std::fs::write(self.home.join(".claude.json"), config.to_string()).expect("write config");
    }

    /// Adds or replaces a variable of umbel's environment.
    pub fn var(&mut self, key: &str, value: &str) -> &mut Self {
        self.vars.retain(|(k, _)| k != key);
        self.vars.push((key.to_string(), value.to_string()));
        self
    }

    /// Removes a variable from umbel's environment.
    pub fn unset(&mut self, key: &str) -> &mut Self {
        self.vars.retain(|(k, _)| k != key);
        self
    }

    /// umbel's environment in this sandbox (for calling umbel's library directly).
    pub fn env(&self) -> Vec<(String, String)> {
        self.vars.clone()
    }

    /// `umbel ARGS` in this sandbox, as a [`Test`] to chain expectations onto.
    pub fn umbel<I, S>(&self, args: I) -> Test<'_>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        Test::new(self).args(args)
    }

    /// `umbel WORDS` as a [`Test`], the words split at whitespace (for arguments without
    /// spaces: `sb.cmd("wait w1 --json --timeout 30s")`).
    pub fn cmd(&self, words: &str) -> Test<'_> {
        self.umbel(words.split_whitespace())
    }

    /// An `umbel` command in this sandbox (clean environment, project folder as cwd): the
    /// lower level under [`Test`].
    pub fn command(&self) -> Command {
        let mut cmd = Command::cargo_bin("umbel").expect("umbel binary");
        cmd.env_clear()
            .envs(self.vars.iter().cloned())
            .current_dir(&self.project);
        cmd.timeout(std::time::Duration::from_secs(90));
        cmd
    }

    /// A plain `std::process::Command` for `umbel ARGS`: stdin null, stdout and stderr piped
    /// (under [`Test::start`], and for rmcp's child-process transport).
    pub fn process(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("umbel"));
        cmd.env_clear()
            .envs(self.vars.iter().cloned())
            .current_dir(&self.project)
            .args(args);
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        cmd
    }

    /// `umbel ARGS` with no stdio set, for running in a pseudo-terminal (rexpect).
    pub fn pty_command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("umbel"));
        cmd.env_clear()
            .envs(self.vars.iter().cloned())
            .env("TERM", "xterm-256color")
            .current_dir(&self.project)
            .args(args);
        cmd
    }

    /// Pids of this sandbox's private tmux server (found in /proc: tests never run tmux). The
    /// server is the daemonised copy of its first client and keeps its command line.
    pub fn tmux_servers(&self) -> Vec<i32> {
        let socket = umbel::core::socket::socket_name(&self.state);
        live_processes(|dir| {
            let cmd = std::fs::read(dir.join("cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            Some(cmd.starts_with("tmux ") && cmd.contains(&format!(" -L {socket} ")))
        })
    }

    /// Runs `umbel ARGS` and returns its output (the benches' lower level; tests use `Test`).
    pub fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("run umbel")
    }

    /// Writes `text` to `path` (relative: under the project folder), making its parents, and
    /// returns the full path.
    #[track_caller]
    pub fn write(&self, path: impl AsRef<Path>, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.project.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// [`Sandbox::write`], then makes the file executable (a check script, a fake CLI).
    #[track_caller]
    pub fn write_executable(&self, path: impl AsRef<Path>, text: impl AsRef<[u8]>) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.write(path, text);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    /// Writes a scenario file and returns its path (for a workflow worker's
    /// `UMBEL_SIM_SCENARIO`).
    pub fn scenario_file(&self, name: &str, scenario: Value) -> String {
        let env = self.scenario(name, scenario);
        env.trim_start_matches("UMBEL_SIM_SCENARIO=").to_string()
    }

    /// Writes a scenario file and returns the `--env` argument that hands it to the fake.
    #[track_caller]
    pub fn scenario(&self, name: &str, scenario: Value) -> String {
        let path = self.root.join(format!("{name}.json"));
        std::fs::write(&path, scenario.to_string()).expect("write scenario");
        if self.model.is_some() {
            // The real CLIs' model server plays the same scenario.
            crate::real::play(self, &scenario);
        }
        format!("UMBEL_SIM_SCENARIO={}", path.display())
    }

    /// The `--env` argument that makes the fake record prompts byte-exact.
    pub fn record_env(&self) -> String {
        format!("UMBEL_SIM_RECORD_DIR={}", self.record.display())
    }

    /// The prompts the fake received, in order.
    pub fn received(&self) -> Vec<Vec<u8>> {
        (1..)
            .map(|n| self.record.join(format!("prompt-{n}.txt")))
            .take_while(|p| p.exists())
            .map(|p| std::fs::read(p).expect("read record"))
            .collect()
    }

    /// Spawns worker `name` with extra arguments; panics with umbel's stderr on failure.
    #[track_caller]
    pub fn spawn(&self, name: &str, extra: &[&str]) {
        self.umbel(["spawn", "--name", name]).args(extra).success();
    }

    /// Spawns worker `name` playing `scenario` (written as `<name>.json`), with `extra` spawn
    /// arguments after its `--env`.
    #[track_caller]
    pub fn spawn_playing(&self, name: &str, scenario: Value, extra: &[&str]) {
        let env = self.scenario(name, scenario);
        self.spawn(name, &[&["--env", env.as_str()], extra].concat());
    }

    /// Sends `prompt` to worker `name` (it must be accepted) and returns the `wait NAME` that
    /// follows, for the caller to add flags and expectations to.
    #[track_caller]
    pub fn turn(&self, name: &str, prompt: &str) -> Test<'_> {
        self.umbel(["send", name, prompt]).success();
        self.umbel(["wait", name])
    }

    /// One turn to its end: [`Sandbox::turn`], waiting with `--json --timeout 30s`, which must
    /// exit with `code`; the outcome, parsed.
    #[track_caller]
    pub fn turn_outcome(&self, name: &str, prompt: &str, code: i32) -> Value {
        let wait = self.turn(name, prompt).args(["--json", "--timeout", "30s"]);
        wait.status(code).json()
    }

    /// A worker's session folder.
    pub fn session_dir(&self, name: &str) -> PathBuf {
        self.state.join("sessions").join(name)
    }

    /// The names of workers with a folder.
    pub fn worker_dirs(&self) -> Vec<String> {
        match std::fs::read_dir(self.state.join("sessions")) {
            Ok(entries) => entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// `umbel ls --json`, parsed.
    #[track_caller]
    pub fn ls(&self) -> Vec<Value> {
        let ls = self.umbel(["ls", "--json"]).success().json();
        serde_json::from_value(ls).expect("ls json")
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if std::env::var_os("UMBEL_TEST_KEEP").is_some() && std::thread::panicking() {
            // Debugging aid: keep the failed test's sandbox (workers stay up too).
            let dir = std::mem::replace(&mut self._dir, tempfile::tempdir().expect("tempdir"));
            eprintln!("kept sandbox {}", dir.keep().display());
            return;
        }
        let _ = self.command().args(["kill", "--all", "--purge"]).output();
        if let Some(mut model) = self.model.take() {
            let enters = crate::real::enters_over_two(&self.root.join("state"));
            crate::real::reap(&self.root);
            let _ = model.kill();
            let _ = model.wait();
            assert!(
                enters.is_empty() || std::thread::panicking(),
                "sends on the real CLI that took more than 2 Enters: {enters:?}"
            );
        }
    }
}

/// Starts every test at once, waits for all, and asserts a race with one winner: one exited 0
/// and another 1. Returns the first that failed.
#[track_caller]
pub fn race<'a>(tests: impl IntoIterator<Item = Test<'a>>) -> Ran {
    let running: Vec<Running> = tests.into_iter().map(Test::start).collect();
    let runs: Vec<Ran> = running.into_iter().map(Running::run).collect();
    let codes: Vec<_> = runs.iter().map(Ran::code).collect();
    assert!(
        codes.contains(&Some(0)) && codes.contains(&Some(1)),
        "{codes:?}"
    );
    let loser = runs.into_iter().find(|o| !o.status.success());
    loser.expect("a loser")
}

/// `len` bytes of text: the alphabet over and over, a newline every `width` bytes.
pub fn text_of(len: u32, width: u32) -> Vec<u8> {
    let byte = |i: u32| match i % width == width - 1 {
        true => b'\n',
        false => b'a' + (i % 26) as u8,
    };
    (0..len).map(byte).collect()
}

/// The providers every shared test runs against.
pub const PROVIDERS: [&str; 6] = ["claude", "codex", "gemini", "qwen", "opencode", "copilot"];

/// Generates one `#[test]` per provider for each named function `fn(provider: &str)`, in a
/// module named after the provider (one line per provider below).
#[macro_export]
macro_rules! each_provider {
    ($($test:ident),* $(,)?) => {
        $crate::each_provider!(@for claude; $($test),*);
        $crate::each_provider!(@for codex; $($test),*);
        $crate::each_provider!(@for gemini; $($test),*);
        $crate::each_provider!(@for qwen; $($test),*);
        $crate::each_provider!(@for opencode; $($test),*);
        $crate::each_provider!(@for copilot; $($test),*);
    };
    (@for $provider:ident; $($test:ident),*) => {
        mod $provider {
            $( #[test] fn $test() { super::$test(stringify!($provider)) } )*
        }
    };
}

/// The pids of processes whose HOME lies in this sandbox (a worker's CLI and anything it
/// started), zombies excluded.
pub fn processes_under(root: &Path) -> Vec<i32> {
    let home = format!("HOME={}", root.join("home").display());
    live_processes(|dir| {
        let environ = std::fs::read(dir.join("environ")).ok()?;
        Some(
            environ
                .split(|b| *b == 0)
                .any(|kv| kv.starts_with(home.as_bytes())),
        )
    })
}

/// The pids of live (not zombie) processes whose `/proc/PID` folder `ours` accepts.
fn live_processes(ours: impl Fn(&Path) -> Option<bool>) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_string_lossy().parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            (ours(&e.path())? && !stat.contains(") Z")).then_some(pid)
        })
        .collect()
}

/// umbel's tmux adapter pointed at this sandbox's private server (tests never run tmux
/// themselves; this is how a test plays the person at the keyboard).
pub fn sandbox_tmux(sb: &Sandbox) -> umbel::adapters::tmux::Tmux {
    let env = vec![
        (
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        ),
        (
            "TMUX_TMPDIR".to_string(),
            sb.root.join("t").to_string_lossy().into_owned(),
        ),
    ];
    umbel::adapters::tmux::Tmux::new(umbel::core::socket::socket_name(&sb.state), &env)
}

/// Waits until worker `name`'s screen satisfies `shows` (a person watching it), at most
/// `within`; panics saying `what` never showed.
#[track_caller]
pub fn await_screen(
    sb: &Sandbox,
    name: &str,
    what: &str,
    within: std::time::Duration,
    shows: impl Fn(&str) -> bool,
) {
    let tmux = sandbox_tmux(sb);
    let session = format!("umbel-{name}");
    let deadline = std::time::Instant::now() + within;
    while !tmux.capture(&session, false).is_ok_and(|s| shows(&s)) {
        assert!(std::time::Instant::now() < deadline, "{what} never showed");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Asserts a zero exit, showing stdout and stderr otherwise.
pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed with {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The answers of a `read --all --json` array, oldest first.
/// The fleet events `umbel events --json ARGS…` prints of one kind (`answered`, …).
pub fn events_of(sb: &Sandbox, args: &[&str], event: &str) -> Vec<Value> {
    let out = sb
        .umbel([&["events", "--json"], args].concat())
        .success()
        .stdout();
    out.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == event)
        .collect()
}

pub fn answers_of(all: &Value) -> Vec<&str> {
    all.as_array()
        .unwrap_or_else(|| panic!("not an array of turns: {all}"))
        .iter()
        .filter_map(|t| t["answer"].as_str())
        .collect()
}

/// Asserts that within 10 s no process is left whose HOME lies under `root` (`what` says whose).
#[track_caller]
pub fn assert_no_process_left(root: &Path, what: &str) {
    let gone = eventually(std::time::Duration::from_secs(10), || {
        processes_under(root).is_empty()
    });
    assert!(gone, "{what}: left running: {:?}", processes_under(root));
}

/// Polls `done` every 50 ms for up to `limit`; whether it came true.
pub fn eventually(limit: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    done()
}

impl Sandbox {
    /// Waits (up to a minute) until worker `name`'s screen shows `text` — a turn streaming its
    /// answer, say — instead of guessing how long that takes.
    pub fn until_screen(&self, name: &str, text: &str) {
        let mut last = String::new();
        let mut shows = || {
            last = self.umbel(["capture", name]).run().stdout();
            last.contains(text)
        };
        let shown = eventually(std::time::Duration::from_secs(60), &mut shows);
        assert!(
            shown,
            "worker {name}'s screen never showed {text:?}; last:\n{last}"
        );
    }

    /// Waits (up to a minute) until `n` distinct queued senders have taken a ticket on worker
    /// `name` (`send --queue`), counting those that delivered and left meanwhile: the order the
    /// senders were started in is then the order they queued in.
    pub fn until_queued(&self, name: &str, n: usize) {
        let dir = self.session_dir(name).join("queue");
        let mut seen = std::collections::HashSet::new();
        let all_in = || {
            let names = std::fs::read_dir(&dir).into_iter().flatten().flatten();
            seen.extend(
                names
                    .map(|e| e.file_name())
                    .filter(|f| !f.to_string_lossy().starts_with('.')),
            );
            seen.len() >= n
        };
        assert!(
            eventually(std::time::Duration::from_secs(60), all_in),
            "{n} senders never queued on {name}"
        );
    }
}
