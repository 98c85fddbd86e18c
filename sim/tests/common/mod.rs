//! Shared helpers for sim's integration tests: one private sandbox per fake
//! ([`claude`], [`codex`], [`gemini`], [`qwen`], [`opencode`], [`copilot`]) built on the pieces
//! here (a scratch root, a clean environment, a logging hook script), the [`Sim`] trait for
//! what every sandbox answers, and the pseudo-terminal helpers in [`pty`].

#![allow(dead_code)]

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod gemini;
pub mod opencode;
pub mod pty;
pub mod qwen;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A fresh, empty `$TMPDIR/<prefix>-<pid>-<n>-<name>` for one test.
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let root = std::env::temp_dir().join(format!("{prefix}-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    root
}

/// Writes `root/hook.sh`, a hook appending its stdin (one JSON line) to
/// `root/hooks.jsonl` and, with `env_grep` (the arguments to `grep`), the
/// matching environment to `root/hook-env.txt`. Returns the script's path.
pub fn logger_hook(root: &Path, env_grep: Option<&str>) -> String {
    let path = root.join("hook.sh");
    let mut script = format!(
        "#!/bin/sh\n{{ cat; echo; }} >> '{}/hooks.jsonl'\n",
        root.display()
    );
    if let Some(pattern) = env_grep {
        script += &format!(
            "env | grep {pattern} | sort >> '{}/hook-env.txt'\n",
            root.display()
        );
    }
    std::fs::write(&path, script).unwrap();
    let _ = Command::new("chmod").arg("+x").arg(&path).status();
    path.display().to_string()
}

/// `bin` with a clean environment: PATH, `HOME=root`, `home_var=home`, an
/// xterm TERM, running in `proj`.
pub fn clean_cmd(bin: &str, root: &Path, home_var: &str, home: &Path, proj: &Path) -> Command {
    let mut c = Command::new(bin);
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root)
        .env(home_var, home)
        .env("TERM", "xterm-256color")
        .current_dir(proj);
    c
}

/// [`Dirs`] for fake-claude.
pub const CLAUDE: usize = 0;
/// [`Dirs`] for fake-codex.
pub const CODEX: usize = 1;
/// [`Dirs`] for fake-gemini.
pub const GEMINI: usize = 2;

/// Per fake: the binary, the scratch prefix, the variable naming the CLI's
/// home, the home and a directory made inside it (may be empty) under the
/// root, the project under the root.
const LAYOUTS: [[&str; 6]; 3] = [
    [
        env!("CARGO_BIN_EXE_fake-claude"),
        "sim-it",
        "CLAUDE_CONFIG_DIR",
        "cfg",
        "",
        "proj",
    ],
    [
        env!("CARGO_BIN_EXE_fake-codex"),
        "sim-cx",
        "CODEX_HOME",
        "codex-home",
        "",
        "proj",
    ],
    [
        env!("CARGO_BIN_EXE_fake-gemini"),
        "sim-gm",
        "GEMINI_CLI_HOME",
        "ghome",
        ".gemini",
        "work/proj",
    ],
];

/// A throwaway directory tree for one test of the fake `F` ([`CLAUDE`],
/// [`CODEX`], [`GEMINI`]): the root (`HOME`, where hooks log), the CLI's
/// home, the project. Removed on drop.
pub struct Dirs<const F: usize> {
    pub root: PathBuf,
    pub home: PathBuf,
    pub proj: PathBuf,
}

impl<const F: usize> Dirs<F> {
    /// Fresh, empty directories for the test `name` (canonical paths).
    pub fn new(name: &str) -> Dirs<F> {
        let [_, prefix, _, home, inner, proj] = LAYOUTS[F];
        let root = scratch(prefix, name);
        let (home, proj) = (root.join(home), root.join(proj));
        std::fs::create_dir_all(home.join(inner)).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        Dirs {
            proj: proj.canonicalize().unwrap(),
            home: home.canonicalize().unwrap(),
            root: root.canonicalize().unwrap(),
        }
    }
}

impl<const F: usize> Sim for Dirs<F> {
    fn root(&self) -> &Path {
        &self.root
    }

    fn cmd(&self) -> Command {
        let [bin, _, var, ..] = LAYOUTS[F];
        clean_cmd(bin, &self.root, var, &self.home, &self.proj)
    }
}

impl<const F: usize> Drop for Dirs<F> {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// What every sandbox answers.
pub trait Sim {
    /// The scratch root (`HOME`; hooks log here).
    fn root(&self) -> &Path;

    /// The fake with a clean environment pointing into the sandbox.
    fn cmd(&self) -> Command;

    /// [`Sim::cmd`] playing `scenario`, recording under `root/rec`, with `args`.
    fn scripted(&self, scenario: &str, args: &[&str]) -> Command {
        let mut c = self.cmd();
        c.env("UMBEL_SIM_SCENARIO", scenario)
            .env("UMBEL_SIM_RECORD_DIR", self.root().join("rec"))
            .args(args);
        c
    }

    /// Hook payloads received so far.
    fn payloads(&self) -> Vec<Value> {
        read_jsonl(&self.root().join("hooks.jsonl"))
    }

    /// The bytes of the `n`th recorded prompt.
    fn recorded(&self, n: usize) -> Vec<u8> {
        std::fs::read(self.root().join(format!("rec/prompt-{n}.txt"))).unwrap()
    }

    /// The payloads of a one-turn session, after checking their events came
    /// in order: SessionStart, UserPromptSubmit, Stop, SessionEnd.
    fn one_turn_payloads(&self) -> Vec<Value> {
        let events = ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"];
        assert_eq!(self.events(), events);
        self.payloads()
    }

    /// Event names received so far.
    fn events(&self) -> Vec<String> {
        self.payloads()
            .iter()
            .map(|v| v["hook_event_name"].as_str().unwrap_or("?").to_string())
            .collect()
    }

    /// Event names, once at least `n` have arrived (hooks run just after a redraw).
    fn events_after(&self, n: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.events().len() < n && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.events()
    }
}

/// Runs `c` to the end: exit code (-1 on a signal), stdout, stderr.
pub fn run(c: &mut Command) -> (i32, String, String) {
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Runs `c` with `input` on stdin: exit code (-1 on a signal), stdout, stderr.
pub fn run_with_stdin(c: &mut Command, input: &[u8]) -> (i32, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// The text of `tests/data/<name>`.
pub fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

pub fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}
