//! Shared helpers for fake-gemini's integration tests: a private sandbox
//! (HOME, GEMINI_CLI_HOME, project dir) and a clean environment per test.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A throwaway directory tree for one test.
pub struct Sandbox {
    pub root: PathBuf,
    /// `GEMINI_CLI_HOME`.
    pub home: PathBuf,
    /// The working directory (canonical).
    pub proj: PathBuf,
}

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let root = std::env::temp_dir().join(format!("sim-gm-{}-{n}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (home, proj) = (root.join("ghome"), root.join("work").join("proj"));
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        let proj = proj.canonicalize().unwrap();
        Sandbox { root, home, proj }
    }

    pub fn dir(&self) -> PathBuf {
        self.home.join(".gemini")
    }

    /// Writes `settings.json`: the API-key auth type (if `signed_in`) and a
    /// logging hook (named `log-<event>`) for every listed event.
    pub fn settings(self, signed_in: bool, events: &[&str]) -> Sandbox {
        let hook = self.hook();
        let mut hooks = serde_json::Map::new();
        for e in events {
            hooks.insert(
                e.to_string(),
                json!([{"matcher": "*", "hooks": [{"type": "command", "name": format!("log-{e}"), "command": hook, "timeout": 10000}]}]),
            );
        }
        let mut doc = json!({ "hooks": hooks });
        if signed_in {
            doc["security"] = json!({"auth": {"selectedType": "gemini-api-key"}});
        }
        std::fs::write(self.dir().join("settings.json"), doc.to_string()).unwrap();
        self
    }

    /// Marks the project folder trusted.
    pub fn trusted(self) -> Sandbox {
        let doc = json!({ self.proj.to_str().unwrap(): "TRUST_FOLDER" });
        std::fs::write(self.dir().join("trustedFolders.json"), doc.to_string()).unwrap();
        self
    }

    /// `fake-gemini` with a clean environment pointing into the sandbox.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_fake-gemini"));
        c.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.root)
            .env("GEMINI_CLI_HOME", &self.home)
            .env("TERM", "xterm-256color")
            .current_dir(&self.proj);
        c
    }

    /// A hook script appending its stdin (one JSON line) to `hooks.jsonl`
    /// and the GEMINI*/CLAUDE* environment to `hook-env.txt`.
    pub fn hook(&self) -> String {
        let path = self.root.join("hook.sh");
        let script = format!(
            "#!/bin/sh\n{{ cat; echo; }} >> '{0}/hooks.jsonl'\nenv | grep -E '^(GEMINI|CLAUDE)' | sort >> '{0}/hook-env.txt'\n",
            self.root.display()
        );
        std::fs::write(&path, script).unwrap();
        let _ = Command::new("chmod").arg("+x").arg(&path).status();
        path.display().to_string()
    }

    pub fn hook_payloads(&self) -> Vec<Value> {
        read_jsonl(&self.root.join("hooks.jsonl"))
    }

    pub fn events(&self) -> Vec<String> {
        self.hook_payloads()
            .iter()
            .map(|v| v["hook_event_name"].as_str().unwrap_or("?").to_string())
            .collect()
    }

    /// Hook events, once at least `n` have arrived.
    pub fn events_after(&self, n: usize) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while self.events().len() < n && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        self.events()
    }

    /// The only chat file of the project.
    pub fn chat(&self) -> PathBuf {
        let dir = self.dir().join("tmp").join("proj").join("chats");
        let files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|f| f.path())
            .collect();
        assert_eq!(files.len(), 1, "expected one chat, found {files:?}");
        files[0].clone()
    }

    /// Chat records with an `id`, the last line per id winning, in first-seen order.
    pub fn chat_records(&self) -> Vec<Value> {
        let mut order: Vec<String> = Vec::new();
        let mut last = std::collections::HashMap::new();
        for r in read_jsonl(&self.chat()) {
            let Some(id) = r["id"].as_str().map(str::to_string) else {
                continue;
            };
            if last.insert(id.clone(), r).is_none() {
                order.push(id);
            }
        }
        order.iter().map(|id| last[id].clone()).collect()
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
