//! The TUI's permission question against opencode 1.18.33's approval recordings (rec-out
//! `opencode-*.md`; the screens copied to `sim/tests/data/`): its keys, the "Always allow"
//! question Right, Enter opens, and what each answer publishes.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::screens::{self, Dialog};
use super::session::Session;
use super::turn::{Outcome, Turn};
use crate::engine::timeline::{self, Phase};
use crate::keys::Key;
use crate::scenario::Scenario;

/// The recordings' scenario: the tool twice, then a plain answer.
fn session() -> Session {
    let tool = json!({ "tool": "Bash", "input": { "command": "echo hi > umbel-tool.txt", "description": "Write hi" } });
    let scenario = json!({ "turns": [
        { "match": "run the tool", "reply": "It printed hi.", "end": { "permission": tool } },
        { "match": "again", "reply": "Again.", "end": { "permission": tool } },
    ] });
    let scenario = Scenario::parse(&scenario.to_string()).expect("scenario");
    let mut sess = Session::new(
        scenario,
        None,
        None,
        &json!({}),
        "/tmp/oc/proj".into(),
        None,
    );
    sess.published = Some(Vec::new());
    sess
}

/// A TUI turn on `prompt` played until it asks (or ends: then its outcome).
fn asking(sess: &mut Session, prompt: &str) -> (Turn, Option<Outcome>) {
    let mut turn = Turn::new(sess, prompt.into(), Instant::now(), true, false);
    timeline::Timeline::start(&mut turn, sess);
    let later = Instant::now() + Duration::from_secs(3600);
    for _ in 0..100 {
        if matches!(turn.core.phase, Phase::Dialog(_)) {
            return (turn, None);
        }
        if let Some(outcome) = timeline::tick(&mut turn, sess, later) {
            return (turn, Some(outcome));
        }
    }
    panic!("the turn neither asked nor ended");
}

/// The event types published since the last call, with `permission.replied`'s reply and a
/// tool part's status.
fn published(sess: &mut Session) -> Vec<String> {
    let events = sess.published.replace(Vec::new()).unwrap_or_default();
    events
        .iter()
        .map(|(_, e)| {
            let kind = e["type"].as_str().unwrap_or("").to_string();
            let p = &e["properties"];
            match kind.as_str() {
                "permission.replied" => format!("{kind} {}", p["reply"].as_str().unwrap_or("")),
                "message.part.updated" if p["part"]["type"] == "tool" => {
                    format!(
                        "tool {}",
                        p["part"]["state"]["status"].as_str().unwrap_or("")
                    )
                }
                _ => kind,
            }
        })
        .collect()
}

fn keys(turn: &mut Turn, sess: &mut Session, keys: &[Key]) -> Option<Outcome> {
    let mut last = None;
    for key in keys {
        last = turn.key(sess, key, Instant::now());
    }
    last
}

fn trimmed(rows: &[String]) -> Vec<String> {
    rows.iter().map(|r| r.trim_end().to_string()).collect()
}

#[test]
fn the_question_and_the_always_allow_one_are_the_recorded_screens() {
    let mut d = Dialog {
        kind: "# Shell command",
        detail: "$ echo hi > umbel-tool.txt".into(),
        cursor: 0,
        always: None,
    };
    for (always, name) in [
        (None, "approval-dialog"),
        (
            Some((vec!["echo *".to_string()], 0)),
            "approval-always-confirm",
        ),
    ] {
        d.always = always;
        let theirs = crate::fixtures::screen(&format!("opencode-1.18.33-{name}.txt"));
        let ours = screens::permission(&d, 120);
        let tail = &theirs[theirs.len() - ours.len()..];
        assert_eq!(trimmed(&ours), trimmed(tail), "{name}");
    }
}

#[test]
fn left_wraps_round_to_reject_then_allow_always_asks_again() {
    // opencode-left-left-enter: Left selects Reject, Left again Allow always, Enter asks.
    let mut sess = session();
    let (mut turn, _) = asking(&mut sess, "run the tool");
    assert!(published(&mut sess).contains(&"permission.asked".to_string()));
    keys(&mut turn, &mut sess, &[Key::Left]);
    assert_eq!(turn.core.phase, Phase::Dialog(2), "Reject");
    keys(&mut turn, &mut sess, &[Key::Left, Key::Enter]);
    assert_eq!(turn.always_asked(), Some((vec!["echo *".into()], 0)));
    assert_eq!(published(&mut sess), Vec::<String>::new(), "nothing yet");
}

#[test]
fn right_enter_esc_goes_back_to_the_question_and_publishes_nothing() {
    // opencode-right-enter-esc: no event, the question again with Allow once selected.
    let mut sess = session();
    let (mut turn, _) = asking(&mut sess, "run the tool");
    published(&mut sess);
    let outcome = keys(&mut turn, &mut sess, &[Key::Right, Key::Enter, Key::Esc]);
    assert!(outcome.is_none());
    assert_eq!(turn.always_asked(), None);
    assert_eq!(turn.core.phase, Phase::Dialog(0));
    assert_eq!(published(&mut sess), Vec::<String>::new());
}

#[test]
fn confirming_always_runs_the_call_and_later_ones_are_not_asked() {
    // opencode-right-enter-enter: PermissionReplied `always`, the tool completes.
    let mut sess = session();
    let (mut turn, _) = asking(&mut sess, "run the tool");
    published(&mut sess);
    keys(&mut turn, &mut sess, &[Key::Right, Key::Enter, Key::Enter]);
    let after = published(&mut sess);
    assert_eq!(after[..2], ["permission.replied always", "tool completed"]);
    let (_, ended) = asking(&mut sess, "again");
    assert!(ended.is_some(), "the second call was not asked about");
    let again = published(&mut sess);
    assert!(
        !again.contains(&"permission.asked".to_string()),
        "{again:?}"
    );
    assert!(again.contains(&"tool completed".to_string()), "{again:?}");
}

#[test]
fn esc_rejects_the_call_and_the_turn_goes_idle() {
    // opencode-esc: PermissionReplied `reject`, the tool's error, then idle.
    let mut sess = session();
    let (mut turn, _) = asking(&mut sess, "run the tool");
    published(&mut sess);
    let Some(Outcome::Done(done)) = keys(&mut turn, &mut sess, &[Key::Esc]) else {
        panic!("Esc did not end the turn")
    };
    assert_eq!(
        published(&mut sess)[..2],
        ["permission.replied reject", "tool error"]
    );
    let idle: Vec<&str> = done.events.iter().map(|(kind, _)| *kind).collect();
    assert_eq!(idle, ["session.status", "session.idle"]);
    let error = done.events.iter().find_map(|(_, p)| p.get("error"));
    assert_eq!(error, None::<&Value>);
    assert!(done.rejected, "the footer shows no duration");
}

#[test]
fn always_patterns_match_as_opencodes_wildcards_do() {
    use super::bus::wildcard;
    assert!(wildcard("echo *", "echo hi > umbel-tool.txt"));
    assert!(wildcard("echo *", "echo"));
    assert!(!wildcard("echo *", "echoes"));
    assert!(!wildcard("echo *", "rm -rf x"));
    assert!(wildcard("*", "anything"));
    assert!(wildcard("git * --x", "git log --x"));
}
