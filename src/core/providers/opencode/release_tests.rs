//! OpenCode across its window: each tested release's recordings (`tests/data/opencode/<release>/`,
//! against fake-model: the TUI under umbel's tmux, `opencode run`'s output, the plugin's bus
//! events and record) read as umbel reads 1.18.33's. What differs between releases is named in
//! the test that covers it.

use super::*;
use crate::core::test_data::{assert_pending, assert_screens};
use serde_json::Value;
use std::collections::BTreeSet;

/// One tested release's recordings.
struct Recorded {
    release: &'static str,
    idle: &'static str,
    busy: &'static str,
    permission: &'static str,
    events: &'static str,
    record: &'static str,
    run_json: [&'static str; 3],
    run_text: &'static str,
    /// `opencode --help` (the TUI's flags).
    help: &'static str,
}

/// A release's recorded file, `tests/data/opencode/<release>/opencode-<release>-<what>`.
macro_rules! file_of {
    ($v:literal, $what:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/opencode/",
            $v,
            "/opencode-",
            $v,
            "-",
            $what
        ))
    };
}

/// Each of a release's recorded files.
macro_rules! recorded {
    ($v:literal) => {
        Recorded {
            release: $v,
            idle: file_of!($v, "screen-idle.txt"),
            busy: file_of!($v, "screen-busy.txt"),
            permission: file_of!($v, "screen-permission.txt"),
            events: file_of!($v, "events-text-turn.jsonl"),
            record: file_of!($v, "record-text-turn.jsonl"),
            run_json: [
                file_of!($v, "run-format-json.jsonl"),
                file_of!($v, "run-format-json-tool.jsonl"),
                file_of!($v, "run-format-json-api-error.jsonl"),
            ],
            run_text: file_of!($v, "run-text.txt"),
            help: file_of!($v, "help.txt"),
        }
    };
}

/// Oldest first, as the table lists them.
const RECORDED: [Recorded; 3] = [
    recorded!("1.17.18"),
    recorded!("1.18.16"),
    recorded!("1.18.33"),
];

#[test]
fn every_tested_release_was_recorded() {
    let recorded: Vec<Version> = RECORDED.iter().map(|r| Version::of(r.release)).collect();
    assert_eq!(recorded, RELEASES.tested);
}

#[test]
fn every_releases_tui_is_idle_busy_or_asking_alike() {
    for r in &RECORDED {
        assert_screens(
            &Opencode,
            &[
                (r.idle, StartupScreen::Idle),
                (r.busy, StartupScreen::Other),
                (r.permission, StartupScreen::Person(PERMISSION_TITLE.into())),
            ],
        );
        assert_pending(&Opencode, &[(r.idle, false), (r.busy, false)]);
        assert!(r.busy.contains(BUSY), "{}", r.release);
    }
}

/// The empty input's placeholder: `Ask anything... "<suggestion>"` (three dots) up to 1.18.16 at
/// least, `Ask anything… "<suggestion>"` (an ellipsis) on 1.18.33. umbel reads the words only.
#[test]
fn the_placeholder_is_no_input_with_three_dots_or_an_ellipsis() {
    let placeholder = |r: &Recorded| {
        let (_, text) = Opencode.input_line_at(r.idle).expect(r.release);
        text
    };
    for r in &RECORDED[..2] {
        assert!(
            placeholder(r).starts_with("Ask anything... \""),
            "{}",
            r.release
        );
    }
    assert!(placeholder(&RECORDED[2]).starts_with("Ask anything… \""));
    for r in &RECORDED {
        let (row, text) = Opencode.input_line_at(r.idle).expect(r.release);
        let typed = r.idle.replacen(&text, "say hi please", 1);
        assert_pending(&Opencode, &[(&typed, true)]);
        assert_eq!(
            Opencode.input_line_at(&typed),
            Some((row, "say hi please".to_string())),
            "{}",
            r.release
        );
    }
}

#[test]
fn every_releases_record_reads_its_turn() {
    for r in &RECORDED {
        let turn = Opencode.last_turn(&mut r.record.lines().rev().map(str::to_string));
        assert_eq!(
            turn.prompt.as_deref(),
            Some("\"say hi four\""),
            "{}",
            r.release
        );
        assert_eq!(
            turn.answer.as_deref(),
            Some("Response to: \"say hi four\""),
            "{}",
            r.release
        );
        assert!(turn.ended && !turn.is_error, "{}: {turn:?}", r.release);
        assert_eq!(turn.output_tokens, Some(12), "{}", r.release);
        assert!(
            r.run_text.starts_with("Response to: \"say hi"),
            "{}",
            r.release
        );
    }
}

/// The events umbel's plugin turns into hooks, in the order 1.18.33 publishes them.
#[test]
fn every_release_publishes_the_events_umbel_hears_in_order() {
    let heard = |r: &Recorded| -> Vec<String> {
        r.events
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|e| {
                let kind = str_field(&e, "type")?;
                let status = e.pointer("/properties/status/type").and_then(Value::as_str);
                match kind {
                    "session.created" | "session.idle" | "session.error" => Some(kind.into()),
                    "session.status" => Some(format!("{kind} {}", status.unwrap_or("?"))),
                    _ => None,
                }
            })
            .collect()
    };
    let newest = heard(&RECORDED[2]);
    assert!(newest.first().is_some_and(|e| e == "session.created"));
    assert!(newest.contains(&"session.status busy".to_string()));
    assert_eq!(newest.last().map(String::as_str), Some("session.idle"));
    for r in &RECORDED {
        assert_eq!(heard(r), newest, "{}", r.release);
    }
}

/// `opencode run --format json` prints the same events with the same keys on each release
/// (a plain answer, a shell tool with `--auto`, an API error), so `-p -o json`'s 1.18.33 shape
/// is every release's.
#[test]
fn every_releases_run_json_has_the_same_shape() {
    let shape = |text: &str| -> BTreeSet<String> {
        let mut paths = BTreeSet::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let document: Value = serde_json::from_str(line).expect("a JSON line");
            let kind = str_field(&document, "type").unwrap_or("?").to_string();
            key_paths(&document, &kind, &mut paths);
        }
        paths
    };
    for (i, newest) in RECORDED[2].run_json.iter().enumerate() {
        for r in &RECORDED {
            assert_eq!(
                shape(r.run_json[i]),
                shape(newest),
                "{} case {i}",
                r.release
            );
        }
    }
}

/// Every key path under `at` in `value` (array items share `[]`).
fn key_paths(value: &Value, at: &str, paths: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                // Response headers are the server's, not opencode's.
                if key != "responseHeaders" {
                    key_paths(item, &format!("{at}/{key}"), paths);
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| key_paths(item, &format!("{at}[]"), paths)),
        _ => {
            paths.insert(at.to_string());
        }
    }
}

/// The TUI takes the flags umbel passes on every release: `-m` (`--model`) and, to resume,
/// `--session` (with `--continue`, which umbel drops).
#[test]
fn every_release_takes_the_flags_umbel_passes() {
    let input = LaunchInput {
        model: Some("anthropic/claude-sonnet-4-5"),
        ..crate::core::test_data::launch_input("/s/sessions/w")
    };
    let mut args = Opencode.launch(&input).expect("launch").args;
    args.extend(Opencode.resume_args(&[], "ses_1"));
    let flags: Vec<&String> = args.iter().filter(|a| a.starts_with('-')).collect();
    assert_eq!(flags, ["-m", "--session"]);
    for r in &RECORDED {
        for option in ["-m, --model", "-s, --session", "-c, --continue"] {
            assert!(r.help.contains(option), "{} has no {option}", r.release);
        }
    }
}
