//! Shared helpers for fake-claude's integration tests: a private sandbox
//! (HOME, config dir, project dir) and a clean environment per test.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A throwaway directory tree for one test.
pub struct Sandbox {
    pub root: PathBuf,
    pub cfg: PathBuf,
    pub proj: PathBuf,
}

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let root = std::env::temp_dir().join(format!("sim-it-{}-{n}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (cfg, proj) = (root.join("cfg"), root.join("proj"));
        std::fs::create_dir_all(&cfg).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        let proj = proj.canonicalize().unwrap();
        Sandbox { root, cfg, proj }
    }

    /// Marks onboarding done and, if `trusted`, the project as trusted.
    pub fn signed_in(self, trusted: bool) -> Sandbox {
        let mut doc = serde_json::json!({"hasCompletedOnboarding": true, "theme": "dark"});
        if trusted {
            doc["projects"] = serde_json::json!({ self.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true} });
        }
        std::fs::write(self.cfg.join(".claude.json"), doc.to_string()).unwrap();
        self
    }

    /// `fake-claude` with a clean environment pointing into the sandbox.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_fake-claude"));
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.root)
            .env("CLAUDE_CONFIG_DIR", &self.cfg)
            .env("TERM", "xterm-256color")
            .current_dir(&self.proj);
        c
    }

    /// A hook script that appends its stdin (one JSON line) to `hooks.jsonl`
    /// and the CLAUDE* environment to `hook-env.txt`.
    pub fn hook(&self) -> String {
        let path = self.root.join("hook.sh");
        let script = format!(
            "#!/bin/sh\n{{ cat; echo; }} >> '{0}/hooks.jsonl'\nenv | grep '^CLAUDE' | sort >> '{0}/hook-env.txt'\n",
            self.root.display()
        );
        std::fs::write(&path, script).unwrap();
        let _ = Command::new("chmod").arg("+x").arg(&path).status();
        path.display().to_string()
    }

    /// Settings JSON running [`Sandbox::hook`] for every listed event.
    pub fn settings(&self, events: &[&str]) -> String {
        let hook = self.hook();
        let mut hooks = serde_json::Map::new();
        for e in events {
            hooks.insert(
                e.to_string(),
                serde_json::json!([{"hooks":[{"type":"command","command":hook}]}]),
            );
        }
        serde_json::json!({ "hooks": hooks }).to_string()
    }

    /// The hook payloads received so far.
    pub fn hook_payloads(&self) -> Vec<Value> {
        read_jsonl(&self.root.join("hooks.jsonl"))
    }

    /// Event names received so far.
    pub fn events(&self) -> Vec<String> {
        self.hook_payloads()
            .iter()
            .map(|v| v["hook_event_name"].as_str().unwrap_or("?").to_string())
            .collect()
    }

    /// The only transcript file in the sandbox.
    pub fn transcript(&self) -> PathBuf {
        let dir = self.cfg.join("projects");
        let mut files = Vec::new();
        for d in std::fs::read_dir(&dir).unwrap().flatten() {
            for f in std::fs::read_dir(d.path()).unwrap().flatten() {
                files.push(f.path());
            }
        }
        assert_eq!(files.len(), 1, "expected one transcript, found {files:?}");
        files.remove(0)
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
