//! A worker's own git worktree (`spawn --worktree`): where it lives, which branch it gets, how
//! git's porcelain output reads, which `.worktreeinclude` files are copied into it, and whether
//! `kill --purge` may remove it. Pure: the git calls are `adapters/git.rs`'s, the sequencing is
//! `operations/worktree.rs`'s.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where worktrees live, relative to the repository's top folder.
pub const WORKTREES_DIR: &str = ".umbel/worktrees";
/// The line of `.git/info/exclude` that keeps the worktrees out of `git status`.
pub const EXCLUDE_LINE: &str = "/.umbel/";
/// The file at the repository's top listing what a fresh worktree lacks but needs.
pub const INCLUDE_FILE: &str = ".worktreeinclude";

/// What a worker's meta.json records of its worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeMeta {
    /// The repository's top folder (its main checkout).
    pub repo: PathBuf,
    /// The worker's own branch.
    pub branch: String,
    /// The commit the branch started from (`--base`, else the repository's HEAD then).
    pub base: String,
    /// The worktree's folder.
    pub path: PathBuf,
    /// Files copied in from the repository because `.worktreeinclude` lists them (relative);
    /// they never count as the worker's changes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub included: Vec<String>,
}

/// What `status`, `ls` and `top` show of a worker's worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeStatus {
    pub branch: String,
    pub path: String,
    /// The commit the branch started from.
    pub base: String,
    /// Commits on the branch since its base (absent when git could not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ahead: Option<u64>,
    /// Files with uncommitted changes, new files included (absent when git could not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<u64>,
}

/// `diff --git`: the worktree's changes against its base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitDiff {
    pub name: String,
    pub branch: String,
    pub base: String,
    pub path: String,
    /// Each changed file with its added and deleted lines.
    pub files: Vec<FileStat>,
    /// `git diff` of the base against the worktree as it is (`git diff --stat` with `--stat`).
    pub patch: String,
}

/// The short form of a commit id, for people.
pub fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

/// The worktree part of a status line: `umbel/w1 +2 ~3` (commits ahead, files changed).
pub fn status_words(wt: &WorktreeStatus) -> String {
    let mut words = wt.branch.clone();
    if let Some(ahead) = wt.ahead {
        words.push_str(&format!(" +{ahead}"));
    }
    if let Some(changed) = wt.changed {
        words.push_str(&format!(" ~{changed}"));
    }
    words
}

/// The branch a worker gets when `--worktree` names none.
pub fn default_branch(worker: &str) -> String {
    format!("umbel/{worker}")
}

/// The worker's worktree folder inside repository `top`.
pub fn worktree_path(top: &Path, worker: &str) -> PathBuf {
    top.join(WORKTREES_DIR).join(worker)
}

/// `.git/info/exclude` with [`EXCLUDE_LINE`] added, or `None` when it is there already.
pub fn with_exclude_line(existing: &str) -> Option<String> {
    if existing.lines().any(|l| l.trim() == EXCLUDE_LINE) {
        return None;
    }
    let mut text = existing.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("# umbel: workers' worktrees (spawn --worktree)\n");
    text.push_str(EXCLUDE_LINE);
    text.push('\n');
    Some(text)
}

/// The paths of a NUL-separated git listing (`ls-files -z`), without umbel's own folder.
pub fn included_paths(listing: &[u8]) -> Vec<String> {
    listing
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|p| !p.starts_with(".umbel/") && !p.ends_with('/'))
        .collect()
}

/// One entry of `git status --porcelain -z`: its two status letters and its path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Change {
    /// `XY` as git prints it (` M`, `A `, `??`, `R `…).
    pub status: String,
    pub path: String,
}

/// Reads `git status --porcelain -z` (v1): `XY path`, a rename or copy followed by its old
/// path as an entry of its own.
pub fn parse_porcelain(out: &[u8]) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut entries = out.split(|b| *b == 0).filter(|e| !e.is_empty());
    while let Some(entry) = entries.next() {
        let text = String::from_utf8_lossy(entry);
        if text.len() < 4 {
            continue;
        }
        let status = text[..2].to_string();
        if status.starts_with('R') || status.starts_with('C') {
            entries.next(); // the old path
        }
        changes.push(Change {
            status,
            path: text[3..].to_string(),
        });
    }
    changes
}

/// The changes that are the worker's: the files `.worktreeinclude` copied in, untouched by git
/// (untracked), are not.
pub fn own_changes(changes: Vec<Change>, included: &[String]) -> Vec<Change> {
    changes
        .into_iter()
        .filter(|c| !(c.status == "??" && included.iter().any(|i| i == &c.path)))
        .collect()
}

/// The ignored entries (`!!`) of `git status --ignored=matching` that the worker wrote: not a
/// file `.worktreeinclude` copied in. A folder (`build/`, listed whole) holding copied files
/// comes second: its files must be listed one by one to tell.
pub fn own_ignored(changes: Vec<Change>, included: &[String]) -> (Vec<String>, Vec<String>) {
    let mut own = Vec::new();
    let mut mixed = Vec::new();
    for path in changes
        .into_iter()
        .filter(|c| c.status == "!!")
        .map(|c| c.path)
    {
        if included.contains(&path) {
            continue;
        }
        match path.ends_with('/') && included.iter().any(|i| i.starts_with(&path)) {
            true => mixed.push(path),
            false => own.push(path),
        }
    }
    (own, mixed)
}

/// One file of `git diff --numstat -z`: lines added and deleted (`None` for a binary file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileStat {
    pub path: String,
    pub added: Option<u64>,
    pub deleted: Option<u64>,
}

/// Reads `git diff --numstat -z`: `added\tdeleted\tpath\0`, or for a rename
/// `added\tdeleted\t\0old\0new\0`; binary files have `-` for both counts.
pub fn parse_numstat(out: &[u8]) -> Vec<FileStat> {
    let mut stats = Vec::new();
    let mut entries = out.split(|b| *b == 0);
    while let Some(entry) = entries.next() {
        let text = String::from_utf8_lossy(entry);
        let mut fields = text.splitn(3, '\t');
        let (Some(added), Some(deleted), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let path = if path.is_empty() {
            entries.next(); // the old path
            entries
                .next()
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .unwrap_or_default()
        } else {
            path.to_string()
        };
        stats.push(FileStat {
            path,
            added: added.parse().ok(),
            deleted: deleted.parse().ok(),
        });
    }
    stats
}

/// The pathspecs of the copied-in files, taken back out of a diff of the whole worktree (by
/// `git reset`, which, unlike an excluding `git add`, does not refuse ignored files).
pub fn included_pathspecs(included: &[String]) -> Vec<String> {
    included.iter().map(|p| format!(":(literal){p}")).collect()
}

/// What `kill --purge` and `prune` do with a worker's worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purge {
    /// Remove the worktree and the branch (the copied-in files and, with `--discard`, the
    /// changes go with it).
    Remove,
    /// Keep it: it holds work that exists nowhere else.
    Keep { why: String },
}

/// The rule: a worktree without changes of the worker's own whose branch has no commit outside
/// the repository's HEAD or its base goes; anything else stays unless `discard` — also a branch
/// whose commits could not be counted (`unmerged` is `None`).
pub fn purge_rule(
    (changes, ignored): (&[Change], &[String]),
    unmerged: Option<u64>,
    discard: bool,
) -> Purge {
    if discard {
        return Purge::Remove;
    }
    let mut why = Vec::new();
    if !changes.is_empty() {
        why.push(match changes.len() {
            1 => format!("1 uncommitted change ({})", changes[0].path),
            n => format!("{n} uncommitted changes"),
        });
    }
    if !ignored.is_empty() {
        let mut named = ignored
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if ignored.len() > 3 {
            named.push_str(", …");
        }
        why.push(match ignored.len() {
            1 => format!("1 ignored file the worker wrote ({named})"),
            n => format!("{n} ignored files the worker wrote ({named})"),
        });
    }
    match unmerged {
        Some(0) => {}
        Some(1) => why.push("1 commit not merged".to_string()),
        Some(n) => why.push(format!("{n} commits not merged")),
        None => why.push("commits git could not count (`git rev-list` failed)".to_string()),
    }
    if why.is_empty() {
        Purge::Remove
    } else {
        Purge::Keep {
            why: why.join(" and "),
        }
    }
}

/// What `kill --purge` says of a worktree it kept: where it is and how to remove it.
pub fn kept_message(worker: &str, wt: &WorktreeMeta, why: &str) -> String {
    format!(
        "its worktree {} (branch {}) has {why}, so it and the worker's folder are kept: merge \
         the branch (or commit and merge) and `umbel kill {worker} --purge` again, or \
         `umbel kill {worker} --purge --discard` to delete the work",
        wt.path.display(),
        wt.branch
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worktree_lives_under_the_repository_and_the_branch_is_named_after_the_worker() {
        assert_eq!(default_branch("w1"), "umbel/w1");
        assert_eq!(
            worktree_path(Path::new("/r"), "w1"),
            PathBuf::from("/r/.umbel/worktrees/w1")
        );
    }

    #[test]
    fn the_exclude_line_is_added_once_and_keeps_what_was_there() {
        let recorded = "# git ls-files --others --exclude-from=.git/info/exclude\n# *.[oa]\n# *~";
        let added = with_exclude_line(recorded).unwrap();
        assert!(added.starts_with(recorded), "{added}");
        assert!(added.ends_with("\n/.umbel/\n"), "{added}");
        assert_eq!(with_exclude_line(&added), None);
        assert_eq!(
            with_exclude_line("").unwrap().lines().last(),
            Some("/.umbel/")
        );
    }

    #[test]
    fn ignored_files_are_the_workers_but_the_copied_ones() {
        // git status --porcelain -z --untracked-files=all --ignored=matching, as git 2.47 printed
        // it for a worktree with a copied .env, a copied conf/local.toml, a log and a build/.
        let out = b"?? new.txt\0!! .env\0!! build/\0!! conf/\0!! run.log\0";
        let included = [".env".to_string(), "conf/local.toml".to_string()];
        let (own, mixed) = own_ignored(parse_porcelain(out), &included);
        assert_eq!(own, ["build/", "run.log"]);
        assert_eq!(mixed, ["conf/"]);
        let purge = purge_rule((&[], &own), Some(0), false);
        assert!(
            matches!(&purge, Purge::Keep { why } if why == "2 ignored files the worker wrote (build/, run.log)"),
            "{purge:?}"
        );
    }

    #[test]
    fn porcelain_reads_modified_added_untracked_and_renamed_files() {
        // git status --porcelain -z, recorded: a modified, a staged new, an untracked file with
        // a space, and a staged rename (its old path follows as an entry of its own).
        let recorded = b" M src/a.rs\0A  new.rs\0?? two words.txt\0R  b2.rs\0b.rs\0";
        let changes = parse_porcelain(recorded);
        let seen: Vec<(&str, &str)> = changes
            .iter()
            .map(|c| (c.status.as_str(), c.path.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                (" M", "src/a.rs"),
                ("A ", "new.rs"),
                ("??", "two words.txt"),
                ("R ", "b2.rs")
            ]
        );
        assert!(parse_porcelain(b"").is_empty());
    }

    #[test]
    fn copied_in_files_are_not_the_workers_changes_unless_git_tracks_them() {
        let changes = parse_porcelain(b"?? .env\0 M .env.example\0?? notes.md\0");
        let own = own_changes(changes, &[".env".into(), ".env.example".into()]);
        let paths: Vec<&str> = own.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, [".env.example", "notes.md"]);
    }

    #[test]
    fn included_paths_leave_out_umbels_folder_and_nested_repositories() {
        let recorded = b".env\0config/local.toml\0.umbel/worktrees/w1/\0vendor/sub/\0";
        assert_eq!(included_paths(recorded), [".env", "config/local.toml"]);
    }

    #[test]
    fn included_files_are_named_literally() {
        let specs = included_pathspecs(&[".env".into(), "conf/*.toml".into()]);
        assert_eq!(specs, [":(literal).env", ":(literal)conf/*.toml"]);
    }

    #[test]
    fn numstat_reads_text_binary_and_renamed_files() {
        // git diff --numstat -z, recorded.
        let recorded = b"3\t1\tsrc/a.rs\0-\t-\tlogo.png\0\x30\t0\t\0old.rs\0new.rs\0";
        assert_eq!(
            parse_numstat(recorded),
            [
                FileStat {
                    path: "src/a.rs".into(),
                    added: Some(3),
                    deleted: Some(1)
                },
                FileStat {
                    path: "logo.png".into(),
                    added: None,
                    deleted: None
                },
                FileStat {
                    path: "new.rs".into(),
                    added: Some(0),
                    deleted: Some(0)
                },
            ]
        );
    }

    #[test]
    fn a_clean_merged_worktree_goes_and_one_with_work_stays_unless_discarded() {
        let dirty = parse_porcelain(b" M a.txt\0");
        assert_eq!(purge_rule((&[], &[]), Some(0), false), Purge::Remove);
        assert_eq!(
            purge_rule((&dirty, &[]), Some(0), false),
            Purge::Keep {
                why: "1 uncommitted change (a.txt)".into()
            }
        );
        assert_eq!(
            purge_rule((&[], &[]), Some(2), false),
            Purge::Keep {
                why: "2 commits not merged".into()
            }
        );
        assert!(matches!(
            purge_rule((&dirty, &[]), Some(1), false),
            Purge::Keep { why } if why == "1 uncommitted change (a.txt) and 1 commit not merged"
        ));
        assert_eq!(purge_rule((&dirty, &[]), Some(1), true), Purge::Remove);
        // A count git could not give is never taken for none.
        assert!(
            matches!(purge_rule((&[], &[]), None, false), Purge::Keep { why } if why.contains("could not count"))
        );
        assert_eq!(purge_rule((&[], &[]), None, true), Purge::Remove);
    }

    #[test]
    fn the_kept_message_says_where_and_how() {
        let wt = WorktreeMeta {
            repo: "/r".into(),
            branch: "umbel/w1".into(),
            base: "abc".into(),
            path: "/r/.umbel/worktrees/w1".into(),
            included: vec![],
        };
        let text = kept_message("w1", &wt, "1 uncommitted change (a.txt)");
        assert!(text.contains("/r/.umbel/worktrees/w1"), "{text}");
        assert!(text.contains("umbel/w1"), "{text}");
        assert!(text.contains("--purge --discard"), "{text}");
    }
}
