//! What the verbs learn from the machine around them rather than from their input: the current
//! directory, the wall clock, and whether a path is a program. (The monotonic clock,
//! `Instant::now`, stays with the verbs: it only bounds their loops and never reaches a record;
//! the wall clock, which does, is read here.)

use crate::core::errors::{Error, Result};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// umbel's own binary (for what it starts later: a worker's rules, warm `-p` refills).
pub fn own_binary() -> Result<PathBuf> {
    std::env::current_exe()
        .map_err(|e| Error::io("cannot find umbel's own binary", "/proc/self/exe", e))
}

/// The user's home folder, when `HOME` names one.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// This process's working directory.
pub fn current_dir() -> std::io::Result<PathBuf> {
    std::env::current_dir()
}

/// This process's working directory, as umbel's error.
pub fn current_dir_or_error() -> Result<PathBuf> {
    current_dir().map_err(|e| Error::io("cannot read the current directory", ".", e))
}

/// `path` with symlinks and `..` resolved (it must exist).
pub fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    std::fs::canonicalize(path)
}

/// `path` made absolute against the current directory, without touching the disk.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether anything (a file, a folder) is at `path`, following links.
pub fn exists(path: &Path) -> bool {
    std::fs::metadata(path).is_ok()
}

/// `path` as one spelling of the place it names: absolute, symlinks, `.`, `..` and trailing
/// slashes resolved. The part that does not exist yet is joined, lexically, onto the real path
/// of its deepest existing ancestor (nothing there can be a symlink).
pub fn real_path(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut real = PathBuf::new();
    for part in absolute(path).components() {
        match part {
            Component::Prefix(_) | Component::RootDir => real.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                real.pop();
            }
            Component::Normal(name) => {
                real.push(name);
                if let Ok(resolved) = std::fs::canonicalize(&real) {
                    real = resolved;
                }
            }
        }
    }
    real
}

/// Whether `path` is a file someone may execute.
pub fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_has_one_real_path_however_it_is_spelled() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("canonical");
        let root = base.join("root");
        std::fs::create_dir(&root).expect("mkdir");
        std::os::unix::fs::symlink(&root, base.join("link")).expect("symlink");
        for spelling in [
            "root/",
            "root/.",
            "link",
            "link/",
            "root/../root",
            "link/../root",
        ] {
            assert_eq!(real_path(&base.join(spelling)), root, "{spelling}");
        }
        let fresh = root.join("not").join("yet");
        assert_eq!(real_path(&base.join("link/not/yet/")), fresh);
        assert_eq!(real_path(&base.join("link/not/x/../yet")), fresh);
    }
}
