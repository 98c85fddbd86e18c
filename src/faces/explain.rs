//! How `umbel explain` reads on a terminal: the evidence in labelled blocks, for a person
//! debugging a stuck worker (or reporting a new release's screen). `--json` prints the
//! [`Explanation`] itself.

use super::output::{out, out_json};
use crate::core::explain::{ExplainedEvent, Explanation, ScreenEvidence, TranscriptEvidence};
use crate::core::providers::why::ScreenLine;
use std::fmt::Write;

/// `explain`: the text, or the JSON.
pub fn print(found: &Explanation, json: bool) {
    if json {
        out_json(found)
    } else {
        out(&render(found))
    }
}

/// One line for hosts that show only text (MCP): the state and the next move.
pub fn summary(found: &Explanation) -> String {
    let subject = match (&found.name, found.state) {
        (Some(name), Some(state)) => format!("`{name}` is {}", word(found, state)),
        _ => match &found.screen {
            Some(screen) => format!("the screen reads as {}", screen.rule),
            None => "nothing to explain".to_string(),
        },
    };
    format!(
        "{subject}; next: {} ({})",
        found.next.action.as_str(),
        found.next.why
    )
}

/// The state in the words `ls` and `top` use (status's word from an older host).
fn word(found: &Explanation, state: crate::core::status::WorkerState) -> &str {
    found.shown.as_deref().unwrap_or(state.as_str())
}

/// The whole explanation as text.
pub fn render(found: &Explanation) -> String {
    let mut text = String::new();
    let t = &mut text;
    if let Some(name) = &found.name {
        let host = found
            .host
            .as_ref()
            .map_or(String::new(), |h| format!(" on {h}"));
        line(t, "worker", &format!("{name}{host}"));
    }
    line(t, "cli", &cli(found));
    if let Some(bin) = &found.cli.bin {
        line(t, "", &format!("binary: {bin}"));
    }
    if let Some(state) = found.state {
        let why = found
            .needs_input
            .as_ref()
            .map_or(String::new(), |r| format!(" ({r})"));
        let json = match word(found, state) {
            word if word == state.as_str() => String::new(),
            _ => format!(" (`{}` in --json)", state.as_str()),
        };
        line(t, "state", &format!("{}{why}{json}", word(found, state)));
        for step in &found.derivation {
            line(t, "", step);
        }
    }
    if let Some(tool) = &found.pending_tool {
        line(t, "tool", &tool.to_string());
    }
    if let Some(exit) = &found.exit {
        line(t, "exit", &format!("the CLI {}", exit.describe()));
    }
    line(
        t,
        "next",
        &format!("{}: {}", found.next.action.as_str(), found.next.why),
    );
    events(t, found);
    if let Some(transcript) = &found.transcript {
        transcript_block(t, transcript);
    }
    if let Some(screen) = &found.screen {
        screen_block(t, screen);
    }
    text
}

fn cli(found: &Explanation) -> String {
    let cli = &found.cli;
    let mut said = cli.provider.clone();
    if let Some(version) = &cli.version {
        said.push_str(&format!(" {version}"));
    }
    if let Some(note) = &cli.support_note {
        said.push_str(&format!(": {note}"));
    }
    said
}

fn events(t: &mut String, found: &Explanation) {
    if found.events.is_empty() {
        if found.name.is_some() {
            line(t, "events", "none yet");
        }
        return;
    }
    let position = found
        .position
        .map_or(String::new(), |p| format!(" (log position {p})"));
    line(
        t,
        "events",
        &format!("the last {}, oldest first{position}", found.events.len()),
    );
    let width = found
        .events
        .iter()
        .map(|e| e.event.chars().count())
        .max()
        .unwrap_or(0);
    for event in &found.events {
        let _ = writeln!(t, "  {}", event_line(event, width));
    }
}

fn event_line(event: &ExplainedEvent, width: usize) -> String {
    let mut meaning = event.meaning.as_str().to_string();
    if let Some(reason) = &event.reason {
        meaning.push_str(&format!(" ({reason})"));
    }
    if let Some(tool) = &event.tool {
        let name = tool.get("name").and_then(|n| n.as_str());
        meaning.push_str(&format!(
            " {}",
            name.map_or(tool.to_string(), str::to_string)
        ));
    }
    format!(
        "#{:<3} {}  {:<width$}  {meaning}",
        event.position,
        clock(event.at_ms),
        event.event
    )
}

/// `HH:MM:SS.mmm` UTC of a time in milliseconds since the epoch.
fn clock(at_ms: u64) -> String {
    let day = at_ms % 86_400_000;
    let (h, m, s, ms) = (
        day / 3_600_000,
        day / 60_000 % 60,
        day / 1000 % 60,
        day % 1000,
    );
    format!("{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

fn transcript_block(t: &mut String, found: &TranscriptEvidence) {
    line(t, "transcript", &found.path);
    if let Some(record) = &found.record {
        let error = record
            .error
            .as_ref()
            .map_or(String::new(), |e| format!(", failed: {e}"));
        let bound = match record.bounds {
            crate::core::explain::Bound::Ended => "ended the last turn",
            crate::core::explain::Bound::Opened => "opened the last turn (no end yet)",
        };
        line(
            t,
            "",
            &format!(
                "{} {bound}{error}, line {} from the end: {}",
                record.kind, record.line_from_end, record.excerpt
            ),
        );
    }
    if let Some(problem) = &found.problem {
        line(t, "", problem);
    }
}

fn screen_block(t: &mut String, screen: &ScreenEvidence) {
    let from = match screen.source.as_str() {
        "pane" => "its pane, now",
        "kept" => "the last screen, kept when it died",
        _ => "the file",
    };
    line(t, "screen", &format!("{} (from {from})", screen.rule));
    if let Some(what) = &screen.what {
        line(t, "", &format!("what: {what}"));
    }
    for (label, found) in [
        ("decided by", &screen.line),
        ("input line", &screen.input_line),
        ("busy", &screen.busy_line),
    ] {
        if let Some(l) = found {
            line(t, "", &format!("{label}: {}", row(l)));
        }
    }
    if screen.pending_input {
        line(t, "", "the input line holds text that was not submitted");
    }
    if let Some(reason) = &screen.needs_input {
        line(
            t,
            "",
            &format!("over a live worker, status reads it as needs-input ({reason})"),
        );
    }
}

fn row(l: &ScreenLine) -> String {
    format!("row {}: {}", l.row, l.text)
}

fn line(t: &mut String, label: &str, text: &str) {
    let _ = writeln!(t, "{label:<11}{text}");
}
