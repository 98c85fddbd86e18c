//! fake-codex's sandbox: HOME, `CODEX_HOME`, a project dir (optionally a
//! git repository).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CODEX, Dirs, logger_hook, read_jsonl};

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

/// fake-codex's sandbox.
pub type Sandbox = Dirs<CODEX>;

impl Sandbox {
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
        let script = logger_hook(&self.root, None);
        let mut hooks = serde_json::Map::new();
        for e in events {
            hooks.insert(
                e.to_string(),
                serde_json::json!([{"hooks":[{"type":"command","command":script,"timeout":30}]}]),
            );
        }
        let doc = serde_json::json!({ "hooks": hooks });
        std::fs::write(self.home.join("hooks.json"), doc.to_string()).unwrap();
        self
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
