//! Gemini's files under its home: settings, trusted folders, the projects map.
//!
//! `$GEMINI_CLI_HOME` acts as the home directory (default `$HOME`); everything
//! lives in `<home>/.gemini/`: `settings.json` (hooks, auth, folder trust),
//! `trustedFolders.json` (`{"<abs path>":"TRUST_FOLDER"}`), `projects.json`
//! (`{"projects":{"<cwd>":"<short name>"}}`) and the chats under
//! `tmp/<short name>/chats/`. Files are rewritten in place (no temp file
//! renamed over them, no truncation to zero): both force a data flush on ext4.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::hooks::{Hooks, TimeoutUnit};

/// Resolved locations.
#[derive(Clone, Debug, PartialEq)]
pub struct Paths {
    /// The home directory gemini uses (`$GEMINI_CLI_HOME`, else `$HOME`).
    pub home: PathBuf,
    /// `<home>/.gemini`.
    pub dir: PathBuf,
    /// The working directory, resolved (realpath).
    pub cwd: PathBuf,
}

impl Paths {
    /// `<home>/.gemini/settings.json`.
    pub fn settings(&self) -> PathBuf {
        self.dir.join("settings.json")
    }

    /// `<home>/.gemini/trustedFolders.json`.
    pub fn trusted_folders(&self) -> PathBuf {
        self.dir.join("trustedFolders.json")
    }

    /// `<home>/.gemini/projects.json`.
    pub fn projects(&self) -> PathBuf {
        self.dir.join("projects.json")
    }
}

/// Reads `GEMINI_CLI_HOME`, `HOME` and the working directory.
pub fn paths() -> Result<Paths, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    if super::flavor::qwen() {
        // qwen's global folder: `$QWEN_HOME`, else `~/.qwen`.
        let home = std::env::var_os("HOME").filter(|v| !v.is_empty());
        let home = home.map(|h| cwd.join(h)).ok_or("HOME is not set")?;
        let dir = std::env::var_os("QWEN_HOME")
            .filter(|v| !v.is_empty())
            .map_or_else(|| home.join(".qwen"), |d| cwd.join(d));
        return Ok(Paths { home, dir, cwd });
    }
    let home = ["GEMINI_CLI_HOME", "HOME"]
        .iter()
        .find_map(|k| std::env::var_os(k).filter(|v| !v.is_empty()))
        .map(|h| cwd.join(h))
        .ok_or("neither GEMINI_CLI_HOME nor HOME is set")?;
    Ok(Paths {
        dir: home.join(".gemini"),
        home,
        cwd,
    })
}

/// Reads a JSON file; a missing file is an empty object.
pub fn read_json(path: &Path) -> Result<Value, String> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Value::Object(Map::new())),
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| format!("{}: invalid JSON: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Object(Map::new())),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Writes `text` to `path` in place: a new file is created (mode 0600), an
/// existing one is overwritten from the start and cut to the new length,
/// never truncated to zero first.
pub fn write_in_place(path: &Path, text: &str) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
        .map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)?;
    file.set_len(text.len() as u64).map_err(fail)
}

/// What `settings.json` says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// Hooks (`timeout` in milliseconds, default 60 s).
    pub hooks: Hooks,
    /// `name` of each hook command: (event, command line, name), for `Executing Hook: <name>`.
    pub hook_names: Vec<(String, String, String)>,
    /// `security.auth.selectedType`.
    pub auth_type: Option<String>,
    /// `security.folderTrust.enabled` (default true).
    pub folder_trust: bool,
    /// `model.name`.
    pub model: Option<String>,
    /// `tools.exclude`: tools the model is not offered (a call to one fails as unknown).
    pub excluded_tools: Vec<String>,
}

/// Loads `<home>/.gemini/settings.json` (missing = defaults).
pub fn load_settings(paths: &Paths) -> Result<Settings, String> {
    let path = paths.settings();
    let v = read_json(&path)?;
    let hooks = Hooks::from_settings(&v, TimeoutUnit::Millis, Duration::from_secs(60))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut hook_names = Vec::new();
    for (event, groups) in v
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for group in groups.as_array().into_iter().flatten() {
            for h in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let (Some(c), Some(n)) = (
                    h.get("command").and_then(Value::as_str),
                    h.get("name").and_then(Value::as_str),
                ) {
                    hook_names.push((event.clone(), c.to_string(), n.to_string()));
                }
            }
        }
    }
    let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
    Ok(Settings {
        hooks,
        hook_names,
        auth_type: text("/security/auth/selectedType"),
        folder_trust: v
            .pointer("/security/folderTrust/enabled")
            .and_then(Value::as_bool)
            // qwen asks about folders only when told to (0.24.4's default: false).
            .unwrap_or(!super::flavor::qwen()),
        model: text("/model/name"),
        excluded_tools: v
            .pointer("/tools/exclude")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
    })
}

/// Trust levels of `trustedFolders.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrustLevel {
    /// The folder and everything below it.
    TrustFolder,
    /// The rule path's parent and everything below it.
    TrustParent,
    /// Explicitly untrusted.
    DoNotTrust,
}

impl TrustLevel {
    /// The value written to the file.
    pub fn as_str(self) -> &'static str {
        match self {
            TrustLevel::TrustFolder => "TRUST_FOLDER",
            TrustLevel::TrustParent => "TRUST_PARENT",
            TrustLevel::DoNotTrust => "DO_NOT_TRUST",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "TRUST_FOLDER" => TrustLevel::TrustFolder,
            "TRUST_PARENT" => TrustLevel::TrustParent,
            "DO_NOT_TRUST" => TrustLevel::DoNotTrust,
            _ => return None,
        })
    }
}

fn real(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// The real CLI's rule: the longest rule path whose effective folder (the
/// parent for `TRUST_PARENT`) contains `cwd` decides; both sides resolved to
/// real paths. `Some(false)` = explicitly untrusted, `None` = unknown.
pub fn is_trusted(trusted_folders: &Value, cwd: &Path) -> Option<bool> {
    let location = real(cwd);
    let mut best: Option<(usize, TrustLevel)> = None;
    for (rule, level) in trusted_folders.as_object().into_iter().flatten() {
        let Some(level) = level.as_str().and_then(TrustLevel::parse) else {
            continue;
        };
        let rule_path = Path::new(rule);
        let effective = match level {
            TrustLevel::TrustParent => rule_path.parent().unwrap_or(rule_path),
            _ => rule_path,
        };
        if location.starts_with(real(effective)) && best.is_none_or(|(len, _)| rule.len() > len) {
            best = Some((rule.len(), level));
        }
    }
    best.map(|(_, level)| level != TrustLevel::DoNotTrust)
}

/// Records `level` for `cwd` in `trustedFolders.json`, keeping other entries
/// (written as `JSON.stringify(…, null, 2)` would).
pub fn set_trust(paths: &Paths, level: TrustLevel) -> Result<(), String> {
    let path = paths.trusted_folders();
    let mut doc = read_json(&path)?;
    let map = doc
        .as_object_mut()
        .ok_or_else(|| format!("{}: not a JSON object", path.display()))?;
    map.insert(
        paths.cwd.to_string_lossy().into_owned(),
        Value::from(level.as_str()),
    );
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    write_in_place(&path, &text)
}

/// The project's short name from `projects.json`; a new project gets the
/// basename of the cwd (made unique with `-1`, `-2`, …) and is recorded.
pub fn project_name(paths: &Paths) -> Result<String, String> {
    let path = paths.projects();
    let mut doc = read_json(&path)?;
    let key = paths.cwd.to_string_lossy().into_owned();
    if let Some(name) = doc
        .pointer("/projects")
        .and_then(|p| p.get(&key))
        .and_then(Value::as_str)
    {
        return Ok(name.to_string());
    }
    let root = doc
        .as_object_mut()
        .ok_or_else(|| format!("{}: not a JSON object", path.display()))?;
    let projects = root
        .entry("projects")
        .or_insert_with(|| Value::Object(Map::new()));
    if !projects.is_object() {
        *projects = Value::Object(Map::new());
    }
    let taken: Vec<String> = projects
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, v)| v.as_str().map(str::to_string))
        .collect();
    let base = paths
        .cwd
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "root".to_string());
    let name = unique_name(&base, &taken);
    if let Some(p) = projects.as_object_mut() {
        p.insert(key, Value::from(name.as_str()));
    }
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    write_in_place(&path, &text)?;
    let root_marker = paths.dir.join("tmp").join(&name).join(".project_root");
    if !root_marker.exists() {
        write_in_place(&root_marker, &paths.cwd.to_string_lossy())?;
    }
    Ok(name)
}

/// `base`, or `base-1`, `base-2`, … whichever is not in `taken`.
pub fn unique_name(base: &str, taken: &[String]) -> String {
    let mut name = base.to_string();
    let mut n = 1;
    while taken.contains(&name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests;
