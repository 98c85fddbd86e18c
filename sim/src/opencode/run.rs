//! `opencode run`: one turn without the TUI, printed as 1.18.33 prints it
//! (`tests/data/opencode/1.18.33/opencode-1.18.33-run-*`): the answer's text (default format),
//! or with `--format json` one line per finished part — `step_start`, `text`, `tool_use`,
//! `step_finish` — or `error`, each `{"type","timestamp","sessionID","part"|"error"}`.
//!
//! Piped stdin follows the message after one newline (run.ts: `message += "\n" + stdin`).
//! Nobody can answer a permission question here: a tool the rules would ask about is refused
//! (`--auto` allows every one).

use std::io::Read;
use std::time::Instant;

use serde_json::{Value, json};

use super::cli::Options;
use super::session::Session;
use super::turn::Turn;
use crate::engine::headless::{self, Played};
use crate::engine::host::Host;
use crate::engine::timeline::Timeline;

/// The message: the arguments', then piped stdin after a newline.
fn message(opts: &Options) -> Result<String, String> {
    let mut message = opts.message.clone().unwrap_or_default();
    if !crate::term::stdin_is_tty() {
        let mut piped = String::new();
        std::io::stdin()
            .read_to_string(&mut piped)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        if !piped.is_empty() {
            message = match message.is_empty() {
                true => piped,
                false => format!("{message}\n{piped}"),
            };
        }
    }
    Ok(message)
}

/// Plays the turn and prints it; the exit status.
pub fn run(opts: &Options, mut sess: Session) -> Result<i32, String> {
    let message = message(opts)?;
    if message.trim().is_empty() {
        eprintln!("Error: You must provide a message or a command");
        return Ok(1);
    }
    sess.published = Some(Vec::new());
    sess.load_plugins();
    sess.record_prompt(&message);
    let mut turn = Turn::new(&mut sess, message, Instant::now(), false, opts.auto);
    turn.start(&mut sess);
    let played = headless::play("fake-opencode", &mut turn, &mut sess, |_, _| Ok(()), || 1)?;
    let done = match played {
        Played::Done(done) => done,
        Played::Over(code) => return Ok(code),
    };
    for (kind, properties) in done.events {
        sess.publish(kind, properties);
    }
    headless::settle(&mut sess, done.late)?;
    let published = sess.published.take().unwrap_or_default();
    let lines = printed(&published);
    match opts.json {
        true => lines.iter().for_each(|l| println!("{l}")),
        false => print_text(&lines),
    }
    Ok(i32::from(done.error.is_some()))
}

/// The default format: each text part's text; an error's message on stderr.
fn print_text(lines: &[Value]) {
    for line in lines {
        match line["type"].as_str() {
            Some("text") => println!(
                "{}",
                line.pointer("/part/text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            ),
            Some("error") => {
                let message = line.pointer("/error/data/message").and_then(Value::as_str);
                eprintln!("Error: {}", message.unwrap_or("unknown error"));
            }
            _ => {}
        }
    }
}

/// What `run --format json` prints for the published events `(ms, event)`.
pub fn printed(published: &[(i64, Value)]) -> Vec<Value> {
    published
        .iter()
        .filter_map(|(ms, e)| line(*ms, e))
        .collect()
}

/// The line for one event, if it prints one.
fn line(ms: i64, event: &Value) -> Option<Value> {
    let p = &event["properties"];
    let session = p.get("sessionID").cloned().unwrap_or(Value::Null);
    match event["type"].as_str()? {
        "session.error" => Some(
            json!({ "type": "error", "timestamp": ms, "sessionID": session,
            "error": p["error"] }),
        ),
        "message.part.updated" => {
            let part = &p["part"];
            let kind = match part["type"].as_str()? {
                "step-start" => "step_start",
                "step-finish" => "step_finish",
                "text" if part.pointer("/time/end").is_some() => "text",
                "tool"
                    if matches!(
                        part.pointer("/state/status").and_then(Value::as_str),
                        Some("completed" | "error")
                    ) =>
                {
                    "tool_use"
                }
                _ => return None,
            };
            Some(json!({ "type": kind, "timestamp": ms, "sessionID": session, "part": part }))
        }
        _ => None,
    }
}
