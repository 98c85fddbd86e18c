//! `$CODEX_HOME/hooks.json` and hook trust.
//!
//! Every command hook gets a key `<abs hooks.json>:<event in snake_case>:<group>:<index>`
//! (the real CLI's format, e.g. `…/hooks.json:pre_tool_use:0:0`) and a hash.
//! The real hash is codex's own; the fake uses `sha256:` + the hex SHA-256
//! of the hook object's compact JSON (keys in hooks.json's order). A hook runs when
//! `--dangerously-bypass-hook-trust` is given, when `config.toml` holds its
//! current hash, or when the user picked "Trust all and continue".

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::config::{Config, Setting};
use crate::hooks::{Hooks, TimeoutUnit};
use crate::sha256;

/// The events codex 0.171 knows, with the descriptions its `/hooks` list shows.
pub const EVENTS: [(&str, &str); 12] = [
    ("PreToolUse", "Before a tool executes"),
    ("PermissionRequest", "When permission is requested"),
    ("PostToolUse", "After a tool executes"),
    ("PreCompact", "Before context compaction"),
    ("PostCompact", "After context compaction"),
    ("SessionStart", "When a new session starts"),
    ("SessionEnd", "Right before a session ends"),
    ("UserPromptSubmit", "When the user submits a prompt"),
    ("SubagentStart", "When a subagent is created"),
    ("SubagentStop", "Right before a subagent ends its turn"),
    ("Stop", "Right before Codex ends its turn"),
    ("Interrupt", "Right before an interrupted turn is aborted"),
];

/// One configured command hook.
#[derive(Clone, Debug, PartialEq)]
pub struct HookEntry {
    /// Event name, e.g. `Stop`.
    pub event: String,
    /// Its group's `matcher`.
    pub matcher: Value,
    /// The hook object as configured.
    pub hook: Value,
    /// Trust key.
    pub key: String,
    /// Current hash (`sha256:<hex>`).
    pub hash: String,
    /// True when `config.toml` holds this hash for this key.
    pub trusted: bool,
}

/// All hooks of `hooks.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookFile {
    /// The file.
    pub path: PathBuf,
    /// Its command hooks for known events, in event then file order.
    pub entries: Vec<HookEntry>,
}

/// `PreToolUse` → `pre_tool_use`.
pub fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The hash fake-codex records for a hook object.
pub fn hook_hash(hook: &Value) -> String {
    let text = serde_json::to_string(hook).unwrap_or_default();
    format!("sha256:{}", sha256::hex(text.as_bytes()))
}

impl HookFile {
    /// Reads `<home>/hooks.json` (missing = no hooks); malformed files are errors.
    pub fn load(home: &Path, config: &Config) -> Result<HookFile, String> {
        let path = home.join("hooks.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(HookFile {
                    path,
                    entries: Vec::new(),
                });
            }
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let doc: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: invalid JSON: {e}", path.display()))?;
        Self::from_value(path, &doc, config)
    }

    /// Builds the list from parsed JSON.
    pub fn from_value(path: PathBuf, doc: &Value, config: &Config) -> Result<HookFile, String> {
        Hooks::from_settings(doc, TimeoutUnit::Seconds, Duration::from_secs(600))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let shown = path.to_string_lossy().into_owned();
        let mut entries = Vec::new();
        for (event, _) in EVENTS {
            let Some(groups) = doc
                .pointer(&format!("/hooks/{event}"))
                .and_then(Value::as_array)
            else {
                continue;
            };
            for (gi, group) in groups.iter().enumerate() {
                let list = group.get("hooks").and_then(Value::as_array);
                for (hi, hook) in list.into_iter().flatten().enumerate() {
                    if hook
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("command")
                        != "command"
                    {
                        continue;
                    }
                    let key = format!("{shown}:{}:{gi}:{hi}", snake(event));
                    let hash = hook_hash(hook);
                    let recorded = config.hook_hash(&key).or_else(|| {
                        config.hook_hash(&format!("{shown}:{}:{gi}:{hi}", event.to_lowercase()))
                    });
                    entries.push(HookEntry {
                        event: event.to_string(),
                        matcher: group.get("matcher").cloned().unwrap_or(Value::Null),
                        hook: hook.clone(),
                        trusted: recorded == Some(hash.as_str()),
                        key,
                        hash,
                    });
                }
            }
        }
        Ok(HookFile { path, entries })
    }

    /// How many hooks are new or changed.
    pub fn untrusted(&self) -> usize {
        self.entries.iter().filter(|e| !e.trusted).count()
    }

    /// The hooks to run: those `active` says yes to.
    pub fn to_hooks(&self, active: impl Fn(&HookEntry) -> bool) -> Hooks {
        let mut events = Map::new();
        for e in self.entries.iter().filter(|e| active(e)) {
            let groups = events
                .entry(e.event.clone())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = groups {
                list.push(json!({ "matcher": e.matcher, "hooks": [e.hook] }));
            }
        }
        let doc = json!({ "hooks": events });
        // The entries passed the same parser in `from_value`, so this cannot fail.
        Hooks::from_settings(&doc, TimeoutUnit::Seconds, Duration::from_secs(600))
            .unwrap_or_default()
    }

    /// The `config.toml` settings that trust every untrusted hook.
    pub fn trust_settings(&self) -> Vec<Setting> {
        self.entries
            .iter()
            .filter(|e| !e.trusted)
            .map(|e| {
                (
                    vec!["hooks".into(), "state".into(), e.key.clone()],
                    "trusted_hash".into(),
                    e.hash.clone(),
                )
            })
            .collect()
    }

    /// Installed, trusted and untrusted counts for one event.
    pub fn counts(&self, event: &str) -> (usize, usize, usize) {
        let of: Vec<&HookEntry> = self.entries.iter().filter(|e| e.event == event).collect();
        let trusted = of.iter().filter(|e| e.trusted).count();
        (of.len(), trusted, of.len() - trusted)
    }
}

/// Whether the "Hooks need review" screen shows.
pub fn review_needed(untrusted: usize, bypass: bool, forced: bool) -> bool {
    forced || (untrusted > 0 && !bypass)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codex::config_toml;

    fn file(config_text: &str) -> HookFile {
        let doc = json!({"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": 5}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "b"}, {"type": "prompt", "prompt": "x"}, {"type": "command", "command": "c"}]}],
            "Notification": [{"hooks": [{"type": "command", "command": "ignored"}]}]
        }});
        let config = Config {
            path: PathBuf::from("/h/config.toml"),
            doc: config_toml::parse(config_text).unwrap(),
        };
        HookFile::from_value(PathBuf::from("/h/hooks.json"), &doc, &config).unwrap()
    }

    #[test]
    fn keys_follow_the_real_format_and_unknown_events_are_ignored() {
        let f = file("");
        let keys: Vec<&str> = f.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "/h/hooks.json:pre_tool_use:0:0",
                "/h/hooks.json:pre_tool_use:0:2",
                "/h/hooks.json:stop:0:0"
            ]
        );
        assert_eq!(f.untrusted(), 3);
        assert_eq!(snake("UserPromptSubmit"), "user_prompt_submit");
        assert!(f.entries[0].hash.starts_with("sha256:") && f.entries[0].hash.len() == 71);
        assert_eq!(f.counts("PreToolUse"), (2, 0, 2));
    }

    #[test]
    fn recorded_hashes_trust_hooks() {
        let hash = file("").entries[2].hash.clone();
        let f = file(&format!(
            "[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"{hash}\"\n"
        ));
        assert!(f.entries[2].trusted);
        assert_eq!(f.untrusted(), 2);
        assert!(f.to_hooks(|e| e.trusted).has("Stop"));
        assert!(!f.to_hooks(|e| e.trusted).has("PreToolUse"));
        assert_eq!(
            f.to_hooks(|_| true)
                .matching("PreToolUse", Some("Bash"))
                .len(),
            2
        );
        assert_eq!(f.trust_settings().len(), 2);
        let stale = file("[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:0\"\n");
        assert!(
            !stale.entries[2].trusted,
            "a changed hook needs review again"
        );
    }

    #[test]
    fn the_review_decision() {
        assert!(!review_needed(0, false, false));
        assert!(review_needed(2, false, false));
        assert!(!review_needed(2, true, false), "bypass flag");
        assert!(review_needed(0, true, true), "forced by the scenario");
    }
}
