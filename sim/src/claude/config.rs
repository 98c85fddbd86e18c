//! Where Claude keeps things, and what it reads at startup.
//!
//! Config dir: `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`. `.claude.json`
//! (onboarding, per-project trust): `$CLAUDE_CONFIG_DIR/.claude.json`, else
//! `$HOME/.claude.json`. Transcripts: `<config>/projects/<encoded cwd>/<id>.jsonl`.
//! Settings: `<config>/settings.json` plus `--settings` (a path or inline JSON).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::hooks::{Hooks, TimeoutUnit};
use crate::json::{Source, inline_or_file};

/// Resolved locations.
#[derive(Clone, Debug, PartialEq)]
pub struct Paths {
    /// The config dir (`projects/`, `settings.json`, `sessions/` live here).
    pub config_dir: PathBuf,
    /// The `.claude.json` file.
    pub claude_json: PathBuf,
    /// The working directory, resolved (what the real CLI reports as `cwd`).
    pub cwd: PathBuf,
}

/// Reads `CLAUDE_CONFIG_DIR`, `HOME` and the working directory.
pub fn paths() -> Result<Paths, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    let home = || {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .ok_or("HOME is not set")
    };
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => {
            let dir = cwd.join(dir);
            Ok(Paths {
                claude_json: dir.join(".claude.json"),
                config_dir: dir,
                cwd,
            })
        }
        None => {
            let home = home()?;
            Ok(Paths {
                config_dir: home.join(".claude"),
                claude_json: home.join(".claude.json"),
                cwd,
            })
        }
    }
}

/// Every character outside `[A-Za-z0-9]` becomes `-` (per UTF-16 unit, as in JavaScript).
pub fn encode_cwd(cwd: &str) -> String {
    cwd.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_string()
            } else {
                "-".repeat(c.len_utf16())
            }
        })
        .collect()
}

/// `<config>/projects/<encoded cwd>/<session>.jsonl`.
pub fn transcript_path(config_dir: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    config_dir
        .join("projects")
        .join(encode_cwd(&cwd.to_string_lossy()))
        .join(format!("{session_id}.jsonl"))
}

/// Reads `.claude.json` (a missing file is an empty object).
pub fn read_claude_json(path: &Path) -> Result<Value, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| format!("{}: invalid JSON: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Object(Default::default())),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// True when onboarding (theme, sign-in) has been completed.
pub fn onboarded(claude_json: &Value) -> bool {
    claude_json.get("hasCompletedOnboarding") == Some(&Value::Bool(true))
}

/// True when the trust dialog was accepted for `cwd`.
pub fn trusted(claude_json: &Value, cwd: &Path) -> bool {
    let key = cwd.to_string_lossy();
    claude_json
        .pointer(&format!(
            "/projects/{}",
            key.replace('~', "~0").replace('/', "~1")
        ))
        .and_then(|p| p.get("hasTrustDialogAccepted"))
        == Some(&Value::Bool(true))
}

/// Sets `projects["<cwd>"].hasTrustDialogAccepted = true`, keeping every
/// other key, and replaces the file atomically (temp file + rename).
pub fn accept_trust(path: &Path, cwd: &Path) -> Result<(), String> {
    update_claude_json(path, |root| trust_cwd(root, cwd))
}

fn trust_cwd(root: &mut serde_json::Map<String, Value>, cwd: &Path) {
    let projects = root
        .entry("projects")
        .or_insert_with(|| Value::Object(Default::default()));
    if !projects.is_object() {
        *projects = Value::Object(Default::default());
    }
    let entry = projects.as_object_mut().map(|p| {
        p.entry(cwd.to_string_lossy().into_owned())
            .or_insert_with(|| Value::Object(Default::default()))
    });
    match entry {
        Some(Value::Object(project)) => {
            project.insert("hasTrustDialogAccepted".into(), Value::Bool(true));
        }
        Some(other) => *other = serde_json::json!({"hasTrustDialogAccepted": true}),
        None => {}
    }
}

/// Changes `.claude.json` with `change`, keeping every other key, and replaces the file
/// atomically (temp file + rename).
pub fn update_claude_json(
    path: &Path,
    change: impl FnOnce(&mut serde_json::Map<String, Value>),
) -> Result<(), String> {
    let mut doc = read_claude_json(path)?;
    let root = doc
        .as_object_mut()
        .ok_or_else(|| format!("{}: not a JSON object", path.display()))?;
    change(root);
    write_json(path, &doc)
}

/// Writes `permissions.defaultMode` into the user's `settings.json` (what the auto-mode opt-in's
/// Yes does), keeping every other key.
pub fn set_user_default_mode(config_dir: &Path, mode: &str) -> Result<(), String> {
    let path = config_dir.join("settings.json");
    let mut doc = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| format!("{}: invalid JSON: {e}", path.display()))?,
        Err(_) => serde_json::json!({}),
    };
    doc["permissions"]["defaultMode"] = Value::String(mode.to_string());
    write_json(&path, &doc)
}

fn write_json(path: &Path, doc: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(doc).map_err(|e| e.to_string())?;
    let tmp = path.with_extension(format!("json.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}

/// Settings merged from `<config>/settings.json` and `--settings`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// All hooks, user settings first.
    pub hooks: Hooks,
    /// `permissions.defaultMode` (the `--settings` value wins).
    pub default_mode: Option<String>,
    /// `permissions.defaultMode` of the user's settings.json alone.
    pub user_default_mode: Option<String>,
    /// Whether `--settings` names a `permissions.defaultMode`.
    pub flag_default_mode: bool,
    /// `skipDangerousModePermissionPrompt` from either source: no bypass warning.
    pub skip_dangerous: bool,
}

/// Reads a `--settings` value: inline JSON when it starts with `{`, else a file path.
pub fn read_settings_arg(value: &str) -> Result<Value, String> {
    let (text, source) =
        inline_or_file(value).map_err(|e| format!("--settings: cannot read {value}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| match source {
        Source::Inline => format!("--settings: invalid JSON: {e}"),
        Source::File => format!("--settings: {value}: invalid JSON: {e}"),
    })
}

/// Loads both settings sources.
pub fn load_settings(config_dir: &Path, arg: Option<&str>) -> Result<Settings, String> {
    let mut sources = Vec::new();
    let user = config_dir.join("settings.json");
    match std::fs::read_to_string(&user) {
        Ok(text) => {
            let v = serde_json::from_str(&text)
                .map_err(|e| format!("{}: invalid JSON: {e}", user.display()))?;
            sources.push((user.display().to_string(), v));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot read {}: {e}", user.display())),
    }
    if let Some(arg) = arg {
        sources.push(("--settings".to_string(), read_settings_arg(arg)?));
    }
    let mut settings = Settings::default();
    for (name, v) in sources {
        let hooks = Hooks::from_settings(&v, TimeoutUnit::Seconds, Duration::from_secs(600))
            .map_err(|e| format!("{name}: {e}"))?;
        settings.hooks.extend(hooks);
        if let Some(mode) = v
            .pointer("/permissions/defaultMode")
            .and_then(Value::as_str)
        {
            settings.default_mode = Some(mode.to_string());
            if name == "--settings" {
                settings.flag_default_mode = true;
            } else {
                settings.user_default_mode = Some(mode.to_string());
            }
        }
        if v.get("skipDangerousModePermissionPrompt") == Some(&Value::Bool(true)) {
            settings.skip_dangerous = true;
        }
    }
    Ok(settings)
}

/// The branch of the git repository containing `dir` (empty when none).
pub fn git_branch(dir: &Path) -> String {
    for d in dir.ancestors() {
        let git = d.join(".git");
        let head = if git.is_dir() {
            std::fs::read_to_string(git.join("HEAD")).ok()
        } else if git.is_file() {
            // A worktree: `.git` holds `gitdir: <path>`.
            std::fs::read_to_string(&git)
                .ok()
                .and_then(|t| {
                    t.trim()
                        .strip_prefix("gitdir:")
                        .map(|p| d.join(p.trim()).join("HEAD"))
                })
                .and_then(|p| std::fs::read_to_string(p).ok())
        } else {
            continue;
        };
        return match head {
            Some(h) => h
                .trim()
                .strip_prefix("ref: refs/heads/")
                .map_or_else(|| "HEAD".to_string(), str::to_string),
            None => String::new(),
        };
    }
    String::new()
}

#[cfg(test)]
mod tests;
