//! fake-claude's sandbox: HOME, `CLAUDE_CONFIG_DIR` and a project dir.

use std::path::PathBuf;

use super::{CLAUDE, Dirs, logger_hook};

/// fake-claude's sandbox.
pub type Sandbox = Dirs<CLAUDE>;

impl Sandbox {
    /// How many live-session registry files (`<config>/sessions/*.json`) exist.
    pub fn live_sessions(&self) -> usize {
        std::fs::read_dir(self.home.join("sessions"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .count()
    }

    /// Marks onboarding done and, if `trusted`, the project as trusted.
    pub fn signed_in(self, trusted: bool) -> Sandbox {
        let mut doc = serde_json::json!({"hasCompletedOnboarding": true, "theme": "dark"});
        if trusted {
            doc["projects"] = serde_json::json!({ self.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true} });
        }
        std::fs::write(self.home.join(".claude.json"), doc.to_string()).unwrap();
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
        let dir = self.home.join("projects");
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
