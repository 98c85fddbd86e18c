//! A worker's own git worktree: made by `spawn --worktree` (checked first, unwound on failure),
//! looked at by `status` and `diff --git`, removed by `kill --purge` and `prune` when it holds
//! nothing unmerged. The git calls are `adapters/git.rs`'s; the names, the porcelain and the
//! purge rule are `core/worktree.rs`'s.

use super::Ctx;
use crate::adapters::git::{self, Git};
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::worktree::{
    self as rules, Change, GitDiff, INCLUDE_FILE, Purge, WorktreeMeta, WorktreeStatus,
};
use std::path::{Path, PathBuf};

/// A worktree made for a worker, and the folder the worker runs in (the same place inside it
/// as `--cwd` was inside the repository).
pub struct Made {
    pub meta: WorktreeMeta,
    pub cwd: PathBuf,
}

/// What a new worktree needs, all checked before anything is made.
struct Planned {
    top: PathBuf,
    prefix: String,
    common: PathBuf,
    branch: String,
    base: String,
    path: PathBuf,
}

/// Makes worker `name`'s worktree from the repository holding `cwd`: a new branch (`branch`,
/// else `umbel/<name>`) from `base` (else HEAD). Checks every refusal first, so a refused one
/// leaves nothing behind; a failure after `git worktree add` removes what it made.
pub fn create(
    ctx: &Ctx,
    name: &WorkerName,
    cwd: &Path,
    branch: Option<&str>,
    base: Option<&str>,
) -> Result<Made> {
    let git = Git::new(&ctx.env);
    let planned = plan(&git, name, cwd, branch, base)?;
    let info = planned.common.join("info").join("exclude");
    if let Some(text) = rules::with_exclude_line(&git::read_or_empty(&info)?) {
        git::write_text(&info, &text)?;
    }
    let path = planned.path.to_string_lossy().into_owned();
    let add = [
        "worktree",
        "add",
        "--quiet",
        "-b",
        &planned.branch,
        &path,
        &planned.base,
    ];
    if let Err(e) = git.run(&planned.top, &add) {
        // Another spawn made the branch since the check: that is the refusal, not git's words.
        return Err(match has_branch(&git, &planned.top, &planned.branch) {
            true => Error::BranchExists {
                branch: planned.branch,
                repo: planned.top,
            },
            false => e,
        });
    }
    let mut meta = WorktreeMeta {
        repo: planned.top.clone(),
        branch: planned.branch.clone(),
        base: planned.base.clone(),
        path: planned.path.clone(),
        included: Vec::new(),
    };
    match copy_included(&git, &planned.top, &planned.path) {
        Ok(included) => meta.included = included,
        Err(e) => {
            remove(ctx, &meta);
            return Err(e);
        }
    }
    let prefix = planned.prefix.trim_end_matches('/');
    let cwd = if prefix.is_empty() {
        planned.path.clone()
    } else {
        planned.path.join(prefix)
    };
    Ok(Made { cwd, meta })
}

/// Whether the repository at `top` has branch `branch`.
fn has_branch(git: &Git, top: &Path, branch: &str) -> bool {
    let reference = format!("refs/heads/{branch}");
    git.try_run(top, &["rev-parse", "--verify", "--quiet", &reference], &[])
        .is_ok()
}

/// The repository, branch, base and folder of a new worktree, or why there can be none.
fn plan(
    git: &Git,
    name: &WorkerName,
    cwd: &Path,
    branch: Option<&str>,
    base: Option<&str>,
) -> Result<Planned> {
    let top = match git.try_run(cwd, &["rev-parse", "--show-toplevel"], &[]) {
        Ok(out) => PathBuf::from(String::from_utf8_lossy(&out).trim()),
        Err(failed) => {
            return Err(Error::NotARepo {
                path: cwd.to_path_buf(),
                detail: failed.stderr,
            });
        }
    };
    let prefix = git.line(cwd, &["rev-parse", "--show-prefix"])?;
    let common = PathBuf::from(git.line(
        &top,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )?);
    let branch = match branch.filter(|b| !b.is_empty()) {
        Some(b) => b.to_string(),
        None => rules::default_branch(name.as_str()),
    };
    if git
        .try_run(&top, &["check-ref-format", "--branch", &branch], &[])
        .is_err()
    {
        return Err(Error::usage(format!(
            "`--worktree {branch}`: not a valid branch name (`git check-ref-format --branch` refuses it)"
        )));
    }
    if has_branch(git, &top, &branch) {
        return Err(Error::BranchExists { branch, repo: top });
    }
    let base = resolve_base(git, &top, base)?;
    let path = rules::worktree_path(&top, name.as_str());
    if path.exists() {
        return Err(Error::usage(format!(
            "{} exists already (a worktree an earlier worker left?): `git worktree remove {}` removes it",
            path.display(),
            path.display()
        )));
    }
    Ok(Planned {
        top,
        prefix,
        common,
        branch,
        base,
        path,
    })
}

/// The commit `base` (else HEAD) names in repository `top`.
fn resolve_base(git: &Git, top: &Path, base: Option<&str>) -> Result<String> {
    let rev = base.unwrap_or("HEAD");
    let spec = format!("{rev}^{{commit}}");
    match git.try_run(top, &["rev-parse", "--verify", "--quiet", &spec], &[]) {
        Ok(out) => Ok(String::from_utf8_lossy(&out).trim().to_string()),
        Err(_) if base.is_none() => Err(Error::usage(format!(
            "{} has no commit yet, and a worktree starts from one: commit first, or pass `--base REV`",
            top.display()
        ))),
        Err(_) => Err(Error::usage(format!(
            "`--base {rev}` names no commit in {}",
            top.display()
        ))),
    }
}

/// Copies the untracked files `.worktreeinclude` lists (gitignore patterns, one a line) from
/// the repository into the new worktree; the paths copied.
fn copy_included(git: &Git, top: &Path, path: &Path) -> Result<Vec<String>> {
    if !top.join(INCLUDE_FILE).is_file() {
        return Ok(Vec::new());
    }
    let from = format!("--exclude-from={INCLUDE_FILE}");
    let listing = git.run(top, &["ls-files", "--others", "--ignored", "-z", &from])?;
    git::copy_files(top, path, &rules::included_paths(&listing))
}

/// Removes a worktree and its branch whatever they hold (a spawn unwinding; `--discard`).
pub fn remove(ctx: &Ctx, wt: &WorktreeMeta) {
    let _ = remove_checked(ctx, wt);
}

/// Removes the worktree (forced: the rule already allowed it) and its branch.
fn remove_checked(ctx: &Ctx, wt: &WorktreeMeta) -> Result<()> {
    let git = Git::new(&ctx.env);
    let path = wt.path.to_string_lossy().into_owned();
    if wt.path.exists() {
        git.run(&wt.repo, &["worktree", "remove", "--force", &path])?;
    } else {
        git.run(&wt.repo, &["worktree", "prune"])?;
    }
    git::remove_dir(&wt.path)?;
    if branch_exists(&git, wt) {
        git.run(&wt.repo, &["branch", "-D", &wt.branch])?;
    }
    Ok(())
}

/// Whether the worktree's branch is still in the repository (by its full ref name).
fn branch_exists(git: &Git, wt: &WorktreeMeta) -> bool {
    has_branch(git, &wt.repo, &wt.branch)
}

/// `kill --purge` and `prune`: removes the worktree and its branch when the rule allows (or
/// `discard`); otherwise keeps them and returns what to tell the user.
pub fn purge(ctx: &Ctx, worker: &str, wt: &WorktreeMeta, discard: bool) -> Result<Option<String>> {
    let git = Git::new(&ctx.env);
    let (changes, ignored) = if wt.path.exists() {
        (own_changes(&git, wt)?, own_ignored(&git, wt)?)
    } else {
        (Vec::new(), Vec::new())
    };
    let unmerged = unmerged(&git, wt);
    match rules::purge_rule((&changes, &ignored), unmerged, discard) {
        Purge::Keep { why } => Ok(Some(rules::kept_message(worker, wt, &why))),
        Purge::Remove => remove_checked(ctx, wt).map(|_| None),
    }
}

/// The worker's uncommitted changes in its worktree (the copied-in files left out).
fn own_changes(git: &Git, wt: &WorktreeMeta) -> Result<Vec<Change>> {
    let out = git.run(
        &wt.path,
        &["status", "--porcelain", "-z", "--untracked-files=all"],
    )?;
    Ok(rules::own_changes(
        rules::parse_porcelain(&out),
        &wt.included,
    ))
}

/// What the worker wrote under ignored paths (a log, a build folder, listed whole): nowhere
/// else but here, so `kill --purge` keeps it. The files `.worktreeinclude` copied in are left
/// out, one by one in a folder that holds some.
fn own_ignored(git: &Git, wt: &WorktreeMeta) -> Result<Vec<String>> {
    let listed = |how: &str, within: &[&str]| {
        let mut args = vec![
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=all",
            how,
            "--",
        ];
        args.extend(within);
        git.run(&wt.path, &args)
            .map(|out| rules::own_ignored(rules::parse_porcelain(&out), &wt.included))
    };
    let (mut own, mixed) = listed("--ignored=matching", &[])?;
    for folder in mixed {
        own.extend(listed("--ignored=traditional", &[&folder])?.0);
    }
    Ok(own)
}

/// Commits on the branch that neither the repository's HEAD nor the base has: 0 when the
/// branch is gone, `None` when git could not count them (which keeps the worktree). Full ref
/// names and the `--` after them: a branch named like a file at the top (`README.md`) or like
/// HEAD (`@`) is still the branch.
fn unmerged(git: &Git, wt: &WorktreeMeta) -> Option<u64> {
    if !branch_exists(git, wt) {
        return Some(0);
    }
    let branch = format!("refs/heads/{}", wt.branch);
    let not_base = format!("^{}^{{commit}}", wt.base);
    let args = ["rev-list", "--count", &branch, "^HEAD", &not_base, "--"];
    count(git, &wt.repo, &args)
}

fn count(git: &Git, dir: &Path, args: &[&str]) -> Option<u64> {
    git.line(dir, args).ok()?.parse().ok()
}

/// The worktree's branch, commits ahead of its base and uncommitted files, for `status`.
pub fn look(ctx: &Ctx, wt: &WorktreeMeta) -> WorktreeStatus {
    let git = Git::new(&ctx.env);
    let range = format!("{}..refs/heads/{}", wt.base, wt.branch);
    WorktreeStatus {
        branch: wt.branch.clone(),
        path: wt.path.to_string_lossy().into_owned(),
        base: wt.base.clone(),
        ahead: count(&git, &wt.repo, &["rev-list", "--count", &range, "--"]),
        changed: own_changes(&git, wt).ok().map(|c| c.len() as u64),
    }
}

/// `diff --git`: the worktree as it is (commits, uncommitted edits and new files, the
/// copied-in files left out) against its base. It reads the files through an index of its own
/// in the worker's folder, so the worker's index is never touched.
pub fn diff(ctx: &Ctx, name: &WorkerName, wt: &WorktreeMeta, stat: bool) -> Result<GitDiff> {
    let git = Git::new(&ctx.env);
    let index = ctx.state.session_dir(name).join("git-diff.index");
    let with_index = [("GIT_INDEX_FILE", index.as_path())];
    let specs = rules::included_pathspecs(&wt.included);
    let read = (|| {
        git.run_with(&wt.path, &["read-tree", "HEAD"], &with_index)?;
        git.run_with(&wt.path, &["add", "--all", "--", "."], &with_index)?;
        if !specs.is_empty() {
            let mut reset = vec!["reset", "--quiet", "HEAD", "--"];
            reset.extend(specs.iter().map(String::as_str));
            git.run_with(&wt.path, &reset, &with_index)?;
        }
        let shape = if stat { "--stat" } else { "--patch" };
        let patch = git.run_with(
            &wt.path,
            &[
                "diff",
                "--cached",
                "--no-color",
                "--no-ext-diff",
                shape,
                &wt.base,
            ],
            &with_index,
        )?;
        let numstat = git.run_with(
            &wt.path,
            &["diff", "--cached", "--numstat", "-z", &wt.base],
            &with_index,
        )?;
        Ok::<_, Error>((patch, numstat))
    })();
    let _ = git::remove_file(&index);
    let (patch, numstat) = read?;
    Ok(GitDiff {
        name: name.to_string(),
        branch: wt.branch.clone(),
        base: wt.base.clone(),
        path: wt.path.to_string_lossy().into_owned(),
        files: rules::parse_numstat(&numstat),
        patch: String::from_utf8_lossy(&patch).into_owned(),
    })
}
