//! The CLI releases umbel has learnt, one per installed binary, in `<state root>/cli-versions.json`:
//! a CLI's version is read once per binary (its npm package's `package.json`, else `--version`),
//! not once per spawn. A binary is known by its resolved path, size, modification and change
//! times and inode: npm extracts every file with the same fixed modification time, so an
//! upgrade that leaves a launcher's size alone is still seen by its new change time and inode.

use super::atomic::write_json_atomic;
use crate::core::errors::Result;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The cache file's name in the state root.
const FILE: &str = "cli-versions.json";

/// How many binaries the cache remembers (the newest learnt win).
const KEEP: usize = 32;

/// How many folders above a binary its `package.json` is looked for (npm's
/// `node_modules/<scope>/<name>/bin/<file>` is two up).
const PACKAGE_REACH: usize = 4;

/// An installed binary, as the cache knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BinaryId {
    /// The binary with every link resolved.
    pub path: PathBuf,
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub inode: u64,
}

/// One learnt release.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    #[serde(flatten)]
    binary: BinaryId,
    version: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cache {
    binaries: Vec<Entry>,
}

/// The binary `bin` resolves to, as the cache knows it; `None` when it cannot be read.
pub fn identify(bin: &Path) -> Option<BinaryId> {
    let path = std::fs::canonicalize(bin).ok()?;
    let meta = std::fs::metadata(&path).ok()?;
    Some(BinaryId {
        size: meta.len(),
        mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
        ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
        inode: meta.ino(),
        path,
    })
}

/// The release learnt for `binary`, if the cache has it.
pub fn cached(root: &Path, binary: &BinaryId) -> Option<String> {
    read(root)
        .binaries
        .into_iter()
        .find(|e| &e.binary == binary)
        .map(|e| e.version)
}

/// Remembers `version` for `binary` (replacing what the cache held for its path).
pub fn remember(root: &Path, binary: &BinaryId, version: &str) -> Result<()> {
    let mut cache = read(root);
    cache.binaries.retain(|e| e.binary.path != binary.path);
    cache.binaries.push(Entry {
        binary: binary.clone(),
        version: version.to_string(),
    });
    let excess = cache.binaries.len().saturating_sub(KEEP);
    cache.binaries.drain(..excess);
    write_json_atomic(&root.join(FILE), &cache)
}

/// The `package.json` texts in the folders above `binary` (nearest first), for the caller to
/// find its CLI's package among.
pub fn package_files(binary: &Path) -> Vec<String> {
    binary
        .ancestors()
        .skip(1)
        .take(PACKAGE_REACH)
        .filter_map(|dir| std::fs::read_to_string(dir.join("package.json")).ok())
        .collect()
}

/// The cache, or an empty one when it is missing or unreadable (it is only a cache).
fn read(root: &Path) -> Cache {
    std::fs::read(root.join(FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_is_remembered_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("state");
        std::fs::create_dir(&root).unwrap();
        let bin = dir.path().join("cli");
        std::fs::write(&bin, "v1").unwrap();
        let id = identify(&bin).unwrap();
        assert_eq!(cached(&root, &id), None);
        remember(&root, &id, "1.2.3").unwrap();
        assert_eq!(cached(&root, &id).as_deref(), Some("1.2.3"));
        // Reinstalled in place with the same size and modification time (as npm does).
        let mtime = std::fs::metadata(&bin).unwrap().modified().unwrap();
        std::fs::remove_file(&bin).unwrap();
        std::fs::write(&bin, "v2").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&bin)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        let again = identify(&bin).unwrap();
        assert_eq!((again.size, again.mtime_ns), (id.size, id.mtime_ns));
        assert_eq!(cached(&root, &again), None);
        remember(&root, &again, "1.2.4").unwrap();
        assert_eq!(cached(&root, &again).as_deref(), Some("1.2.4"));
        assert_eq!(read(&root).binaries.len(), 1, "one entry per path");
    }

    #[test]
    fn a_link_is_known_by_what_it_points_at_and_packages_are_found_above_it() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("node_modules/@x/cli");
        std::fs::create_dir_all(pkg.join("bin")).unwrap();
        std::fs::write(
            pkg.join("package.json"),
            r#"{"name":"@x/cli","version":"0.1.2"}"#,
        )
        .unwrap();
        std::fs::write(pkg.join("bin/cli.js"), "").unwrap();
        let link = dir.path().join("cli");
        std::os::unix::fs::symlink(pkg.join("bin/cli.js"), &link).unwrap();
        let id = identify(&link).unwrap();
        assert!(id.path.ends_with("node_modules/@x/cli/bin/cli.js"));
        let found = package_files(&id.path);
        assert!(found[0].contains("0.1.2"), "{found:?}");
    }
}
