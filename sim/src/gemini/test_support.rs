//! Helpers for fake-gemini's unit tests: fixture data, the field-set check,
//! sessions in temp dirs, and running a turn to its end without a terminal.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::session::Session;
use super::turn::{Outcome, Turn};
use crate::engine::timeline::Timeline;
use crate::fixtures;
pub use crate::fixtures::assert_fields;
use crate::keys::Key;
use crate::scenario::Scenario;

pub const SID: &str = "ad4e62a5-114c-4e13-a125-f47c5ca0904d";

pub fn data(name: &str) -> String {
    fixtures::text(&format!("gemini-0.61.0-{name}"))
}

pub fn lines(name: &str) -> Vec<Value> {
    fixtures::jsonl(&format!("gemini-0.61.0-{name}"))
}

pub fn root(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sim-gemini-fx-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A test session whose home directory is removed when it is dropped.
pub struct Fx(pub Session);

impl std::ops::Deref for Fx {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.0
    }
}

impl std::ops::DerefMut for Fx {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.0
    }
}

impl Drop for Fx {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0.paths.home);
    }
}

pub fn session(name: &str, scenario: &str, interactive: bool) -> Fx {
    Fx(Session::for_test(
        &root(name),
        SID,
        Scenario::parse(scenario).unwrap(),
        interactive,
    ))
}

/// Runs one turn to its end, answering a confirmation with `1`.
pub fn turn(sess: &mut Session, prompt: &str) -> Outcome {
    let later = Instant::now() + Duration::from_secs(3600);
    let mut t = Turn::new(sess, prompt.to_string(), Instant::now(), 120);
    let _ = sess.payload_before_agent(prompt);
    t.start(sess);
    for _ in 0..100 {
        if let Some(o) = t.tick(sess, later) {
            return o;
        }
        if t.core.deadline().is_none() {
            t.after_draw(sess);
            if let Some(o) = t.key(sess, &Key::Text("1".into()), later) {
                return o;
            }
        }
    }
    panic!("turn did not end");
}

pub fn chat(sess: &Session) -> Vec<Value> {
    std::fs::read_to_string(&sess.chat_path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub const TOOL: &str = r#"{"turns":[{"reply":"Done.","end":{"permission":{"tool":"Bash","input":{"command":"echo hi","description":"Print a greeting"}}}},
    {"end":{"api_error":{"status":400,"message":"fake bad request for probing"}}}]}"#;
