//! fake-opencode against opencode 1.18.33's recordings (`tests/data/opencode/1.18.33/`): umbel's
//! plugin played on the recorded events gives the recorded record and hooks; a fake turn's
//! events leave a record of the same lines and fields; the screens are the recorded ones; `run
//! --format json` prints the recorded events.

use std::time::Instant;

use serde_json::{Value, json};

use super::plugin::{Effect, Plugin, Umbel, umbel_of};
use super::run::printed;
use super::screens::{self, Dialog, View};
use super::session::Session;
use super::turn::{Done, Turn};
use crate::engine::headless::{self, Played};
use crate::engine::timeline::Timeline;
use crate::fixtures::{assert_fields, release_screen};
use crate::scenario::Scenario;

/// A recorded JSONL file of 1.18.33.
fn recorded(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/../tests/data/opencode/1.18.33/opencode-1.18.33-{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

/// What the plugin does for `events`: the hooks' names, and the record lines.
fn played(events: &[Value]) -> (Vec<&'static str>, Vec<Value>) {
    let mut plugin = Plugin::default();
    let (mut hooks, mut records) = (Vec::new(), Vec::new());
    for effect in events.iter().flat_map(|e| plugin.event(e)) {
        match effect {
            Effect::Hook(name, _) => hooks.push(name),
            Effect::Record(line) => records.push(line),
        }
    }
    (hooks, records)
}

/// The hooks of a first turn, as umbel's plugin ran them on the real 1.18.33.
const TURN_HOOKS: [&str; 5] = [
    "SessionCreated",
    "PromptTaken",
    "SessionBusy",
    "SessionStatus",
    "SessionIdle",
];

#[test]
fn the_plugin_played_on_the_recorded_events_writes_the_recorded_record() {
    let (hooks, records) = played(&recorded("events-text-turn.jsonl"));
    assert_eq!(records, recorded("record-text-turn.jsonl"));
    assert_eq!(hooks, TURN_HOOKS);
}

#[test]
fn the_plugin_reads_umbels_line_of_the_plugin_source() {
    let source = include_str!("../../../src/core/providers/opencode/plugin.js");
    let umbel = json!({ "hook": "sh /s/event.sh", "transcript": "/s/opencode-transcript.jsonl" });
    let source = source.replace("__UMBEL__", &umbel.to_string());
    let want = Umbel {
        hook: "sh /s/event.sh".into(),
        transcript: "/s/opencode-transcript.jsonl".into(),
    };
    assert_eq!(umbel_of(&source), Some(want));
    assert_eq!(umbel_of("const OTHER = {};"), None);
}

/// A session of `scenario` that keeps nothing and has no plugin, collecting its events.
fn session(scenario: Value, config: Value) -> Session {
    let scenario = Scenario::parse(&scenario.to_string()).expect("scenario");
    let mut sess = Session::new(scenario, None, None, &config, "/tmp/oc/proj".into(), None);
    sess.published = Some(Vec::new());
    sess
}

/// Plays one turn on `prompt` as `run` does (no person to ask); the events published.
fn turn(sess: &mut Session, prompt: &str, auto: bool) -> Vec<Value> {
    let mut turn = Turn::new(sess, prompt.into(), Instant::now(), false, auto);
    turn.start(sess);
    let done: Done = match headless::play("t", &mut turn, sess, |_, _| Ok(()), || 1) {
        Ok(Played::Done(done)) => done,
        _ => panic!("the turn did not end"),
    };
    for (kind, properties) in done.events {
        sess.publish(kind, properties);
    }
    let published = sess.published.take().unwrap_or_default();
    published.into_iter().map(|(_, e)| e).collect()
}

/// A record line's kind: `message/<role>` or `part/<type>`.
fn kind(line: &Value) -> String {
    match line["type"].as_str() {
        Some("message") => format!("message/{}", line["info"]["role"].as_str().unwrap_or("")),
        _ => format!("part/{}", line["part"]["type"].as_str().unwrap_or("")),
    }
}

#[test]
fn a_fake_turn_leaves_the_recorded_record_and_hooks() {
    let mut sess = session(json!({}), json!({}));
    let (hooks, ours) = played(&turn(&mut sess, "\"say hi four\"", false));
    let theirs = recorded("record-text-turn.jsonl");
    let kinds = |lines: &[Value]| lines.iter().map(kind).collect::<Vec<_>>();
    assert_eq!(kinds(&ours), kinds(&theirs));
    for (i, (want, got)) in theirs.iter().zip(&ours).enumerate() {
        assert_fields(want, got, &format!("record line {i}"));
    }
    assert_eq!(ours[5]["part"]["text"], "Response to: \"say hi four\"");
    assert_eq!(hooks, TURN_HOOKS);
}

#[test]
fn run_json_prints_the_recorded_events_of_a_text_turn_a_tool_turn_and_an_api_error() {
    let tool = json!({ "turns": [{ "reply": "It printed hi.", "end": { "permission": {
        "tool": "Bash", "input": { "command": "echo hi", "description": "Print hi" } } } }] });
    let error = json!({ "turns": [{ "end": { "api_error": {
        "status": 400, "message": "scripted bad request" } } }] });
    for (scenario, name) in [
        (json!({}), "run-format-json.jsonl"),
        (tool, "run-format-json-tool.jsonl"),
        (error, "run-format-json-api-error.jsonl"),
    ] {
        let mut sess = session(scenario, json!({}));
        let events = turn(&mut sess, "say hi", true);
        let stamped: Vec<(i64, Value)> = events.into_iter().map(|e| (0, e)).collect();
        let ours = printed(&stamped);
        let theirs = recorded(name);
        let types = |lines: &[Value]| lines.iter().map(|l| l["type"].clone()).collect::<Vec<_>>();
        assert_eq!(types(&ours), types(&theirs), "{name}");
        for (want, got) in theirs.iter().zip(&ours) {
            assert_fields(want, got, name);
        }
    }
}

#[test]
fn a_deny_rule_refuses_the_tool_and_the_turn_answers() {
    let tool = json!({ "default": { "reply": "Done.", "end": { "permission": {
        "tool": "Bash", "input": { "command": "rm -rf x" } } } } });
    let mut sess = session(tool, json!({ "permission": { "bash": "deny" } }));
    let events = turn(&mut sess, "go", false);
    let states: Vec<&str> = events
        .iter()
        .filter_map(|e| e.pointer("/properties/part/state/status")?.as_str())
        .collect();
    assert_eq!(states, ["pending", "running", "error"]);
    let (hooks, _) = played(&events);
    assert_eq!(hooks.last(), Some(&"SessionIdle"));
    assert!(!hooks.contains(&"PermissionAsked"), "{hooks:?}");
}

/// A view at the recorded size (a 120×40 tmux window: its pane is 120×39).
fn view<'a>(input: &'a str, busy: bool) -> View<'a> {
    View {
        size: (120, 39),
        input,
        agent: "Build · Claude Sonnet 4.5 (latest) Anthropic".into(),
        cwd: "/tmp/ocx/proj:master",
        busy,
        armed: false,
    }
}

fn trimmed(rows: &[String]) -> Vec<String> {
    rows.iter().map(|r| r.trim_end().to_string()).collect()
}

#[test]
fn the_home_screen_is_the_recorded_idle_one() {
    let theirs = release_screen("opencode", "1.18.33", "screen-idle.txt");
    assert_eq!(trimmed(&screens::home(&view("", false))), trimmed(&theirs));
}

#[test]
fn a_running_turn_and_a_permission_question_are_the_recorded_screens() {
    let busy = release_screen("opencode", "1.18.33", "screen-busy.txt");
    let mut conversation = screens::prompt_block("a slow question");
    conversation.extend(screens::answer_block(
        &[],
        "Build · Claude Sonnet 4.5 (latest)",
    ));
    let ours = screens::session(&view("", true), &conversation, None);
    assert_eq!(trimmed(&ours), trimmed(&busy));
    let asked = release_screen("opencode", "1.18.33", "screen-permission.txt");
    let dialog = Dialog {
        kind: "# Shell command",
        detail: "$ echo hi > umbel-tool.txt".into(),
        cursor: 0,
        always: None,
    };
    let ours = screens::permission(&dialog, 120);
    assert_eq!(trimmed(&ours), trimmed(&asked[asked.len() - ours.len()..]));
}

/// The home screen recorded with each agent (Tab switched to Plan): the same but for the
/// agent's name in the input box. (The placeholder is one of opencode's rotating ones and the
/// last row names the recording's folder: those rows are left out.)
#[test]
fn the_home_screen_names_the_agent_as_recorded() {
    use super::agent::Agent;
    for agent in [Agent::Build, Agent::Plan] {
        let mode = format!("mode-{}.txt", agent.id());
        let theirs = trimmed(&release_screen("opencode", "1.18.33", &mode));
        let mut v = view("", false);
        v.agent = format!("{} · Claude Sonnet 4.5 (latest) Anthropic", agent.name());
        let ours = trimmed(&screens::home(&v));
        assert_eq!(ours.len(), theirs.len());
        let kept = |(i, row): (usize, &String)| !row.contains("Ask anything") && i + 1 < ours.len();
        let same = |rows: &[String]| -> Vec<String> {
            rows.iter()
                .enumerate()
                .filter(|&(i, r)| kept((i, r)))
                .map(|(_, r)| r.clone())
                .collect()
        };
        assert_eq!(same(&ours), same(&theirs), "{mode}");
        let line = format!("┃  {} · Claude Sonnet 4.5 (latest) Anthropic", agent.name());
        assert!(ours.iter().any(|r| r.ends_with(&line)), "{ours:#?}");
    }
}
