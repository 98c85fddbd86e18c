//! Faults of issue 34 ("nothing lost, round 3") in umbel's state root, its tmux socket and the
//! event log: two spellings of one root, a socket shared by two roots, an unreadable meta.json,
//! a torn log line, a huge log, a worker folder deleted under a wait.

use crate::harness::*;
use std::time::{Duration, Instant};
use umbel::core::wait::Liveness;

fn session_alive(sb: &Sandbox, name: &str) -> bool {
    let pane = sandbox_tmux(sb)
        .pane(&format!("umbel-{name}"))
        .expect("pane");
    pane.liveness == Liveness::Alive
}

/// `umbel ARGS` with `UMBEL_STATE` spelled `root` instead of the sandbox's own spelling.
fn spelled<'a>(sb: &'a Sandbox, root: &str, args: &[&str]) -> Test<'a> {
    sb.umbel(args).env("UMBEL_STATE", root)
}

/// Issue 34 item 1: `UMBEL_STATE=$root/` and a symlink to the root are the same root: the same
/// socket, the live worker `ready`, `prune` keeps it, `kill --all` kills it.
#[test]
fn one_state_root_spelled_two_ways_is_one_root_with_one_socket() {
    let sb = Sandbox::new();
    sb.spawn("w1", &[]);
    let slash = format!("{}/", sb.state.display());
    let link = sb.root.join("link");
    std::os::unix::fs::symlink(&sb.state, &link).expect("symlink");
    let link = link.to_string_lossy().into_owned();
    for root in [slash.as_str(), &format!("{}/./", sb.state.display()), &link] {
        let one = spelled(&sb, root, &["status", "w1", "--json"])
            .success()
            .json();
        assert_eq!(one["state"], "ready", "UMBEL_STATE={root}: {one}");
        let pruned = spelled(&sb, root, &["prune", "--json"]).success().json();
        assert_eq!(pruned["removed"], serde_json::json!([]), "{root}: {pruned}");
        assert!(sb.session_dir("w1").join("meta.json").is_file(), "{root}");
    }
    spelled(&sb, &link, &["kill", "--all"])
        .stdout_has("killed w1")
        .success();
    assert!(
        !session_alive(&sb, "w1"),
        "kill --all through the link killed it"
    );
}

/// A state root that does not exist yet under a symlinked parent is created (0700) and named by
/// its real path.
#[test]
fn a_new_state_root_under_a_symlink_is_created_private_and_named_by_its_real_path() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let real = sb.root.join("real");
    std::fs::create_dir(&real).expect("mkdir");
    std::os::unix::fs::symlink(&real, sb.root.join("via")).expect("symlink");
    let via = sb.root.join("via").join("fresh").join("state");
    let root = via.to_string_lossy().into_owned();
    spelled(&sb, &root, &["spawn", "--name", "n1"]).success();
    let made = real.join("fresh").join("state");
    let mode = std::fs::metadata(&made).expect("made").permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    let direct = made.to_string_lossy().into_owned();
    let one = spelled(&sb, &direct, &["status", "n1", "--json"])
        .success()
        .json();
    assert_eq!(one["state"], "ready", "{one}");
    spelled(&sb, &direct, &["kill", "--all", "--purge"]).success();
}

/// Issue 34 item 2: with one `UMBEL_TMUX_SOCKET` shared by two state roots, a spawn whose
/// session name is taken there fails with a typed error and leaves the other root's worker
/// alone (it used to kill it mid-turn).
#[test]
fn a_name_taken_on_a_shared_socket_is_refused_and_the_owner_keeps_its_worker() {
    let mut a = Sandbox::new();
    a.var("UMBEL_TMUX_SOCKET", "shared1");
    let mut b = Sandbox::new();
    b.var("UMBEL_TMUX_SOCKET", "shared1");
    let tmpdir = a.root.join("t").to_string_lossy().into_owned();
    b.var("TMUX_TMPDIR", &tmpdir);
    a.spawn_playing("w2", sim::wedge(), &[]);
    a.umbel(["send", "w2", "long job"]).success();

    b.umbel(["spawn", "--name", "w2"])
        .stderr_has("`w2` is in use on tmux socket `shared1` by another state root")
        .status(1);
    assert!(
        b.worker_dirs().is_empty(),
        "the failed spawn left {:?}",
        b.worker_dirs()
    );
    let one = a.umbel(["status", "w2", "--json"]).success().json();
    assert_eq!(one["state"], "busy", "A's worker was left alone: {one}");
    b.umbel(["spawn", "--name", "w3"]).success();
    b.umbel(["kill", "--all", "--purge"]).success();
    let one = a.umbel(["status", "w2", "--json"]).success().json();
    assert_eq!(one["state"], "busy", "{one}");
}

/// Issue 34 item 3: a meta.json that cannot be read (a directory in its place, standing for
/// EIO/EACCES) is treated as a corrupt one: listed, killable by name, skipped by the sweeps.
#[test]
fn an_unreadable_meta_is_listed_corrupt_killable_and_skipped() {
    let sb = Sandbox::new();
    for name in ["m1", "m2", "m3"] {
        sb.spawn(name, &[]);
    }
    let meta = sb.session_dir("m2").join("meta.json");
    std::fs::remove_file(&meta).expect("rm meta");
    std::fs::create_dir(&meta).expect("a folder in its place");

    let list = sb.ls();
    let names: Vec<&str> = list.iter().filter_map(|w| w["name"].as_str()).collect();
    assert_eq!(names, ["m1", "m2", "m3"], "{list:?}");
    assert_eq!(list[1]["state"], "corrupt", "{}", list[1]);
    let problem = list[1]["problem"].as_str().unwrap_or_default();
    assert!(problem.contains("meta.json"), "{problem}");
    sb.umbel(["status"]).stdout_has("corrupt").success();
    sb.umbel(["status", "m2"]).stdout_has("meta.json").success();

    let pruned = sb
        .umbel(["prune", "--json"])
        .stderr_has("m2")
        .success()
        .json();
    assert_eq!(pruned["skipped"][0]["name"], "m2", "{pruned}");
    sb.umbel(["kill", "m2"]).stdout_has("killed m2").success();
    assert!(!session_alive(&sb, "m2"));
    assert!(session_alive(&sb, "m1") && session_alive(&sb, "m3"));

    let meta = sb.session_dir("m1").join("meta.json");
    std::fs::remove_file(&meta).expect("rm meta");
    std::fs::create_dir(&meta).expect("a folder in its place");
    sb.umbel(["kill", "--all"]).success();
    for name in ["m1", "m2", "m3"] {
        assert!(!session_alive(&sb, name), "{name} still alive");
    }
}

/// Issue 34 item 8: a worker's folder deleted while `wait` waits on it: the wait fails at once,
/// `kill NAME` still ends its session, `doctor` and `prune` name the session left without one.
#[test]
fn a_folder_deleted_under_a_wait_fails_it_fast_and_leaves_the_session_reachable() {
    let sb = Sandbox::new();
    sb.spawn_playing("gone", sim::wedge(), &[]);
    sb.spawn("kept", &[]);
    sb.umbel(["send", "gone", "long job"]).success();
    let started = Instant::now();
    let pause = Pause::new(&sb, "wait-watching");
    let wait = pause.on(sb.cmd("wait gone --timeout 60s --json")).start();
    pause.reached();
    std::fs::remove_dir_all(sb.session_dir("gone")).expect("rm folder");
    pause.release();
    assert_eq!(wait.status(1).json()["error"]["code"], "removed");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "wait took {:?}",
        started.elapsed()
    );

    sb.umbel(["doctor"]).stdout_has("umbel-gone").run();
    let pruned = sb.umbel(["prune", "--json"]).success().json();
    let orphans = pruned["orphans"].to_string();
    assert!(orphans.contains("umbel-gone"), "{pruned}");
    assert!(session_alive(&sb, "gone"), "prune only reports it");

    sb.umbel(["kill", "gone"])
        .stdout_has("killed gone")
        .success();
    assert!(!session_alive(&sb, "gone"));
    assert!(session_alive(&sb, "kept"));
}

/// Appends `bytes` to worker `name`'s event log, as a write cut short by a full disk leaves it.
fn tear_log(sb: &Sandbox, name: &str, keep: impl Fn(&str) -> bool, fragment: &str) {
    let log = sb.session_dir(name).join("events").join("log");
    let text = std::fs::read_to_string(&log).expect("log");
    let mut kept = String::new();
    for line in text.lines().take_while(|l| keep(l)) {
        kept.push_str(line);
        kept.push('\n');
    }
    kept.push_str(fragment);
    sb.write(&log, kept);
}

/// Issue 34 item 4: a log ending in a torn line (`<ns> ` and no newline) neither swallows the
/// next event nor makes `send` say "not submitted" for a prompt that was delivered.
#[test]
fn a_torn_log_line_swallows_no_event_and_the_next_send_is_confirmed() {
    let sb = Sandbox::new();
    sb.spawn_playing("t", sim::replies(&["One.", "Two."]), &[]);
    sb.turn("t", "one").args(["--timeout", "30s"]).success();
    tear_log(&sb, "t", |_| true, "1796405680272824103 ");
    let started = Instant::now();
    sb.umbel(["send", "t", "two"]).success();
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    sb.umbel(["wait", "t", "--timeout", "30s"]).success();
    sb.umbel(["read", "t"]).stdout("Two.\n").success();
    let one = sb.umbel(["status", "t", "--json"]).success().json();
    assert_eq!(one["state"], "ready", "{one}");
}

/// Issue 34 item 4: the turn's hooks lost to a full disk (its submit payload not saved, its end
/// line torn): the worker is not `busy` forever — its transcript holds the turn's end and its
/// screen is idle — so `status` says ready, `wait` ends, and the next `send` goes through.
#[test]
fn a_turn_whose_end_line_was_torn_is_not_busy_forever() {
    let sb = Sandbox::new();
    sb.spawn_playing("b", sim::replies(&["One.", "Two.", "Three."]), &[]);
    sb.turn("b", "one").args(["--timeout", "30s"]).success();
    sb.turn("b", "two").args(["--timeout", "30s"]).success();
    let log = sb.session_dir("b").join("events").join("log");
    let text = std::fs::read_to_string(&log).expect("log");
    let submits: Vec<usize> = (0..text.lines().count())
        .filter(|&i| {
            text.lines()
                .nth(i)
                .is_some_and(|l| l.contains(" UserPromptSubmit "))
        })
        .collect();
    let last_submit = *submits.last().expect("a submit");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let parts: Vec<String> = lines[last_submit].split(' ').map(str::to_string).collect();
    lines[last_submit] = format!("{} {} -", parts[0], parts[1]);
    let end = (last_submit..lines.len())
        .find(|&i| lines[i].contains(" Stop "))
        .expect("the turn's end");
    lines.truncate(end);
    sb.write(&log, lines.join("\n") + "\n1796405680272824103 ");

    let one = sb.umbel(["status", "b", "--json"]).success().json();
    assert_eq!(one["state"], "ready", "{one}");
    let started = Instant::now();
    sb.umbel(["wait", "b", "--timeout", "40s"]).success();
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    sb.umbel(["send", "b", "three"]).success();
    sb.umbel(["wait", "b", "--timeout", "30s"]).success();
    sb.umbel(["read", "b"]).stdout("Three.\n").success();
}
