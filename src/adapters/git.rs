//! Running `git` for a worker's worktree (`spawn --worktree`, `diff --git`, `kill --purge`),
//! and the few files around it (`.git/info/exclude`, the `.worktreeinclude` copies). Each call
//! is a `git` process with a clean, explicit environment: umbel's PATH and HOME (the user's git
//! configuration, `safe.directory` included), the C locale, no prompts and no optional locks, and
//! never a `GIT_DIR` or `GIT_INDEX_FILE` umbel itself was started with.

use super::exec::{Program, RunError, Watch, run_program};
use crate::core::errors::{Error, Result};
use std::path::Path;
use std::time::Duration;

/// The longest one git call may take (`worktree add` checks out every file).
const BOUND: Duration = Duration::from_secs(120);

/// The variables every git call gets.
#[derive(Debug, Clone)]
pub struct Git {
    env: Vec<(String, String)>,
}

/// What a git call printed, when it exited non-zero.
#[derive(Debug)]
pub struct Failed {
    pub code: Option<i32>,
    pub stderr: String,
}

impl Git {
    /// Git as umbel runs it, with PATH and HOME taken from umbel's environment `env`.
    pub fn new(env: &[(String, String)]) -> Self {
        let mut own: Vec<(String, String)> = env
            .iter()
            .filter(|(k, _)| k == "PATH" || k == "HOME")
            .cloned()
            .collect();
        for (k, v) in [
            ("LC_ALL", "C"),
            ("GIT_TERMINAL_PROMPT", "0"),
            ("GIT_OPTIONAL_LOCKS", "0"),
        ] {
            own.push((k.into(), v.into()));
        }
        Git { env: own }
    }

    /// Runs `git ARGS` in `dir` (with `extra` variables); its stdout, or how it failed.
    pub fn try_run(
        &self,
        dir: &Path,
        args: &[&str],
        extra: &[(&str, &Path)],
    ) -> Result<Vec<u8>, Failed> {
        let mut env = self.env.clone();
        env.extend(
            extra
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string_lossy().into_owned())),
        );
        let program = Program {
            argv: std::iter::once("git")
                .chain(args.iter().copied())
                .map(str::to_string)
                .collect(),
            dir: Some(dir.to_path_buf()),
            env,
            clear_env: true,
        };
        let failed = |stderr: String| Failed { code: None, stderr };
        match run_program(&program, None, BOUND, Watch::default()) {
            Ok(done) if done.status.success() => Ok(done.stdout),
            Ok(done) => Err(Failed {
                code: done.status.code(),
                stderr: String::from_utf8_lossy(&done.stderr).trim().to_string(),
            }),
            Err(RunError::Spawn(e)) => Err(failed(format!("cannot run git: {e}"))),
            Err(RunError::TimedOut) => {
                Err(failed(format!("took longer than {}s", BOUND.as_secs())))
            }
            Err(RunError::Interrupted) => Err(failed("interrupted".into())),
        }
    }

    /// [`Git::try_run`], a failure as umbel's error naming the command and the folder.
    pub fn run(&self, dir: &Path, args: &[&str]) -> Result<Vec<u8>> {
        self.run_with(dir, args, &[])
    }

    /// [`Git::run`] with `extra` variables.
    pub fn run_with(&self, dir: &Path, args: &[&str], extra: &[(&str, &Path)]) -> Result<Vec<u8>> {
        self.try_run(dir, args, extra).map_err(|f| Error::Git {
            command: format!("git {} (in {})", args.join(" "), dir.display()),
            message: f.stderr,
        })
    }

    /// [`Git::run`]'s stdout as one trimmed line.
    pub fn line(&self, dir: &Path, args: &[&str]) -> Result<String> {
        let out = self.run(dir, args)?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }
}

/// A text file's content, empty when it does not exist.
pub fn read_or_empty(path: &Path) -> Result<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(Error::io("read", path, e)),
    }
}

/// Writes `text` to `path` (its folder made if missing).
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    }
    std::fs::write(path, text).map_err(|e| Error::io("write", path, e))
}

/// Copies each of `paths` (relative) from folder `from` to folder `to`, keeping its mode; the
/// ones copied. Nothing is written through a symlink: a path whose folder or file in `to` is a
/// symlink (the checked-out commit may track `.env -> /some/file`) is left out, and the file
/// is opened with `O_NOFOLLOW`.
pub fn copy_files(from: &Path, to: &Path, paths: &[String]) -> Result<Vec<String>> {
    let mut copied = Vec::new();
    for rel in paths {
        let source = from.join(rel);
        if !source.is_file() || !folders_without_links(to, Path::new(rel))? {
            continue;
        }
        if copy_no_follow(&source, &to.join(rel))? {
            copied.push(rel.clone());
        }
    }
    Ok(copied)
}

/// Makes the folders of `rel` under `to` that are missing, one by one; false when one of them
/// (or `rel` itself) is a symlink, or not a folder.
fn folders_without_links(to: &Path, rel: &Path) -> Result<bool> {
    let mut at = to.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let last = i + 1 == parts.len();
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => return Ok(false),
            Ok(meta) if !last && !meta.is_dir() => return Ok(false),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !last => {
                std::fs::create_dir(&at).map_err(|e| Error::io("create", &at, e))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("read", &at, e)),
        }
    }
    Ok(true)
}

/// Copies `source` to `target`, never through a symlink at `target` (false: one is there).
fn copy_no_follow(source: &Path, target: &Path) -> Result<bool> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut input = std::fs::File::open(source).map_err(|e| Error::io("read", source, e))?;
    let mode = input
        .metadata()
        .map_err(|e| Error::io("read", source, e))?
        .permissions()
        .mode();
    let opened = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode & 0o7777)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(target);
    let mut output = match opened {
        Ok(file) => file,
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Ok(false);
        }
        Err(e) => return Err(Error::io("write", target, e)),
    };
    std::io::copy(&mut input, &mut output).map_err(|e| Error::io("copy", source, e))?;
    output
        .set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))
        .map_err(|e| Error::io("write", target, e))?;
    Ok(true)
}

/// Removes a folder umbel made (a worktree git no longer knows), if it is there.
pub fn remove_dir(path: &Path) -> Result<()> {
    match std::fs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove", path, e)),
    }
}

/// Removes a file umbel made, if it is there.
pub fn remove_file(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove", path, e)),
    }
}
