//! fake-claude's sandbox: HOME, `CLAUDE_CONFIG_DIR` and a project dir.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Sim, clean_cmd, logger_hook, scratch};

/// A throwaway directory tree for one test.
pub struct Sandbox {
    pub root: PathBuf,
    pub cfg: PathBuf,
    pub proj: PathBuf,
}

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let root = scratch("sim-it", name);
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

    /// A hook script that appends its stdin (one JSON line) to `hooks.jsonl`
    /// and the CLAUDE* environment to `hook-env.txt`.
    pub fn hook(&self) -> String {
        logger_hook(&self.root, Some("'^CLAUDE'"))
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

impl Sim for Sandbox {
    fn root(&self) -> &Path {
        &self.root
    }

    fn cmd(&self) -> Command {
        let bin = env!("CARGO_BIN_EXE_fake-claude");
        clean_cmd(bin, &self.root, "CLAUDE_CONFIG_DIR", &self.cfg, &self.proj)
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
