//! What tells how this umbel was installed ([`crate::core::installed`]): its own path, the npm
//! launcher's `UMBEL_INSTALLED_BY`, the installer script's note, cargo's bin folder, and the
//! files an unpacked release tarball keeps beside the binary.

use crate::core::installed::{Evidence, Installed, installed};
use std::path::PathBuf;

/// How this umbel was installed.
pub fn this_umbel() -> Installed {
    installed(&evidence())
}

fn evidence() -> Evidence {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .unwrap_or_default();
    let home = super::host::home_dir();
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".local/share")));
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".cargo")))
        .map(|c| c.join("bin"))
        .map(|b| b.canonicalize().unwrap_or(b));
    let beside = exe
        .parent()
        .is_some_and(|dir| dir.join("CHANGELOG.md").is_file() && dir.join("man").is_dir());
    Evidence {
        by_env: std::env::var("UMBEL_INSTALLED_BY").ok(),
        installer_note: data
            .and_then(|d| std::fs::read_to_string(d.join("umbel/installed-by")).ok()),
        cargo_bin,
        beside_release_files: beside,
        exe,
    }
}
