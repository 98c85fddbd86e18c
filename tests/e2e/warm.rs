//! Warm `-p` (`umbel -p --warm`): a `-p` leaves one worker ready for the next `-p` of the same
//! launch, which takes it (proved by the CLI session id the answer reports: the warm worker's,
//! as `ls` listed it), as a fresh conversation, never shared by two `-p`s, and ended when
//! nobody takes it in time.

use crate::each_provider;
use crate::harness::*;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::time::Duration;

each_provider!(
    a_second_warm_print_takes_the_worker_the_first_left,
    a_warm_print_answers_in_the_same_shape_as_a_cold_one,
);

/// The warm worker `ls --json` lists, once a refill has made it ready (at most 120 s).
#[track_caller]
pub fn warm_worker(sb: &Sandbox, other_than: Option<&str>) -> Value {
    let mut found = None;
    let ready = eventually(Duration::from_secs(120), || {
        found = sb.ls().into_iter().find(|w| {
            !w["warm"].is_null() && Some(w["sessionId"].as_str().unwrap_or("")) != other_than
        });
        found.is_some()
    });
    assert!(ready, "no warm worker appeared: {:?}", sb.ls());
    found.expect("a warm worker")
}

/// The CLI session id a `-p -o json` answer reports (codex: its `thread.started` event;
/// copilot: its last line, `result`).
pub fn session_of(stdout: &str) -> String {
    let id = stdout.lines().find_map(|line| {
        let document: Value = serde_json::from_str(line).ok()?;
        // qwen prints one JSON array of its print mode's documents.
        let first = document.get(0).cloned().unwrap_or(document);
        ["session_id", "thread_id", "sessionID", "sessionId"]
            .iter()
            .find_map(|key| first[*key].as_str().map(str::to_string))
    });
    id.unwrap_or_else(|| panic!("no session id in {stdout}"))
}

/// How many `umbel warm-refill` processes of this sandbox run.
fn refills_running(sb: &Sandbox) -> usize {
    processes_under(&sb.root)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.windows(11).any(|w| w == b"warm-refill"))
        })
        .count()
}

/// A warm `-p` of the default CLI whose prompts the fake records (`record`: its `--env`); its
/// JSON answer.
fn recorded_warm_print(sb: &Sandbox, record: &str, prompt: &str) -> String {
    sb.umbel(["-p", prompt, "--warm", "-o", "json", "--env", record])
        .success()
        .stdout()
}

fn warm_print<'a>(sb: &'a Sandbox, provider: &str, prompt: &str) -> crate::harness::Test<'a> {
    sb.umbel(["-p", prompt, "--warm", "-o", "json", "--provider", provider])
}

fn a_second_warm_print_takes_the_worker_the_first_left(provider: &str) {
    let sb = Sandbox::new();
    let first = warm_print(&sb, provider, "one").success().stdout();
    let warm = warm_worker(&sb, None);
    let name = warm["name"].as_str().expect("name").to_string();
    assert!(name.starts_with("warm-"), "{warm}");
    let warm_session = warm["sessionId"].as_str().expect("session").to_string();
    assert_ne!(session_of(&first), warm_session);
    // ls and doctor show it as warm, with the time it has left.
    sb.cmd("ls")
        .stdout_has("warm ")
        .stdout_has(" left")
        .success();
    sb.cmd("doctor").stdout_has(format!("{name} (")).run();

    let second = warm_print(&sb, provider, "two").success().stdout();
    if provider == "opencode" {
        // opencode makes its session when the first prompt is submitted: a warm worker has
        // none yet (its `sessionId` is umbel's own), so the print's is a new `ses_…`.
        assert_ne!(session_of(&second), session_of(&first), "{second}");
    } else {
        assert_eq!(session_of(&second), warm_session, "not the warm worker");
    }
    assert!(second.contains("Response to: two"), "{second}");
    // The refill left the next warm worker, under the same name, a new CLI session.
    let next = warm_worker(&sb, Some(&warm_session));
    assert_eq!(next["name"], name.as_str());
    assert_eq!(
        sb.ls().len(),
        1,
        "one warm worker per launch: {:?}",
        sb.ls()
    );
}

/// Text, JSON and stream-json from a warm worker have the cold `-p`'s shape: the same keys,
/// the same event types.
fn a_warm_print_answers_in_the_same_shape_as_a_cold_one(provider: &str) {
    let sb = Sandbox::new();
    let shape = |out: &str| -> Vec<String> {
        out.lines()
            .map(|line| {
                let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
                let mut keys: Vec<&str> = v
                    .as_object()
                    .map(|o| o.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                keys.sort();
                format!("{}:{}", v["type"], keys.join(","))
            })
            .collect()
    };
    for format in ["text", "json", "stream-json"] {
        let run = |warm: bool| {
            let mut args = vec!["-p", "hello", "-o", format, "--provider", provider];
            if warm {
                args.push("--warm");
            }
            sb.umbel(args).success().stdout()
        };
        let cold = run(false);
        run(true);
        let ready = warm_worker(&sb, None);
        let warm = run(true);
        // Its refill is over once the next warm worker is ready.
        warm_worker(&sb, ready["sessionId"].as_str());
        match format {
            "text" => assert_eq!(warm, cold),
            _ => assert_eq!(shape(&warm), shape(&cold), "{format}:\n{warm}\n{cold}"),
        }
        sb.cmd("kill --all --purge").success();
    }
}

#[test]
fn a_warm_print_of_another_launch_starts_cold() {
    let sb = Sandbox::new();
    warm_print(&sb, "claude", "one").success();
    let warm = warm_worker(&sb, None);
    let warm_session = warm["sessionId"].as_str().expect("session");
    for other in [
        vec!["--model", "claude-other"],
        vec!["--env", "SOME_SETTING=2"],
        vec!["--append-system-prompt", "Be brief."],
    ] {
        let out = warm_print(&sb, "claude", "two").args(&other).success();
        assert_ne!(session_of(&out.stdout()), warm_session, "{other:?}");
        let still: Vec<Value> = sb.ls();
        assert!(
            still
                .iter()
                .any(|w| w["sessionId"] == warm_session && !w["warm"].is_null()),
            "{other:?} took the warm worker of another launch: {still:?}"
        );
    }
    // Each other launch left its own warm worker.
    assert!(eventually(Duration::from_secs(60), || sb
        .ls()
        .iter()
        .filter(|w| !w["warm"].is_null())
        .count()
        == 4));
}

#[test]
fn concurrent_warm_prints_never_share_a_worker() {
    let sb = Sandbox::new();
    warm_print(&sb, "claude", "one").success();
    let warm = warm_worker(&sb, None);
    let warm_session = warm["sessionId"].as_str().expect("session").to_string();
    let running: Vec<_> = (0..3)
        .map(|n| warm_print(&sb, "claude", &format!("at once {n}")).start())
        .collect();
    let sessions: Vec<String> = running
        .into_iter()
        .map(|r| session_of(&r.success().stdout()))
        .collect();
    let distinct: HashSet<&String> = sessions.iter().collect();
    assert_eq!(distinct.len(), 3, "two -p shared a worker: {sessions:?}");
    let took = sessions.iter().filter(|s| **s == warm_session).count();
    assert_eq!(took, 1, "exactly one takes the warm worker: {sessions:?}");
    // The refills racing for the one name leave one warm worker.
    warm_worker(&sb, Some(&warm_session));
    assert!(eventually(Duration::from_secs(60), || refills_running(&sb) == 0));
    let warm_ones = sb.ls().iter().filter(|w| !w["warm"].is_null()).count();
    assert_eq!(warm_ones, 1, "{:?}", sb.ls());
}

#[test]
fn an_unused_warm_worker_ends_itself_when_its_time_is_up() {
    let sb = Sandbox::new();
    sb.umbel(["-p", "one", "--warm", "--warm-ttl", "2s"])
        .success();
    warm_worker(&sb, None);
    // Nothing of umbel's runs but the tmux server's timer: the worker ends itself.
    let gone = eventually(Duration::from_secs(20), || sb.worker_dirs().is_empty());
    assert!(gone, "still there: {:?}", sb.ls());
    assert_no_process_left(&sb.root, "an expired warm worker");
    // UMBEL_WARM_TTL says the same.
    sb.umbel(["-p", "one"])
        .env("UMBEL_WARM", "1")
        .env("UMBEL_WARM_TTL", "1s")
        .success();
    warm_worker(&sb, None);
    assert!(eventually(Duration::from_secs(20), || sb
        .worker_dirs()
        .is_empty()));
}

#[test]
fn a_warm_print_is_a_fresh_conversation() {
    let sb = Sandbox::new();
    let record = sb.record_env();
    let print = |prompt: &str| recorded_warm_print(&sb, &record, prompt);
    let first = print("the first prompt");
    warm_worker(&sb, None);
    let second = print("the second prompt");
    assert_ne!(session_of(&first), session_of(&second));
    let result: Value = serde_json::from_str(&second).expect("JSON");
    assert_eq!(result["num_turns"], 1);
    // Each CLI process records its prompts from prompt-1: the warm one got the second alone.
    assert_eq!(sb.received(), vec![b"the second prompt".to_vec()]);
    warm_worker(&sb, Some(&session_of(&second)));
}

#[test]
fn warm_with_a_named_worker_is_refused() {
    let sb = Sandbox::new();
    sb.umbel(["-p", "hi", "--warm", "--name", "w1"])
        .stderr_has("--warm")
        .status(2);
    assert!(sb.worker_dirs().is_empty());
    // UMBEL_WARM=1 is ambient: a named `-p` just keeps its worker, as without it.
    sb.umbel(["-p", "hi", "--name", "w1"])
        .env("UMBEL_WARM", "1")
        .success();
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(sb.worker_dirs(), vec!["w1".to_string()]);
}

#[test]
fn kill_and_prune_handle_a_warm_worker() {
    let sb = Sandbox::new();
    warm_print(&sb, "claude", "one").success();
    let name = warm_worker(&sb, None)["name"]
        .as_str()
        .expect("name")
        .to_string();
    sb.umbel(["kill", &name, "--purge"]).success();
    assert!(sb.worker_dirs().is_empty());
    // A killed warm worker is not taken by the next -p: it starts cold.
    warm_print(&sb, "claude", "two").success();
    warm_worker(&sb, None);
    sb.cmd("prune").success();
    assert_eq!(sb.ls().len(), 1, "prune keeps a warm worker in its time");
}

/// A warm worker takes no prompt but its claimer's: a plain `send` (or `send --queue`) is
/// refused with nothing typed, and the next `-p --warm` still gets a fresh conversation.
#[test]
fn a_warm_worker_takes_no_plain_send() {
    let sb = Sandbox::new();
    let record = sb.record_env();
    let print = |prompt: &str| recorded_warm_print(&sb, &record, prompt);
    print("the first prompt");
    let warm = warm_worker(&sb, None);
    let name = warm["name"].as_str().expect("a name").to_string();
    for extra in [vec![], vec!["--queue"]] {
        let ran = sb
            .umbel([&["send", &name, "sneaked in"][..], &extra].concat())
            .status(1);
        assert!(ran.stderr().contains("warm"), "{}", ran.stderr());
    }
    let second = print("the second prompt");
    let result: Value = serde_json::from_str(&second).expect("JSON");
    assert_eq!(result["num_turns"], 1, "{second}");
    assert_eq!(sb.received(), vec![b"the second prompt".to_vec()]);
}

/// `kill --all` right after a `-p --warm`: the refill the `-p` left running does not start a
/// warm worker after it (nor leave one it had started): the fleet stays empty.
#[test]
fn kill_all_right_after_a_warm_print_leaves_no_warm_worker() {
    let sb = Sandbox::new();
    // A CLI slow to start: the refill is still spawning when `kill --all` runs.
    let slow = sb.scenario("slow-start", json!({ "startup": { "delay_ms": 1500 } }));
    sb.umbel(["-p", "one", "--warm", "--env", &slow]).success();
    sb.umbel(["kill", "--all", "--purge"]).success();
    assert!(eventually(Duration::from_secs(60), || refills_running(&sb) == 0));
    assert_eq!(sb.worker_dirs(), Vec::<String>::new(), "{:?}", sb.ls());
}
