//! Park and resume on the fakes beyond the tiers' scenarios (concurrent senders to a parked
//! worker are a tier scenario): refusals, events (docs/park.md).

use crate::harness::*;
use serde_json::json;

/// A busy worker is not parked: the refusal says why, and the worker is left as it was.
#[test]
fn a_busy_worker_is_not_parked() {
    let sb = Sandbox::new();
    sb.spawn_playing(
        "b",
        json!({ "default": { "reply": "slow", "delay_ms": 3000 } }),
        &[],
    );
    sb.umbel(["send", "b", "long"]).success();
    sb.umbel(["park", "b"])
        .stderr_has("is busy: a turn is running")
        .status(1);
    sb.umbel(["wait", "b"]).success();
    assert_eq!(sb.ls()[0]["state"], "ready", "{:?}", sb.ls());
}

/// `resume` of a worker that is running is refused; of a killed one too.
#[test]
fn resume_refuses_a_running_or_killed_worker() {
    let sb = Sandbox::new();
    sb.spawn("r", &[]);
    sb.umbel(["resume", "r"])
        .stderr_has("only a parked or dead worker is resumed")
        .status(1);
    sb.umbel(["kill", "r"]).success();
    sb.umbel(["resume", "r"])
        .stderr_has("was ended by `umbel kill`")
        .status(1);
}

/// `umbel events` names a park and a resume: `parked` when the CLI was ended, `resumed` when
/// the next send started it again (no `ready` in between: the resume is it), then the turn.
#[test]
fn events_show_a_park_and_the_resume_a_send_made() {
    let sb = Sandbox::new();
    sb.spawn("e", &[]);
    sb.turn_outcome("e", "first", 0);
    sb.umbel(["park", "e"]).stdout("parked e\n").success();
    sb.turn_outcome("e", "second", 0);
    let lines = sb.umbel(["events", "--json", "e"]).success().stdout();
    let events: Vec<String> = lines
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            v["event"].as_str().unwrap_or("?").to_string()
        })
        .collect();
    let parked = events.iter().position(|e| e == "parked");
    let resumed = events.iter().position(|e| e == "resumed");
    assert!(parked.is_some() && resumed.is_some(), "{events:?}");
    assert_eq!(
        &events[parked.unwrap()..],
        ["parked", "resumed", "submitted", "turn-ended"],
        "{events:?}"
    );
}

/// qwen 0.23 writes a turn's answer to its chat record up to ~1.5 s after its `Stop` hook (the
/// fake: `late_transcript_ms`); a park right after the turn waits for it, so the resumed
/// conversation and `read --all` still have the answer.
#[test]
fn a_park_right_after_a_turn_waits_for_its_answer_to_be_recorded() {
    let sb = Sandbox::new();
    first_answer_recorded_late(&sb, "lr");
    sb.umbel(["park", "lr"]).stdout("parked lr\n").success();
    sb.turn_outcome("lr", "second", 0);
    let all = sb.umbel(["read", "lr", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all), ["First.", "Second."], "{all}");
}

/// A fake qwen `name` whose first turn ("first" → `First.`) has ended, its answer written to the
/// chat record 1.2 s after the end hook; "second" answers `Second.` at once.
fn first_answer_recorded_late(sb: &Sandbox, name: &str) {
    sb.spawn_playing(
        name,
        json!({ "turns": [
            { "match": "first", "reply": "First.", "late_transcript_ms": 1200 },
            { "match": "second", "reply": "Second." }
        ] }),
        &["--provider", "qwen"],
    );
    sb.turn_outcome(name, "first", 0);
}

/// `read --all` right after a turn whose answer the CLI records late (qwen 0.23, the fake's
/// `late_transcript_ms`) waits for the record rather than answering from the hook alone, so
/// a crash after it (here: the tmux server killed) keeps the answer in the resumed
/// conversation.
#[test]
fn read_all_waits_for_an_answer_recorded_late() {
    let sb = Sandbox::new();
    first_answer_recorded_late(&sb, "rl");
    let all = sb.umbel(["read", "rl", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all), ["First."], "{all}");
    sandbox_tmux(&sb)
        .kill_server()
        .expect("kill umbel's tmux server");
    sb.umbel(["resume", "rl"]).success();
    sb.turn_outcome("rl", "second", 0);
    let all = sb.umbel(["read", "rl", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all), ["First.", "Second."], "{all}");
}

/// A warm worker (`-p --warm`) is not parked: it ends itself when its time is up, and parked
/// the next `-p --warm` would pay a resume. `--idle-for` passes it by, a name is refused; `ls`
/// shows it warm next to a parked worker.
#[test]
fn a_warm_worker_is_not_parked_and_ls_shows_warm_and_parked_side_by_side() {
    let sb = Sandbox::new();
    sb.spawn("p", &[]);
    sb.umbel(["-p", "hi", "--warm"]).success();
    let warm = crate::warm::warm_worker(&sb, None);
    let name = warm["name"].as_str().expect("name").to_string();
    let parked = sb
        .umbel(["park", "--idle-for", "0s", "--json"])
        .success()
        .json();
    assert_eq!(parked["parked"], json!(["p"]), "{parked}");
    sb.umbel(["park", &name]).stderr_has("is warm").status(1);
    sb.cmd("ls")
        .stdout_has("parked")
        .stdout_has("warm ")
        .success();
    let ls = sb.ls();
    let of = |n: &str| ls.iter().find(|w| w["name"] == n).cloned().expect(n);
    assert_eq!(of("p")["state"], "parked", "{ls:?}");
    assert!(of(&name)["warm"].is_object(), "{ls:?}");
    assert_eq!(of(&name)["state"], "ready", "{ls:?}");
}

/// `ls` and `status` say how long a worker has been parked (`parked 2s`); a dead worker that can
/// be resumed names the command in `status`'s text, not only in its JSON.
#[test]
fn ls_and_status_say_how_long_a_worker_is_parked_and_how_to_resume_a_dead_one() {
    let sb = Sandbox::new();
    sb.spawn("h", &[]);
    sb.turn_outcome("h", "first", 0);
    sb.umbel(["park", "h"]).success();
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let ls = sb.cmd("ls").success().stdout();
    let header = ls.lines().next().expect("header");
    let (from, to) = (
        header.find("STATE").expect("STATE"),
        header.find("AGE").expect("AGE"),
    );
    let row = ls.lines().find(|l| l.starts_with("h ")).expect("h's row");
    let state = row[from..to].trim();
    let took = state
        .strip_prefix("parked ")
        .unwrap_or_else(|| panic!("no `parked <how long>` in {row:?}"));
    assert!(took.ends_with('s') && took != "0s", "{row:?}");
    sb.cmd("status h")
        .stdout_has("state:     parked ")
        .success();
    sb.umbel(["resume", "h"]).success();
    sandbox_tmux(&sb)
        .kill_server()
        .expect("kill umbel's tmux server");
    sb.cmd("status h")
        .stdout_has("state:     dead")
        .stdout_has("resume:    umbel resume h")
        .success();
}

/// A parked worker has no live pane, but its conversation is all it is (codex's and gemini's
/// live in its folder): `prune` keeps it and says so, and it resumes on the next send.
#[test]
fn prune_keeps_a_parked_worker() {
    let sb = Sandbox::new();
    sb.spawn("pk", &[]);
    sb.turn_outcome("pk", "first", 0);
    sb.umbel(["park", "pk"]).stdout("parked pk\n").success();
    let pruned = sb.umbel(["prune", "--json"]).success().json();
    assert_eq!(pruned["removed"], serde_json::json!([]), "{pruned}");
    let skipped = pruned["skipped"].to_string();
    assert!(
        skipped.contains("pk") && skipped.contains("parked"),
        "{pruned}"
    );
    sb.umbel(["prune"]).stderr_has("parked").success();
    sb.turn_outcome("pk", "second", 0);
}

/// `wait` on a parked worker — started before the park or after it — says it is parked
/// (`idle`, 123, reason `parked`), not dead: no tombstone, `status` still says parked, and the
/// next send resumes it.
#[test]
fn wait_on_a_parked_worker_says_parked_not_dead() {
    let sb = Sandbox::new();
    sb.spawn("wp", &[]);
    sb.turn_outcome("wp", "first", 0);
    let at = sb.umbel(["status", "wp", "--json"]).success().json()["position"].to_string();
    let waiting = sb
        .umbel(["wait", "wp", "--since", &at, "--timeout", "30s", "--json"])
        .start();
    std::thread::sleep(std::time::Duration::from_millis(300));
    sb.umbel(["park", "wp"]).stdout("parked wp\n").success();
    let during = waiting.run();
    assert_eq!(during.code(), Some(123), "{}", during.stdout());
    assert_eq!(during.json()["reason"], "parked", "{}", during.stdout());
    let ran = sb
        .umbel(["wait", "wp", "--since", &at, "--timeout", "5s", "--json"])
        .run();
    let outcome = ran.json();
    assert_ne!(outcome["outcome"], "dead", "{outcome}");
    assert!(ran.stdout().contains("parked"), "{outcome}");
    assert!(
        !sb.session_dir("wp").join("events/dead").exists(),
        "a tombstone was written"
    );
    sb.umbel(["status", "wp"]).stdout_has("parked").success();
    sb.turn_outcome("wp", "second", 0);
}

/// A parked worker whose transcript is gone is not resumed on an empty conversation: `resume`
/// and the send that would resume it are refused (`not_resumable`, naming the file), as for a
/// dead worker.
#[test]
fn a_parked_worker_without_its_transcript_is_not_resumed() {
    let sb = Sandbox::new();
    sb.spawn("gt", &[]);
    sb.turn_outcome("gt", "first", 0);
    sb.umbel(["park", "gt"]).stdout("parked gt\n").success();
    let status = sb.umbel(["status", "gt", "--json"]).success().json();
    let transcript = status["transcriptPath"]
        .as_str()
        .expect("a transcript")
        .to_string();
    std::fs::remove_file(&transcript).expect("remove the transcript");
    for verb in [vec!["resume", "gt"], vec!["send", "gt", "second"]] {
        let ran = sb.umbel(&verb).status(1);
        assert!(
            ran.stderr().contains(&transcript),
            "{verb:?}: {}",
            ran.stderr()
        );
    }
    sb.umbel(["status", "gt"]).stdout_has("parked").success();
}

/// A dead worker `resume` can bring back (its tmux server gone, its conversation kept): `send`
/// and `explain` advise `umbel resume`, never `kill --purge` (which loses the conversation).
#[test]
fn a_dead_worker_that_can_be_resumed_is_advised_resume_not_purge() {
    let sb = Sandbox::new();
    sb.spawn("dr", &[]);
    sb.turn_outcome("dr", "first", 0);
    sandbox_tmux(&sb)
        .kill_server()
        .expect("kill umbel's tmux server");
    let sent = sb.umbel(["send", "dr", "second"]).status(125);
    assert!(
        sent.stderr().contains("umbel resume dr"),
        "{}",
        sent.stderr()
    );
    assert!(
        !sent.stderr().contains("kill dr --purge"),
        "{}",
        sent.stderr()
    );
    let explained = sb.umbel(["explain", "dr", "--json"]).success().json();
    let why = explained["next"]["why"].to_string();
    assert!(why.contains("umbel resume dr"), "{explained}");
    sb.umbel(["resume", "dr"]).success();
    sb.turn_outcome("dr", "second", 0);
}

/// A fork of a worker mid-turn would copy half a turn, which never ends in the fork: refused as
/// busy (as `park` refuses), nothing spawned; once the turn ended the fork is made.
#[test]
fn a_worker_mid_turn_is_not_forked() {
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "mid",
        json!({ "turns": [
            { "match": "first", "reply": "One." },
            { "match": "slow", "reply": "Two.", "delay_ms": 3000 }
        ] }),
    );
    sb.spawn("par", &["--env", &scenario]);
    sb.turn("par", "first").success();
    let pos = sb.umbel(["send", "par", "slow one"]).success().line();
    sb.umbel(["spawn", "--name", "fk", "--fork-from", "par"])
        .stderr_has("worker `par` is busy: a turn is running")
        .status(1);
    assert_eq!(sb.ls().len(), 1, "{:?}", sb.ls());
    sb.umbel(["wait", "par", "--since", &pos]).success();
    sb.spawn("fk", &["--fork-from", "par", "--env", &scenario]);
}

/// The advisory locks process `pid` holds (`/proc/locks`).
fn locks_held_by(pid: i32) -> usize {
    std::fs::read_to_string("/proc/locks")
        .unwrap_or_default()
        .lines()
        .filter(|l| l.split_whitespace().nth(4) == Some(pid.to_string().as_str()))
        .count()
}

/// A plain `send` while `park` is at work (it holds the worker while the CLI records its last
/// answer): the send waits for the park, then resumes the worker and delivers — it is not told
/// that "another send" holds the worker.
#[test]
fn a_send_racing_a_park_waits_for_it_and_resumes_the_worker() {
    let sb = Sandbox::new();
    first_answer_recorded_late(&sb, "pr");
    let park = sb.umbel(["park", "pr"]).start();
    // Both of its locks taken (resume.lock, then send.lock): it waits for the record now.
    let holding = eventually(std::time::Duration::from_secs(20), || {
        locks_held_by(park.pid()) >= 2
    });
    assert!(holding, "park never took the worker");
    let sent = sb
        .umbel(["send", "pr", "second", "--json"])
        .success()
        .json();
    assert_eq!(sent["resumed"], true, "{sent}");
    park.success();
    sb.umbel(["wait", "pr", "--since", &sent["position"].to_string()])
        .success();
    let all = sb.umbel(["read", "pr", "--all", "--json"]).success().json();
    assert_eq!(answers_of(&all), ["First.", "Second."], "{all}");
}

/// `park` on a full disk: the file-size limit here fails its first write past the event log's
/// end (EFBIG, with SIGXFSZ ignored as a full disk sends none). The park is not recorded, so
/// the CLI is not ended: the worker is still ready and takes its next prompt.
#[test]
fn a_park_that_cannot_record_itself_leaves_the_worker_running() {
    let sb = Sandbox::new();
    sb.spawn("fd", &[]);
    sb.turn_outcome("fd", "first", 0);
    let log = sb.session_dir("fd").join("events/log");
    let size = std::fs::metadata(&log).expect("the event log").len();
    let umbel = sb.process(&[]);
    let mut cmd = std::process::Command::new("sh");
    cmd.env_clear()
        .envs(umbel.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .current_dir(&sb.project)
        .arg("-c")
        .arg("trap '' XFSZ; exec prlimit --fsize=\"$0\" -- \"$1\" park fd")
        .arg(size.to_string())
        .arg(umbel.get_program());
    let out = cmd.output().expect("run park under a file-size limit");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot append to"), "{stderr}");
    assert_eq!(sb.ls()[0]["state"], "ready", "{:?}", sb.ls());
    sb.turn_outcome("fd", "second", 0);
}
