//! `spawn --worktree`: each worker in a git worktree of its own, on its own branch, in a scratch
//! repository (the sandbox's project folder after `git init`). The fakes edit files through
//! their scenario's `writes`; git runs here only to set the repository up and to look at it.

use crate::harness::{Sandbox, sim};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs git in `dir` (as the user would, beside umbel); its stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The sandbox's project as a repository with one commit holding `notes.txt`.
pub(crate) fn repository(sb: &Sandbox) {
    git(&sb.project, &["init", "-q", "-b", "main"]);
    sb.write("notes.txt", "base\n");
    git(&sb.project, &["add", "."]);
    git(&sb.project, &["commit", "-q", "-m", "start"]);
}

/// A scenario whose every turn writes `notes.txt` with `text`.
pub(crate) fn writes_notes(text: &str) -> Value {
    json!({ "default": { "reply": "edited", "writes": { "notes.txt": text } } })
}

fn worktree_of(sb: &Sandbox, name: &str) -> PathBuf {
    sb.project.join(".umbel/worktrees").join(name)
}

fn branches(sb: &Sandbox) -> String {
    git(
        &sb.project,
        &["branch", "--list", "--format=%(refname:short)"],
    )
}

/// Two workers edit the same file name at once, each in its own worktree: neither sees the
/// other's edit, the main checkout is untouched, `diff --git` shows each one's change, meta and
/// `status` say where and on which branch, and `git status` of the repository stays clean.
#[test]
fn two_workers_edit_the_same_file_each_in_its_own_worktree() {
    let sb = Sandbox::new();
    repository(&sb);
    sb.spawn_playing("w1", writes_notes("from w1\n"), &["--worktree"]);
    sb.spawn_playing(
        "w2",
        writes_notes("from w2\n"),
        &["--worktree", "feature/two"],
    );
    sb.umbel(["send", "w1", "edit the notes"]).success();
    sb.umbel(["send", "w2", "edit the notes"]).success();
    sb.cmd("wait w1 --timeout 30s").success();
    sb.cmd("wait w2 --timeout 30s").success();

    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
    assert_eq!(read(sb.project.join("notes.txt")), "base\n");
    assert_eq!(read(worktree_of(&sb, "w1").join("notes.txt")), "from w1\n");
    assert_eq!(read(worktree_of(&sb, "w2").join("notes.txt")), "from w2\n");
    assert_eq!(
        git(
            &sb.project,
            &["status", "--porcelain", "--untracked-files=all"]
        ),
        ""
    );

    let patch = sb.cmd("diff w1 --git").success();
    assert!(
        patch.stdout().contains("-base\n+from w1\n"),
        "{}",
        patch.stdout()
    );
    assert!(!patch.stdout().contains("from w2"), "{}", patch.stdout());
    let two = sb.cmd("diff w2 --git --json").success().json();
    assert_eq!(two["branch"], "feature/two");
    assert_eq!(
        two["files"],
        json!([{"path": "notes.txt", "added": 1, "deleted": 1}])
    );
    assert!(
        two["patch"].as_str().unwrap().contains("+from w2"),
        "{two:#}"
    );
    sb.cmd("diff w1 --git --stat")
        .stdout_has("notes.txt | 2 +-")
        .success();

    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(sb.session_dir("w1").join("meta.json")).unwrap(),
    )
    .unwrap();
    let head = git(&sb.project, &["rev-parse", "HEAD"]);
    assert_eq!(meta["worktree"]["repo"], sb.project.to_str().unwrap());
    assert_eq!(meta["worktree"]["branch"], "umbel/w1");
    assert_eq!(meta["worktree"]["base"], head.trim());
    assert_eq!(
        meta["worktree"]["path"],
        worktree_of(&sb, "w1").to_str().unwrap()
    );
    assert_eq!(meta["cwd"], worktree_of(&sb, "w1").to_str().unwrap());
    let status = sb.cmd("status w1 --json").success().json();
    assert_eq!(status["worktree"]["branch"], "umbel/w1");
    assert_eq!(status["worktree"]["ahead"], 0);
    assert_eq!(status["worktree"]["changed"], 1);
    sb.cmd("ls").stdout_has("umbel/w1 +0 ~1").success();
    // The main checkout's branch list shows both, and a commit counts as ahead.
    git(
        &worktree_of(&sb, "w1"),
        &["commit", "-q", "-am", "w1's edit"],
    );
    let status = sb.cmd("status w1 --json").success().json();
    assert_eq!(status["worktree"]["ahead"], 1);
    assert_eq!(status["worktree"]["changed"], 0);
    assert_eq!(branches(&sb), "feature/two\nmain\numbel/w1\n");
}

/// `kill --purge` removes a clean, merged worktree and its branch; one with uncommitted changes
/// or unmerged commits stays (with the worker's folder), and umbel says where and how;
/// `--discard` removes it anyway; merging first makes a plain `--purge` enough.
#[test]
fn kill_purge_removes_a_clean_worktree_and_keeps_one_with_work() {
    let sb = Sandbox::new();
    repository(&sb);
    for name in ["clean", "dirty", "ahead"] {
        sb.spawn_playing(name, sim::reply("ok"), &["--worktree"]);
    }
    sb.cmd("kill clean --purge").success();
    assert!(!worktree_of(&sb, "clean").exists());
    assert!(!sb.session_dir("clean").exists());
    assert!(!branches(&sb).contains("umbel/clean"), "{}", branches(&sb));

    sb.write(worktree_of(&sb, "dirty").join("notes.txt"), "half done\n");
    let kept = sb.cmd("kill dirty --purge").success();
    for said in [
        worktree_of(&sb, "dirty").to_str().unwrap(),
        "1 uncommitted change (notes.txt)",
        "umbel kill dirty --purge --discard",
    ] {
        assert!(kept.stderr().contains(said), "{said}: {}", kept.stderr());
    }
    // It says what was done: killed, its folder kept (not "purged").
    assert_eq!(
        kept.stdout(),
        "killed dirty (its folder was kept: see the warning)\n"
    );
    assert!(worktree_of(&sb, "dirty").join("notes.txt").exists());
    assert!(sb.session_dir("dirty").exists());
    assert!(branches(&sb).contains("umbel/dirty"));
    sb.cmd("kill dirty --purge --discard").success();
    assert!(!worktree_of(&sb, "dirty").exists());
    assert!(!sb.session_dir("dirty").exists());
    assert!(!branches(&sb).contains("umbel/dirty"));

    sb.write(worktree_of(&sb, "ahead").join("new.txt"), "new\n");
    git(&worktree_of(&sb, "ahead"), &["add", "."]);
    git(
        &worktree_of(&sb, "ahead"),
        &["commit", "-q", "-m", "new file"],
    );
    sb.cmd("kill ahead --purge")
        .stderr_has("1 commit not merged")
        .success();
    assert!(worktree_of(&sb, "ahead").exists());
    git(&sb.project, &["merge", "-q", "--ff-only", "umbel/ahead"]);
    sb.cmd("kill ahead --purge").success();
    assert!(!worktree_of(&sb, "ahead").exists());
    assert!(!sb.session_dir("ahead").exists());
    assert_eq!(branches(&sb), "main\n");
}

/// A branch named like a file at the repository's top (or `@`, git's name for HEAD) still has
/// its unmerged commits counted: they are never taken for "none" and deleted.
#[test]
fn kill_purge_keeps_unmerged_commits_on_a_branch_named_like_a_file() {
    let sb = Sandbox::new();
    repository(&sb);
    for (name, branch) in [("file", "notes.txt"), ("at", "@")] {
        sb.spawn_playing(name, sim::reply("ok"), &["--worktree", branch]);
        let tree = worktree_of(&sb, name);
        sb.write(tree.join("new.txt"), "new\n");
        git(&tree, &["add", "."]);
        git(&tree, &["commit", "-q", "-m", "new file"]);
        sb.umbel(["kill", name, "--purge"])
            .stderr_has("1 commit not merged")
            .success();
        assert!(tree.join("new.txt").exists(), "{name}: the worktree went");
        assert!(sb.session_dir(name).exists(), "{name}: the folder went");
    }
}

/// `prune` applies the same rule: a dead worker's clean worktree goes with it, one with
/// uncommitted work is skipped with the same message.
#[test]
fn prune_keeps_a_worktree_with_work() {
    let sb = Sandbox::new();
    repository(&sb);
    sb.spawn_playing("a", sim::reply("ok"), &["--worktree"]);
    sb.spawn_playing("b", sim::reply("ok"), &["--worktree"]);
    sb.write(worktree_of(&sb, "b").join("notes.txt"), "b's work\n");
    sb.cmd("kill a").success();
    sb.cmd("kill b").success();
    sb.cmd("prune")
        .stderr_has("worker `b` skipped: its worktree")
        .success();
    assert!(!worktree_of(&sb, "a").exists());
    assert!(worktree_of(&sb, "b").join("notes.txt").exists());
    assert!(sb.session_dir("b").exists());
}

/// Not a repository, a branch that exists, a base that names no commit: each refused with
/// why, and nothing made (no worker folder, no worktree, no branch).
#[test]
fn refused_worktrees_create_nothing() {
    let sb = Sandbox::new();
    sb.cmd("spawn --name w1 --worktree")
        .stderr_has("`--worktree` needs a git repository")
        .status(2);
    assert!(sb.worker_dirs().is_empty());
    assert!(!sb.project.join(".umbel").exists());

    repository(&sb);
    git(&sb.project, &["branch", "umbel/w2"]);
    sb.cmd("spawn --name w2 --worktree")
        .stderr_has("branch `umbel/w2` exists already")
        .status(1);
    sb.cmd("spawn --name w3 --worktree --base nope")
        .stderr_has("`--base nope` names no commit")
        .status(2);
    assert!(sb.worker_dirs().is_empty());
    assert!(!worktree_of(&sb, "w2").exists() && !worktree_of(&sb, "w3").exists());
    assert_eq!(git(&sb.project, &["worktree", "list"]).lines().count(), 1);
    assert_eq!(branches(&sb), "main\numbel/w2\n");
    sb.cmd("diff w9 --git").status(1);
    sb.spawn("plain", &[]);
    sb.cmd("diff plain --git")
        .stderr_has("has no worktree")
        .status(2);
}

/// The commit a worktree starts from may track a listed file, or its folder, as a symlink out
/// of the repository: the copy never writes through it (the user's secrets stay where they are).
#[test]
fn worktreeinclude_never_writes_through_a_symlink_the_base_tracks() {
    let sb = Sandbox::new();
    repository(&sb);
    let outside = sb.root.join("outside");
    std::fs::create_dir_all(outside.join("dir")).expect("mkdir");
    sb.write(outside.join("file"), "theirs\n");
    git(&sb.project, &["checkout", "-q", "-b", "evil"]);
    std::os::unix::fs::symlink(outside.join("file"), sb.project.join(".env")).expect("link");
    std::os::unix::fs::symlink(outside.join("dir"), sb.project.join("conf")).expect("link");
    git(&sb.project, &["add", ".env", "conf"]);
    git(&sb.project, &["commit", "-q", "-m", "links"]);
    git(&sb.project, &["checkout", "-q", "main"]);
    sb.write(".worktreeinclude", ".env\nconf/\n");
    sb.write(".env", "TOKEN=secret\n");
    sb.write("conf/app.toml", "key = 1\n");
    sb.spawn("w1", &["--worktree", "--base", "evil"]);
    assert_eq!(
        std::fs::read_to_string(outside.join("file")).expect("read"),
        "theirs\n"
    );
    assert!(
        !outside.join("dir/app.toml").exists(),
        "written through conf/"
    );
    let wt = worktree_of(&sb, "w1");
    let link = std::fs::symlink_metadata(wt.join(".env")).expect("meta");
    assert!(
        link.file_type().is_symlink(),
        "the tracked link is left as checked out"
    );
}

/// Files listed in `.worktreeinclude` (gitignore patterns) are copied into a new worktree;
/// they are not the worker's changes (diff, status, purge), and other untracked files stay
/// behind.
#[test]
fn worktreeinclude_files_are_copied_and_are_not_changes() {
    let sb = Sandbox::new();
    repository(&sb);
    sb.write(".gitignore", ".env\nlocal/\n");
    git(&sb.project, &["add", ".gitignore"]);
    git(&sb.project, &["commit", "-q", "-m", "ignore"]);
    sb.write(".worktreeinclude", "# what a worker needs\n.env\nlocal/\n");
    sb.write(".env", "TOKEN=1\n");
    sb.write("local/conf.toml", "x = 1\n");
    sb.write("scratch.txt", "not listed\n");
    sb.spawn("w1", &["--worktree"]);
    let wt = worktree_of(&sb, "w1");
    assert_eq!(
        std::fs::read_to_string(wt.join(".env")).unwrap(),
        "TOKEN=1\n"
    );
    assert_eq!(
        std::fs::read_to_string(wt.join("local/conf.toml")).unwrap(),
        "x = 1\n"
    );
    assert!(!wt.join("scratch.txt").exists());
    let status = sb.cmd("status w1 --json").success().json();
    assert_eq!(status["worktree"]["changed"], 0, "{status:#}");
    assert_eq!(sb.cmd("diff w1 --git").success().stdout(), "");
    // No change: stdout stays empty (for pipes), and stderr says so rather than nothing.
    for args in ["diff w1 --git", "diff w1 --git --stat"] {
        let out = sb.cmd(args).success();
        assert_eq!(out.stdout(), "", "{args}");
        assert!(
            out.stderr()
                .starts_with("umbel: no changes in w1's worktree (branch umbel/w1) against "),
            "{args}: {}",
            out.stderr()
        );
    }
    sb.cmd("kill w1 --purge").success();
    assert!(!wt.exists());
}

/// docs/workflows.md's example (examples/compare.yaml), on the fakes: two workers implement the
/// same task in their own worktrees, and the judge's prompt holds both patches, read through
/// each step's `diff` output. The main checkout is untouched, and the worktrees stay.
#[test]
fn the_compare_example_hands_the_judge_both_patches() {
    let mut sb = Sandbox::new();
    repository(&sb);
    sb.var("TASK", "Rewrite the notes");
    let example = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/compare.yaml"),
    )
    .unwrap();
    let scripted = |who: &str| {
        let env = sb.scenario(who, writes_notes(&format!("{who}'s version\n")));
        format!("worktree: true\n    env: [\"{env}\"]")
    };
    let (a, b) = (scripted("first"), scripted("second"));
    let yaml = example.replacen("worktree: true", &a, 1).replacen(
        "worktree: true\n    unattended",
        &format!("{b}\n    unattended"),
        1,
    );
    assert_eq!(yaml.matches("UMBEL_SIM_SCENARIO").count(), 2, "{yaml}");
    let file = sb.root.join("compare.yaml");
    sb.write(
        &file,
        yaml.replace(
            "  judge: {}",
            &format!("  judge: {{cwd: {}}}", sb.project.display()),
        ),
    );
    let yaml = std::fs::read_to_string(&file).unwrap();
    sb.write(
        &file,
        yaml.replace(
            "    worktree: true",
            &format!("    cwd: {}\n    worktree: true", sb.project.display()),
        ),
    );
    let record = sb
        .umbel(["run", "--json", file.to_str().unwrap()])
        .success()
        .json();
    let run_id = record["runId"].as_str().expect("runId").to_string();
    let steps = sb.state.join("workflows").join(&run_id).join("steps");
    let prompt = std::fs::read_to_string(steps.join("compare/prompt")).unwrap();
    assert!(prompt.contains("-base\n+first's version"), "{prompt}");
    assert!(prompt.contains("-base\n+second's version"), "{prompt}");
    assert_eq!(
        std::fs::read_to_string(sb.project.join("notes.txt")).unwrap(),
        "base\n"
    );
    assert_eq!(
        git(
            &sb.project,
            &["status", "--porcelain", "--untracked-files=all"]
        ),
        ""
    );
    let first = worktree_of(&sb, &format!("{run_id}-first"));
    assert_eq!(
        std::fs::read_to_string(first.join("notes.txt")).unwrap(),
        "first's version\n"
    );
}

/// `run --resume` of a run whose worker's worktree holds the first attempt's uncommitted edits:
/// the rerun step's worker starts again in that same worktree, on its branch, with the edits
/// still there (before: the resume tried to purge the old worker, which a dirty worktree keeps,
/// and failed to spawn it again). Nothing is thrown away, and the worktree is not duplicated.
#[test]
fn run_resume_reuses_a_dirty_worktree_with_its_edits() {
    let sb = Sandbox::new();
    repository(&sb);
    let scenario = sb.root.join("impl.json");
    let turns = json!({ "turns": [
        { "reply": "edited", "writes": { "notes.txt": "first attempt\n" } },
        { "reply": "gone", "end": { "crash": 3 } },
    ] });
    sb.write(&scenario, turns.to_string());
    let file = sb.root.join("wf.yaml");
    sb.write(
        &file,
        format!(
            "name: resume-worktree
workers:
  impl:
    cwd: {project}
    worktree: true
    env: [\"UMBEL_SIM_SCENARIO={scenario}\"]
steps:
  - id: edit
    worker: impl
    prompt: edit the notes
  - id: finish
    worker: impl
    needs: [edit]
    prompt: finish the work
    outputs:
      patch: diff
",
            project = sb.project.display(),
            scenario = scenario.display()
        ),
    );
    let failed = sb.umbel(["run", file.to_str().unwrap()]).status(125);
    let run_id = failed
        .stderr()
        .split("umbel run --resume ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the resume command")
        .trim_end_matches(['`', ')', '.'])
        .to_string();
    let worker = format!("{run_id}-impl");
    let wt = worktree_of(&sb, &worker);
    assert_eq!(
        std::fs::read_to_string(wt.join("notes.txt")).unwrap(),
        "first attempt\n"
    );
    // Fixed: the CLI answers now, and edits nothing more.
    sb.write(&scenario, sim::reply("finished").to_string());
    let resumed = sb.umbel(["run", "--resume", &run_id]).success();
    // What the final step ended with is printed: its answer, then its `diff` output.
    let printed = resumed.stdout();
    assert!(
        printed.starts_with("== finish ==\nfinished\n== finish.patch ==\n")
            && printed.contains("+first attempt"),
        "{printed}"
    );
    assert_eq!(
        std::fs::read_to_string(wt.join("notes.txt")).unwrap(),
        "first attempt\n",
        "the first attempt's edit is kept"
    );
    let patch = std::fs::read_to_string(
        sb.state
            .join("workflows")
            .join(&run_id)
            .join("steps/finish/outputs/patch"),
    )
    .unwrap();
    assert!(patch.contains("-base\n+first attempt"), "{patch}");
    let status = sb.cmd(&format!("status {worker} --json")).success().json();
    assert_eq!(status["worktree"]["branch"], format!("umbel/{worker}"));
    assert_eq!(
        git(&sb.project, &["worktree", "list"]).lines().count(),
        2,
        "one worktree for the worker, not a second"
    );
}

/// `-p --worktree`: the one-shot worker runs in a worktree of its own; its edits stay there on
/// its branch after `-p` ends (umbel says where, and how to end it), and the main checkout is
/// untouched. A `-p` that edited nothing leaves no worktree or branch behind.
#[test]
fn print_mode_with_a_worktree_keeps_the_edits_and_says_where() {
    let sb = Sandbox::new();
    repository(&sb);
    let edits = sb.scenario("edits", writes_notes("from -p\n"));
    let done = sb
        .umbel(["-p", "edit the notes", "--worktree", "--env", &edits])
        .stdout_has("edited")
        .success();
    assert_eq!(
        std::fs::read_to_string(sb.project.join("notes.txt")).unwrap(),
        "base\n"
    );
    let worktrees = git(&sb.project, &["worktree", "list", "--porcelain"]);
    let kept: Vec<&str> = worktrees
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .filter(|p| p.contains(".umbel/worktrees/"))
        .collect();
    assert_eq!(kept.len(), 1, "{worktrees}");
    assert_eq!(
        std::fs::read_to_string(Path::new(kept[0]).join("notes.txt")).unwrap(),
        "from -p\n"
    );
    assert!(done.stderr().contains(kept[0]), "{}", done.stderr());

    let quiet = sb.scenario("quiet", sim::reply("nothing to do"));
    sb.umbel(["-p", "look only", "--worktree", "--env", &quiet])
        .success();
    let after = git(&sb.project, &["worktree", "list"]);
    assert_eq!(after.lines().count(), 2, "no second worktree: {after}");

    // A warm worker is the next `-p`'s: its worktree would hand this run's edits to it.
    sb.umbel(["-p", "hi", "--worktree", "--warm"])
        .stderr_has("`--warm` leaves the worker for the next `-p`")
        .status(2);
    sb.umbel(["-p", "hi", "--worktree", "--env", &quiet])
        .env("UMBEL_WARM", "1")
        .success();
    assert_eq!(git(&sb.project, &["worktree", "list"]).lines().count(), 2);
}

/// Files the worker wrote under ignored paths (a log, a build folder) exist nowhere else:
/// `kill --purge` keeps the worktree and says which, as for untracked files; `--discard`
/// deletes them. The files `.worktreeinclude` copied in are not the worker's.
#[test]
fn kill_purge_keeps_files_the_worker_wrote_under_ignored_paths() {
    let sb = Sandbox::new();
    repository(&sb);
    sb.write(".gitignore", "*.log\nbuild/\n.env\n");
    sb.write(".worktreeinclude", ".env\n");
    sb.write(".env", "TOKEN=1\n");
    git(&sb.project, &["add", ".gitignore", ".worktreeinclude"]);
    git(&sb.project, &["commit", "-q", "-m", "ignore"]);
    let writes = json!({ "default": { "reply": "built", "writes": {
        "run.log": "ran\n", "build/out.bin": "bits\n" } } });
    sb.spawn_playing("ig", writes, &["--worktree"]);
    sb.spawn_playing("quiet", sim::reply("nothing"), &["--worktree"]);
    sb.turn("ig", "build it").success();
    sb.turn("quiet", "look").success();
    // Only the copied-in .env is ignored there: removed as before.
    sb.cmd("kill quiet --purge").success();
    assert!(!worktree_of(&sb, "quiet").exists());
    let kept = sb.cmd("kill ig --purge").success();
    assert!(
        kept.stderr()
            .contains("2 ignored files the worker wrote (build/, run.log)"),
        "{}",
        kept.stderr()
    );
    assert!(worktree_of(&sb, "ig").join("run.log").exists());
    sb.cmd("kill ig --purge --discard").success();
    assert!(!worktree_of(&sb, "ig").exists());
}

/// Two spawns racing for one branch: the loser's `git worktree add -b` finds the branch made
/// after its check. A `git` on PATH plays the winner, making the branch just before the add;
/// the loser is told `branch_exists`, not git's raw error, and leaves nothing behind.
#[test]
fn a_spawn_that_loses_the_race_for_its_branch_says_branch_exists() {
    let mut sb = Sandbox::new();
    repository(&sb);
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .expect("find git")
            .stdout,
    )
    .expect("UTF-8");
    let racer = sb.root.join("racer");
    sb.write(
        racer.join("git"),
        format!(
            "#!/bin/sh\n# worktree add --quiet -b BRANCH PATH BASE: the winner makes BRANCH first\n\
             if [ \"$1\" = worktree ] && [ \"$2\" = add ]; then {real} branch \"$5\" \"$7\"; fi\n\
             exec {real} \"$@\"\n",
            real = real.trim()
        ),
    );
    std::fs::set_permissions(
        racer.join("git"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let path = format!(
        "{}:{}",
        racer.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    sb.var("PATH", &path);
    let err = sb.cmd("spawn --name w1 --worktree").status(1).stderr();
    assert!(err.contains("branch `umbel/w1` exists already"), "{err}");
    assert!(sb.worker_dirs().is_empty(), "{:?}", sb.worker_dirs());
    assert!(!worktree_of(&sb, "w1").exists());
}
