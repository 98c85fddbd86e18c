//! fake-gemini's sandbox: HOME, `GEMINI_CLI_HOME` and a project dir.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Dirs, GEMINI, logger_hook, read_jsonl};

/// fake-gemini's sandbox.
pub type Sandbox = Dirs<GEMINI>;

impl Sandbox {
    /// The project's entry in `trustedFolders.json`.
    pub fn trust_level(&self) -> Value {
        let text = std::fs::read_to_string(self.dir().join("trustedFolders.json")).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        doc[self.proj.to_str().unwrap()].clone()
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

    /// A hook script appending its stdin (one JSON line) to `hooks.jsonl`
    /// and the GEMINI*/CLAUDE* environment to `hook-env.txt`.
    pub fn hook(&self) -> String {
        logger_hook(&self.root, Some("-E '^(GEMINI|CLAUDE)'"))
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

/// A signed-in sandbox with a trusted project and logging hooks for `events`.
pub fn ready(name: &str, events: &[&str]) -> Sandbox {
    Sandbox::new(name).settings(true, events).trusted()
}
