//! fake-copilot's sandbox: HOME, `COPILOT_HOME` (`.copilot`) whose `settings.json` has a
//! Claude-format hook for every event copilot fires (`sh hook.sh <Event>`, logging
//! `{"event", "payload"}` per line, the shape of `copilot-1.0.102-hook-payloads.jsonl`), a
//! project dir, signed in through a BYOK provider (`COPILOT_PROVIDER_BASE_URL`, model
//! `gpt-fake`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Sim, clean_cmd, read_jsonl, scratch};

/// Every hook event copilot fires.
pub const EVENTS: [&str; 8] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "Notification",
    "PostToolUse",
    "Stop",
    "SessionEnd",
];

/// fake-copilot's sandbox.
pub struct Copilot {
    pub root: PathBuf,
    pub home: PathBuf,
    pub proj: PathBuf,
}

impl Copilot {
    /// A signed-in sandbox for the test `name`, hooks on every event.
    pub fn new(name: &str) -> Copilot {
        let root = scratch("sim-cp", name);
        let (home, proj) = (root.join(".copilot"), root.join("proj"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        let root = root.canonicalize().unwrap();
        let hook = root.join("hook.sh");
        let script = format!(
            "#!/bin/sh\nline=$(printf '{{\"event\":\"%s\",\"payload\":%s}}' \"$1\" \"$(cat)\")\nprintf '%s\\n' \"$line\" >> '{}'\n",
            root.join("hooks.jsonl").display()
        );
        std::fs::write(&hook, script).unwrap();
        let entry = |e: &str| {
            let command = format!("sh {} {e}", hook.display());
            json!([{ "hooks": [{ "type": "command", "command": command, "timeout": 30 }] }])
        };
        let hooks: serde_json::Map<String, Value> =
            EVENTS.iter().map(|e| (e.to_string(), entry(e))).collect();
        let settings = json!({ "hooks": hooks }).to_string();
        std::fs::write(home.join("settings.json"), settings).unwrap();
        Copilot {
            home: home.canonicalize().unwrap(),
            proj: proj.canonicalize().unwrap(),
            root,
        }
    }

    /// Each hook so far: its event and payload.
    pub fn hooks(&self) -> Vec<(String, Value)> {
        read_jsonl(&self.root.join("hooks.jsonl"))
            .into_iter()
            .map(|h| {
                (
                    h["event"].as_str().unwrap_or("?").to_string(),
                    h["payload"].clone(),
                )
            })
            .collect()
    }

    /// The events of the hooks so far, once at least `n` fired.
    pub fn fired(&self, n: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.hooks().len() < n && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.hooks().into_iter().map(|(e, _)| e).collect()
    }

    /// The session log of `id`.
    pub fn log(&self, id: &str) -> Vec<Value> {
        read_jsonl(
            &self
                .home
                .join("session-state")
                .join(id)
                .join("events.jsonl"),
        )
    }

    /// The kinds of the session log's events.
    pub fn kinds(&self, id: &str) -> Vec<String> {
        let kind = |e: &Value| e["type"].as_str().unwrap_or("").to_string();
        self.log(id).iter().map(kind).collect()
    }

    /// The sessions kept in `session-state/`.
    pub fn sessions(&self) -> Vec<String> {
        let dir = self.home.join("session-state");
        let mut ids: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        ids.sort();
        ids
    }

    /// The fake without a sign-in.
    pub fn signed_out(&self) -> Command {
        let mut c = self.cmd();
        c.env_remove("COPILOT_PROVIDER_BASE_URL");
        c
    }
}

impl Sim for Copilot {
    fn root(&self) -> &Path {
        &self.root
    }

    fn cmd(&self) -> Command {
        let bin = env!("CARGO_BIN_EXE_fake-copilot");
        let mut c = clean_cmd(bin, &self.root, "COPILOT_HOME", &self.home, &self.proj);
        c.env("COPILOT_PROVIDER_BASE_URL", "http://127.0.0.1:9/v1")
            .env("COPILOT_MODEL", "gpt-fake");
        c
    }
}

impl Drop for Copilot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
