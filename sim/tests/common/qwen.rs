//! fake-qwen's sandbox: HOME, `QWEN_HOME` with a logging hook for every event umbel hears,
//! a project dir, signed in by `OPENAI_API_KEY`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use super::{Sim, clean_cmd, logger_hook, scratch};

/// A signed-in qwen (`OPENAI_API_KEY`) with a logging hook for every event.
pub struct Qwen {
    pub root: PathBuf,
    pub proj: PathBuf,
}

impl Qwen {
    pub fn new(name: &str) -> Qwen {
        let root = scratch("sim-qw", name);
        let proj = root.join("proj");
        std::fs::create_dir_all(root.join(".qwen")).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        let root = root.canonicalize().unwrap();
        let hook = logger_hook(&root, None);
        let entry = json!([{ "hooks": [{ "type": "command", "command": hook }] }]);
        let events = [
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "Notification",
            "Stop",
        ];
        let hooks: serde_json::Map<String, serde_json::Value> = events
            .iter()
            .map(|e| (e.to_string(), entry.clone()))
            .collect();
        let settings = json!({ "hooks": hooks }).to_string();
        std::fs::write(root.join(".qwen/settings.json"), settings).unwrap();
        Qwen {
            proj: proj.canonicalize().unwrap(),
            root,
        }
    }

    /// `(event, notification_type)` of each hook so far.
    pub fn fired(&self) -> Vec<(String, String)> {
        let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
        self.payloads()
            .iter()
            .map(|p| (text(&p["hook_event_name"]), text(&p["notification_type"])))
            .collect()
    }
}

impl Sim for Qwen {
    fn root(&self) -> &Path {
        &self.root
    }

    fn cmd(&self) -> Command {
        let bin = env!("CARGO_BIN_EXE_fake-qwen");
        let mut c = clean_cmd(
            bin,
            &self.root,
            "QWEN_HOME",
            &self.root.join(".qwen"),
            &self.proj,
        );
        c.env("OPENAI_API_KEY", "fake");
        c
    }
}

impl Drop for Qwen {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
