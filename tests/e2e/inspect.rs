//! Looking at workers and sweeping the dead: capture, logs, prune, completions.

use crate::harness::*;
use serde_json::json;

#[test]
fn capture_shows_the_screen_and_the_kept_screen_after_death() {
    let sb = Sandbox::new();
    sb.spawn_playing("c1", sim::crash("crashing now", 4), &[]);
    let screen = sb.umbel(["capture", "c1"]).run().stdout();
    assert!(screen.contains("Claude Code v2.1.332"), "{screen}");
    sb.turn("c1", "go").status(125);
    sb.umbel(["kill", "c1"]).success();
    sb.umbel(["capture", "c1"]).stdout_has("go").success();
    sb.umbel(["capture", "nobody"]).status(1);
}

#[test]
fn logs_print_the_event_log_and_follow_it() {
    let sb = Sandbox::new();
    sb.spawn("l1", &[]);
    let follow = sb.umbel(["logs", "l1", "-f"]).start();
    sb.turn("l1", "hi").success();
    let log = sb.umbel(["logs", "l1"]).run().stdout();
    let kinds: Vec<&str> = log.lines().filter_map(|l| l.split(' ').nth(1)).collect();
    assert_eq!(kinds, ["SessionStart", "UserPromptSubmit", "Stop"], "{log}");
    std::thread::sleep(std::time::Duration::from_millis(500));
    follow.interrupt();
    let followed = follow.run();
    assert_eq!(
        followed.stdout(),
        log,
        "-f printed the same lines as they came"
    );
}

/// A log line being written when `logs -f` looks (the hook wrote part of it) is printed once,
/// whole, when it is complete — not cut where the look found it (issue 45 item 13: `-f` keeps
/// its offset and reads only what was appended).
#[test]
fn logs_follow_prints_a_line_written_in_two_parts_whole() {
    let sb = Sandbox::new();
    sb.spawn("l2", &[]);
    let log = sb.session_dir("l2").join("events/log");
    let before = std::fs::read_to_string(&log).expect("the log");
    let mut follow = sb.umbel(["logs", "l2", "-f"]).talk();
    for line in before.lines() {
        assert_eq!(follow.read_line(), line);
    }
    let append = |bytes: &str| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .expect("open");
        f.write_all(bytes.as_bytes()).expect("append");
    };
    append("1796558669192555785 Notif");
    // Time for the follower to look at the half line (it is woken at once); the check below
    // does not depend on it.
    std::thread::sleep(std::time::Duration::from_millis(300));
    append("ication 1796558669192555785-9.Notification.json\n");
    assert_eq!(
        follow.read_line(),
        "1796558669192555785 Notification 1796558669192555785-9.Notification.json"
    );
    follow.interrupt();
    follow.run();
}

#[test]
fn prune_removes_dead_workers_and_keeps_live_ones() {
    let sb = Sandbox::new();
    sb.spawn("alive", &[]);
    sb.spawn("gone", &[]);
    sb.umbel(["kill", "gone"]).success();
    let kept = sb.cmd("prune --older-than 1h --json").json();
    assert_eq!(
        kept["removed"],
        json!([]),
        "killed just now, not an hour ago"
    );
    let pruned = sb.umbel(["prune", "--json"]).json();
    assert_eq!(pruned["removed"], json!(["gone"]));
    assert_eq!(pruned["kept"], json!(["alive"]));
    assert!(!sb.session_dir("gone").exists());
    sb.umbel(["prune", "--older-than", "soon"]).status(2);
}

#[test]
fn prune_older_than_counts_from_a_crash_not_from_the_spawn() {
    let sb = Sandbox::new();
    sb.spawn_playing("old", sim::crash("bye", 3), &[]);
    let meta_path = sb.session_dir("old").join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&meta_path).unwrap()).unwrap();
    meta["createdAt"] = json!(1_000);
    sb.write(&meta_path, meta.to_string());
    sb.umbel(["send", "old", "crash now"]).success();
    // Nobody waits on it, so no verb records the death: only tmux knows when it happened.
    // (Poll the pane itself: the launcher logs the exit just before the pane dies.)
    let ctx = umbel::operations::Ctx::from_env(sb.env()).expect("context");
    let worker = umbel::operations::worker::Worker::load(&ctx, "old").expect("worker");
    let dead = (0..400).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(25));
        matches!(
            worker.liveness(&ctx),
            Ok(umbel::core::wait::Liveness::Dead(_))
        )
    });
    assert!(dead, "the worker's pane died");
    let kept = sb.cmd("prune --older-than 1h --json").json();
    assert_eq!(
        kept["kept"],
        json!(["old"]),
        "spawned long ago, but it died just now"
    );
    let pruned = sb.umbel(["prune", "--json"]).json();
    assert_eq!(pruned["removed"], json!(["old"]));
}

#[test]
fn completions_are_generated_without_a_state_root() {
    let mut sb = Sandbox::new();
    sb.var("UMBEL_STATE", "/proc/no-state-here");
    for shell in ["bash", "zsh", "fish"] {
        let out = sb.umbel(["completions", shell]).success();
        // A script that calls umbel back for each completion (clap's dynamic completion).
        assert!(out.stdout().contains("COMPLETE"), "{shell}");
    }
}

#[test]
fn bash_completion_loads_and_completes_verbs_and_flags() {
    let sb = Sandbox::new();
    let script = sb.root.join("umbel.bash");
    sb.write(&script, sb.umbel(["completions", "bash"]).run().stdout());
    // Drive the completion function the way bash's `complete -F` does.
    let probe = format!(
        "source {}; complete -p umbel >/dev/null || exit 3; \
         COMP_WORDS=(umbel do); COMP_CWORD=1; _clap_complete_umbel umbel do umbel; echo \"${{COMPREPLY[@]}}\"; \
         COMP_WORDS=(umbel spawn --prov); COMP_CWORD=2; _clap_complete_umbel umbel --prov spawn; echo \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let out = std::process::Command::new("bash")
        .args(["--noprofile", "--norc", "-c", &probe])
        .output()
        .expect("bash");
    assert_success(&out, "bash completion");
    assert_eq!(stdout(&out), "doctor\n--provider\n");
}

/// The real claude writes a turn's last records a few hundred ms after its Stop hook: `read --all`
/// and `--turn N` right after `wait` still show that turn's answer (the hook's), not an open turn.
#[test]
fn read_all_right_after_wait_has_the_last_answer_before_the_transcript_does() {
    let sb = Sandbox::new();
    two_turns_with_a_late_transcript(&sb, 5000);
    let all = sb.cmd("read lag --all --json").json();
    assert_eq!(all[1]["answer"], "Two.", "{all}");
    assert_eq!(all[1]["ended"], true, "{all}");
    sb.cmd("read lag --turn 2").stdout("Two.\n").run();
}

/// Worker `lag` after two turns answered `One.` and `Two.`, the second's transcript lines
/// `late_ms` behind its hooks; each `wait` runs `--since` the position its `send` printed.
pub(crate) fn two_turns_with_a_late_transcript(sb: &Sandbox, late_ms: u64) {
    let second = json!({ "reply": "Two.", "late_transcript_ms": late_ms });
    sb.spawn_playing(
        "lag",
        json!({ "turns": [{ "reply": "One." }, second] }),
        &[],
    );
    for prompt in ["first", "second"] {
        let since = sb.umbel(["send", "lag", prompt]).run().line();
        sb.umbel(["wait", "lag", "--since", &since]).success();
    }
}
