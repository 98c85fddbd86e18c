//! fake-opencode's sandbox: HOME (its session store under `.local/share`), a project dir, and
//! umbel's plugin as umbel writes it (`opencode_plugin.js` with its `UMBEL` line), named in
//! `OPENCODE_CONFIG_CONTENT`: the hook it runs logs `{"hook_event_name": <name>, "payload":
//! <payload>}` per line, so [`Sim::events`] reads the plugin's hook names.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::{Sim, clean_cmd, scratch};

/// fake-opencode's sandbox.
pub struct Opencode {
    pub root: PathBuf,
    pub proj: PathBuf,
    config: String,
}

impl Opencode {
    /// A sandbox for the test `name`, umbel's plugin loaded.
    pub fn new(name: &str) -> Opencode {
        let root = scratch("sim-oc", name);
        let proj = root.join("proj");
        std::fs::create_dir_all(&proj).unwrap();
        let root = root.canonicalize().unwrap();
        let log = root.join("hooks.jsonl");
        let hook = root.join("hook.sh");
        // One write per line: a reader never sees half of one.
        let script = format!(
            "#!/bin/sh\nline=$(printf '{{\"hook_event_name\":\"%s\",\"payload\":%s}}' \"$1\" \"$(cat)\")\nprintf '%s\\n' \"$line\" >> '{}'\n",
            log.display()
        );
        std::fs::write(&hook, script).unwrap();
        let umbel = json!({ "hook": format!("sh {}", hook.display()),
            "transcript": root.join("record.jsonl") });
        let source = include_str!("../../../src/core/providers/opencode/plugin.js")
            .replace("__UMBEL__", &umbel.to_string());
        let plugin = root.join("opencode-umbel.js");
        std::fs::write(&plugin, source).unwrap();
        let config = json!({ "plugin": [format!("file://{}", plugin.display())] }).to_string();
        Opencode {
            proj: proj.canonicalize().unwrap(),
            root,
            config,
        }
    }

    /// The payload of each hook so far, in order.
    pub fn hook_payloads(&self) -> Vec<Value> {
        self.payloads()
            .iter()
            .map(|p| p["payload"].clone())
            .collect()
    }

    /// The hooks fired after the first `name`: `(name, payload)`.
    pub fn after(&self, name: &str) -> Vec<(String, Value)> {
        let all = self.payloads();
        let at = all
            .iter()
            .position(|p| p["hook_event_name"] == name)
            .unwrap_or(all.len());
        all.iter()
            .skip(at + 1)
            .map(|p| {
                let name = p["hook_event_name"].as_str().unwrap_or("").to_string();
                (name, p["payload"].clone())
            })
            .collect()
    }
}

impl Sim for Opencode {
    fn root(&self) -> &Path {
        &self.root
    }

    fn cmd(&self) -> Command {
        let bin = env!("CARGO_BIN_EXE_fake-opencode");
        let data = self.root.join(".local/share");
        let mut c = clean_cmd(bin, &self.root, "XDG_DATA_HOME", &data, &self.proj);
        c.env("OPENCODE_CONFIG_CONTENT", &self.config);
        c
    }
}

impl Drop for Opencode {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
