//! Shared helpers for fake-codex's integration tests: a private sandbox
//! (HOME, CODEX_HOME, project dir, optional `.git`) and a clean environment.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

static NEXT: AtomicU32 = AtomicU32::new(0);

/// Every event fake-codex fires.
pub const ALL_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
    "Interrupt",
    "SessionEnd",
];

/// A throwaway directory tree for one test.
pub struct Sandbox {
    pub root: PathBuf,
    pub home: PathBuf,
    pub proj: PathBuf,
}

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let root = std::env::temp_dir().join(format!("sim-cx-{}-{n}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (home, proj) = (root.join("codex-home"), root.join("proj"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        let proj = proj.canonicalize().unwrap();
        let home = home.canonicalize().unwrap();
        let root = root.canonicalize().unwrap();
        Sandbox { root, home, proj }
    }

    /// Makes the project a git repository (so the trust dialog shows).
    pub fn git(self) -> Sandbox {
        std::fs::create_dir_all(self.proj.join(".git")).unwrap();
        std::fs::write(self.proj.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        self
    }

    /// Writes `config.toml`.
    pub fn config(self, text: &str) -> Sandbox {
        std::fs::write(self.home.join("config.toml"), text).unwrap();
        self
    }

    /// The `config.toml` text.
    pub fn config_text(&self) -> String {
        std::fs::read_to_string(self.home.join("config.toml")).unwrap_or_default()
    }

    /// `hooks.json` running a logger (stdin → `hooks.jsonl`) for `events`.
    pub fn hooks(self, events: &[&str]) -> Sandbox {
        let script = self.root.join("hook.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\n{{ cat; echo; }} >> '{}/hooks.jsonl'\n",
                self.root.display()
            ),
        )
        .unwrap();
        let _ = Command::new("chmod").arg("+x").arg(&script).status();
        let mut hooks = serde_json::Map::new();
        for e in events {
            hooks.insert(
                e.to_string(),
                serde_json::json!([{"hooks":[{"type":"command","command":script.display().to_string(),"timeout":30}]}]),
            );
        }
        let doc = serde_json::json!({ "hooks": hooks });
        std::fs::write(self.home.join("hooks.json"), doc.to_string()).unwrap();
        self
    }

    /// `fake-codex` with a clean environment pointing into the sandbox.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_fake-codex"));
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.root)
            .env("CODEX_HOME", &self.home)
            .env("TERM", "xterm-256color")
            .current_dir(&self.proj);
        c
    }

    /// Hook payloads received so far.
    pub fn payloads(&self) -> Vec<Value> {
        read_jsonl(&self.root.join("hooks.jsonl"))
    }

    /// Event names received so far.
    pub fn events(&self) -> Vec<String> {
        self.payloads()
            .iter()
            .map(|v| v["hook_event_name"].as_str().unwrap_or("?").to_string())
            .collect()
    }

    /// Event names, once at least `n` have arrived (hooks run just after a redraw).
    pub fn events_after(&self, n: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.events().len() < n && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.events()
    }

    /// The rollout files under `sessions/`.
    pub fn rollouts(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        walk(&self.home.join("sessions"), &mut out);
        out.sort();
        out
    }

    /// The only rollout's records.
    pub fn rollout(&self) -> Vec<Value> {
        let files = self.rollouts();
        assert_eq!(files.len(), 1, "expected one rollout, found {files:?}");
        read_jsonl(&files[0])
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

pub fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}
