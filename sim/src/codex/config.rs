//! Where codex keeps things and what it reads from `config.toml`.
//!
//! Home: `$CODEX_HOME`, else `$HOME/.codex`. From `config.toml`: `model`,
//! `[projects."<dir>"] trust_level = "trusted"` and
//! `[hooks.state."<key>"] trusted_hash = "sha256:…"`, `[features] hooks` (and its alias
//! `codex_hooks`): `false` means no hook runs; everything else is
//! parsed (so syntax errors are reported as the real CLI reports them) and ignored. Rollouts live in
//! `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<thread id>.jsonl`.

use std::path::{Path, PathBuf};

use super::config_toml::{self, Doc};

/// `$CODEX_HOME` (relative to `cwd` when relative; it must exist, as in the
/// real CLI), else `$HOME/.codex`.
pub fn codex_home(cwd: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
        let dir = cwd.join(dir);
        if !dir.is_dir() {
            return Err(format!(
                "CODEX_HOME points to {:?}, but that path does not exist",
                dir.display().to_string()
            ));
        }
        return Ok(dir.canonicalize().unwrap_or(dir));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".codex"))
        .ok_or_else(|| "HOME is not set (and CODEX_HOME is not either)".to_string())
}

/// `config.toml`, parsed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Config {
    /// Its path.
    pub path: PathBuf,
    /// Its contents.
    pub doc: Doc,
}

impl Config {
    /// Reads `<home>/config.toml` (a missing file is an empty config); errors are worded as the
    /// real CLI's.
    pub fn load(home: &Path) -> Result<Config, String> {
        let path = home.join("config.toml");
        let text = read(&path)?;
        let doc = config_toml::parse(&text).map_err(|e| e.report(&path))?;
        Ok(Config { path, doc })
    }

    /// The configured default model.
    pub fn model(&self) -> Option<String> {
        self.doc.str(&["model"]).map(str::to_string)
    }

    /// True when `dir` has `trust_level = "trusted"`.
    pub fn trusted(&self, dir: &Path) -> bool {
        let key = dir.to_string_lossy();
        self.doc.str(&["projects", &key, "trust_level"]) == Some("trusted")
    }

    /// False when `[features]` turns hooks off (`hooks = false`, or its deprecated alias
    /// `codex_hooks = false`): then no hook runs, as with the real CLI.
    pub fn hooks_enabled(&self) -> bool {
        ["hooks", "codex_hooks"].iter().all(|key| {
            self.doc
                .get(&["features", key])
                .and_then(toml::Value::as_bool)
                != Some(false)
        })
    }

    /// The `trusted_hash` recorded for a hook key.
    pub fn hook_hash(&self, key: &str) -> Option<&str> {
        self.doc.str(&["hooks", "state", key, "trusted_hash"])
    }
}

/// The nearest directory at or above `dir` that holds a `.git` (dir or file).
pub fn git_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The trust dialog shows when the scenario forces it, or when `cwd` is in a
/// git repository and neither `cwd` nor the repository root is trusted.
pub fn trust_needed(config: &Config, cwd: &Path, forced: bool) -> bool {
    if forced {
        return true;
    }
    match git_root(cwd) {
        Some(root) => !config.trusted(cwd) && !config.trusted(&root),
        None => false,
    }
}

/// One string to set: table path, key, value.
pub type Setting = (Vec<String>, String, String);

/// The file's text (a missing file is empty), or the real CLI's error for an unreadable one.
fn read(path: &Path) -> Result<String, String> {
    let fail = |e: &dyn std::fmt::Display| {
        format!(
            "Error loading config.toml: Failed to read config file {}: {e}",
            path.display()
        )
    };
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|e| fail(&e.utf8_error())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(fail(&e)),
    }
}

/// Writes settings into `config.toml` (created if missing) as one edit that keeps the rest of
/// the file as written, through a temp file and a rename. Startup only, never per turn.
pub fn write_settings(path: &Path, settings: &[Setting]) -> Result<(), String> {
    let mut text = read(path)?;
    for (table, key, value) in settings {
        text = config_toml::set_string(&text, table, key, value)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let tmp = path.with_extension(format!("toml.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

/// The setting that trusts `dir`.
pub fn trust_setting(dir: &Path) -> Setting {
    (
        vec!["projects".into(), dir.to_string_lossy().into_owned()],
        "trust_level".into(),
        "trusted".into(),
    )
}

/// `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl` for a thread
/// created at `created_iso` (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
pub fn rollout_path(home: &Path, created_iso: &str, id: &str) -> PathBuf {
    let part = |r: std::ops::Range<usize>| created_iso.get(r).unwrap_or("00");
    let stamp = format!(
        "{}-{}-{}T{}-{}-{}",
        part(0..4),
        part(5..7),
        part(8..10),
        part(11..13),
        part(14..16),
        part(17..19)
    );
    home.join("sessions")
        .join(part(0..4))
        .join(part(5..7))
        .join(part(8..10))
        .join(format!("rollout-{stamp}-{id}.jsonl"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        Config {
            path: PathBuf::from("/x/config.toml"),
            doc: config_toml::parse(text).unwrap(),
        }
    }

    #[test]
    fn trust_is_read_for_the_dir_or_its_repository_root() {
        let dir = std::env::temp_dir().join(format!("sim-codex-trust-{}", std::process::id()));
        let sub = dir.join("repo/sub");
        std::fs::create_dir_all(&sub).unwrap();
        let outside = dir.join("plain");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(dir.join("repo/.git")).unwrap();
        let empty = config("");
        assert!(trust_needed(&empty, &sub, false), "in a repo, untrusted");
        assert!(!trust_needed(&empty, &outside, false), "not in a repo");
        assert!(
            trust_needed(&empty, &outside, true),
            "forced by the scenario"
        );
        let root = dir.join("repo");
        let by_root = config(&format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            root.display()
        ));
        assert!(!trust_needed(&by_root, &sub, false));
        let by_cwd = config(&format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            sub.display()
        ));
        assert!(!trust_needed(&by_cwd, &sub, false));
        let untrusted = config(&format!(
            "[projects.\"{}\"]\ntrust_level = \"untrusted\"\n",
            sub.display()
        ));
        assert!(trust_needed(&untrusted, &sub, false));
        assert!(empty.hooks_enabled());
        assert!(!config("[features]\nhooks = false\n").hooks_enabled());
        assert!(!config("features.codex_hooks = false\n").hooks_enabled());
        assert!(config("[features]\nhooks = true\n").hooks_enabled());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn settings_are_added_or_changed_in_place() {
        let dir = std::env::temp_dir().join(format!("sim-codex-cfg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("config.toml");
        write_settings(&path, &[trust_setting(Path::new("/p"))]).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[projects.\"/p\"]\ntrust_level = \"trusted\"\n"
        );
        let hook = (
            vec!["hooks".into(), "state".into(), "/h.json:stop:0:0".into()],
            "trusted_hash".into(),
            "sha256:00".into(),
        );
        write_settings(&path, &[trust_setting(Path::new("/q")), hook]).unwrap();
        let c = Config::load(&dir).unwrap();
        assert!(c.trusted(Path::new("/p")) && c.trusted(Path::new("/q")));
        assert_eq!(c.hook_hash("/h.json:stop:0:0"), Some("sha256:00"));
        std::fs::write(&path, "[projects.\"/p\"]\ntrust_level = \"untrusted\"\n").unwrap();
        write_settings(&path, &[trust_setting(Path::new("/p"))]).unwrap();
        assert!(Config::load(&dir).unwrap().trusted(Path::new("/p")));
        std::fs::write(&path, "model = \n").unwrap();
        let err = Config::load(&dir).unwrap_err();
        let shown = path.display();
        assert_eq!(
            err,
            format!(
                "Error loading config.toml:\n{shown}:1:9: string values must be quoted, expected literal string\n  |\n1 | model = \n  |         ^"
            )
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn rollout_paths_use_the_creation_time() {
        assert_eq!(
            rollout_path(Path::new("/h"), "2026-12-02T19:55:47.022Z", "01a2-x"),
            PathBuf::from("/h/sessions/2026/12/02/rollout-2026-12-02T19-55-47-01a2-x.jsonl")
        );
    }
}
