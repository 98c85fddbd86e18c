//! Where copilot keeps things, and what it reads at startup.
//!
//! Home: `$COPILOT_HOME` (relative to the working directory), else `~/.copilot`. Hooks, in
//! Claude's format, from `settings.json`'s `hooks` key and every `hooks/*.json` file (in name
//! order). Remembered folders: `trustedFolders` (also read: `trusted_folders`, the older
//! docs' name) in `config.json` (also read in `settings.json`); a remembered folder trusts
//! every folder below it. Sessions: `session-state/<id>/events.jsonl`. Sign-in: a BYOK
//! provider (`COPILOT_PROVIDER_BASE_URL`) or a token (`COPILOT_GITHUB_TOKEN`, `GH_TOKEN`,
//! `GITHUB_TOKEN`), any value.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::hooks::{Hooks, TimeoutUnit};

/// A hook's timeout when it names none.
const HOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// The model copilot picks when nothing names one (not recorded: the recordings name theirs).
pub const DEFAULT_MODEL: &str = "claude-sonnet-4.5";

/// Models in copilot's catalog: a BYOK model outside it gets the "not in the built-in catalog"
/// warning (recorded for `gpt-fake`). Not recorded which others are in it; these are.
const CATALOG: &[&str] = &[
    "claude-sonnet-4.5",
    "claude-sonnet-4",
    "claude-haiku-4.5",
    "claude-opus-4.5",
    "gpt-5",
    "gpt-5-mini",
    "gpt-4.1",
];

/// The variables a GitHub token is read from, in copilot's order.
pub const TOKEN_VARS: [&str; 3] = ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"];

/// The working directory, resolved.
pub fn cwd() -> Result<PathBuf, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    Ok(cwd.canonicalize().unwrap_or(cwd))
}

/// `$COPILOT_HOME`, else `$HOME/.copilot`.
pub fn home(cwd: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("COPILOT_HOME").filter(|v| !v.is_empty()) {
        return Ok(cwd.join(dir));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".copilot"))
        .ok_or_else(|| "HOME is not set".to_string())
}

/// A JSON file as an object (missing or unreadable: empty).
fn read_json(path: &Path) -> Value {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::Object(Default::default()))
}

/// Hooks from one settings object, in Claude's shape (PascalCase events); copilot's own
/// (camelCase: `permissionRequest`) are [`super::decision`]'s.
fn hooks_of(doc: &Value) -> Hooks {
    let mut claude = doc.clone();
    if let Some(map) = claude.get_mut("hooks").and_then(Value::as_object_mut) {
        map.retain(|event, _| event.starts_with(|c: char| c.is_ascii_uppercase()));
    }
    Hooks::from_settings(&claude, TimeoutUnit::Seconds, HOOK_TIMEOUT).unwrap_or_default()
}

/// The hook settings: `settings.json`, then `hooks/*.json` by name.
pub fn hook_docs(home: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(home.join("hooks"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files.insert(0, home.join("settings.json"));
    files.iter().map(|f| read_json(f)).collect()
}

/// Every configured hook of `docs` ([`hook_docs`]) in Claude's shape.
pub fn hooks(docs: &[Value]) -> Hooks {
    let mut all = Hooks::default();
    for doc in docs {
        all.extend(hooks_of(doc));
    }
    all
}

/// Every `permissionRequest` hook of `docs` in copilot's own shape, whose output decides a
/// tool.
pub fn decision_hooks(docs: &[Value]) -> Vec<crate::hooks::HookCommand> {
    docs.iter()
        .flat_map(|d| super::decision::commands(d, HOOK_TIMEOUT))
        .collect()
}

/// The folders remembered as trusted.
fn remembered(home: &Path) -> Vec<String> {
    let docs = [
        read_json(&home.join("config.json")),
        read_json(&home.join("settings.json")),
    ];
    docs.iter()
        .flat_map(|d| ["trustedFolders", "trusted_folders"].map(|k| d.get(k).cloned()))
        .flatten()
        .filter_map(|v| v.as_array().cloned())
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// True when `cwd` is, or is below, a remembered folder.
pub fn trusted(home: &Path, cwd: &Path) -> bool {
    remembered(home).iter().any(|f| cwd.starts_with(f))
}

/// Remembers `cwd` (option 2 of the trust dialog): appended to `config.json`'s
/// `trustedFolders`, every other key kept, the file replaced whole.
pub fn remember(home: &Path, cwd: &Path) -> Result<(), String> {
    let path = home.join("config.json");
    let mut doc = read_json(&path);
    let folder = Value::String(cwd.to_string_lossy().into_owned());
    match doc.get_mut("trustedFolders").and_then(Value::as_array_mut) {
        Some(list) if list.contains(&folder) => {}
        Some(list) => list.push(folder),
        None => doc["trustedFolders"] = Value::Array(vec![folder]),
    }
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n";
    std::fs::create_dir_all(home).map_err(|e| format!("cannot create {}: {e}", home.display()))?;
    let tmp = path.with_extension(format!("json.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}

/// A variable's value, when set and not empty.
fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// How copilot would sign in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Auth {
    /// A BYOK provider is configured (`COPILOT_PROVIDER_BASE_URL`).
    pub byok: bool,
    /// A GitHub token is in the environment.
    pub token: bool,
}

impl Auth {
    /// From the environment.
    pub fn from_env() -> Auth {
        Auth {
            byok: var("COPILOT_PROVIDER_BASE_URL").is_some(),
            token: TOKEN_VARS.iter().any(|v| var(v).is_some()),
        }
    }

    /// Signed in one way or the other.
    pub fn signed_in(self) -> bool {
        self.byok || self.token
    }
}

/// The model: `--model`, else `COPILOT_MODEL` (BYOK), else `model` in `settings.json` or
/// `config.json`, else [`DEFAULT_MODEL`].
pub fn model(arg: Option<&str>, home: &Path, auth: Auth) -> String {
    let configured = || {
        ["settings.json", "config.json"].iter().find_map(|f| {
            read_json(&home.join(f))
                .get("model")?
                .as_str()
                .map(str::to_string)
        })
    };
    arg.map(str::to_string)
        .or_else(|| var("COPILOT_MODEL").filter(|_| auth.byok))
        .or_else(configured)
        .unwrap_or_else(|| DEFAULT_MODEL.to_string())
}

/// True when a BYOK `model` gets the "not in the built-in catalog" warning.
pub fn off_catalog(model: &str, auth: Auth) -> bool {
    auth.byok && !CATALOG.contains(&model)
}

/// True when the folder has no `.github/copilot-instructions.md` (the startup notice).
pub fn instructions_missing(cwd: &Path) -> bool {
    !cwd.join(".github/copilot-instructions.md").is_file()
}

/// `session-state/<id>/events.jsonl`.
pub fn events_path(home: &Path, id: &str) -> PathBuf {
    home.join("session-state").join(id).join("events.jsonl")
}

/// The sessions kept, each with its log's last change.
fn sessions(home: &Path) -> Vec<(String, std::time::SystemTime)> {
    std::fs::read_dir(home.join("session-state"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let id = e.file_name().to_string_lossy().into_owned();
            let changed = std::fs::metadata(events_path(home, &id))
                .ok()?
                .modified()
                .ok()?;
            Some((id, changed))
        })
        .collect()
}

/// The most recently changed session.
pub fn latest_session(home: &Path) -> Option<String> {
    sessions(home).into_iter().max_by_key(|s| s.1).map(|s| s.0)
}

/// The session `id` names: itself, or the one session it is a prefix of.
pub fn find_session(home: &Path, id: &str) -> Option<String> {
    if events_path(home, id).is_file() {
        return Some(id.to_string());
    }
    let hits: Vec<String> = sessions(home)
        .into_iter()
        .map(|s| s.0)
        .filter(|s| id.len() >= 7 && s.starts_with(id))
        .collect();
    (hits.len() == 1).then(|| hits[0].clone())
}

/// The git repository around a folder, as `session.start` reports it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Git {
    /// The folder holding `.git`.
    pub root: String,
    /// The checked-out branch.
    pub branch: String,
    /// The branch's commit (empty when it has none yet).
    pub head: String,
}

/// The repository `dir` is in, if any.
pub fn git(dir: &Path) -> Option<Git> {
    let root = dir.ancestors().find(|d| d.join(".git").exists())?;
    let git = root.join(".git");
    let branch = crate::claude::config::git_branch(root);
    let head = std::fs::read_to_string(git.join("refs/heads").join(&branch))
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    Some(Git {
        root: root.to_string_lossy().into_owned(),
        branch,
        head,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_folder_trusts_itself_and_what_is_below_it() {
        let home = tempfile::tempdir().unwrap();
        let proj = Path::new("/tmp/x/proj");
        assert!(!trusted(home.path(), proj));
        std::fs::write(home.path().join("config.json"), r#"{"a":1}"#).unwrap();
        remember(home.path(), proj).unwrap();
        remember(home.path(), proj).unwrap();
        assert!(trusted(home.path(), proj));
        assert!(trusted(home.path(), &proj.join("sub")));
        assert!(!trusted(home.path(), Path::new("/tmp/x")));
        let doc = read_json(&home.path().join("config.json"));
        assert_eq!(doc["a"], 1);
        assert_eq!(doc["trustedFolders"], serde_json::json!(["/tmp/x/proj"]));
    }

    #[test]
    fn hooks_come_from_settings_and_the_hooks_folder() {
        let home = tempfile::tempdir().unwrap();
        let entry = |cmd: &str| {
            serde_json::json!({ "hooks": { "Stop": [ { "hooks": [
            { "type": "command", "command": cmd, "timeout": 30 } ] } ] } })
        };
        std::fs::write(
            home.path().join("settings.json"),
            entry("a Stop").to_string(),
        )
        .unwrap();
        std::fs::create_dir_all(home.path().join("hooks")).unwrap();
        std::fs::write(
            home.path().join("hooks/b.json"),
            entry("b Stop").to_string(),
        )
        .unwrap();
        std::fs::write(
            home.path().join("hooks/c.json"),
            r#"{"hooks":{"Stop":[{"x":1}]}}"#,
        )
        .unwrap();
        assert_eq!(
            hooks(&hook_docs(home.path())).commands("Stop"),
            ["a Stop", "b Stop"]
        );
    }
}
