//! How the CLI prints the verbs whose text output is one value — `kill`, `capture`, `logs` —
//! as text or, with `--json`, as the objects docs/json.md documents (`faces::json_schema`).

use super::json_schema::{Killed, LogLine, Screen};
use super::output::{out_json, outln};
use crate::core::events::{UNREADABLE, parse_log};

/// `kill`: `killed NAME` per worker (`purged` with `--purge`), or `{killed, purged}`.
pub fn print_killed(killed: Vec<String>, kept: Vec<String>, purged: bool, json: bool) {
    if killed.is_empty() {
        errln!("umbel: no workers to kill");
    }
    if json {
        return out_json(&Killed {
            killed,
            purged,
            kept,
        });
    }
    for name in &killed {
        match (purged, kept.contains(name)) {
            (true, true) => outln(&format!(
                "killed {name} (its folder was kept: see the warning)"
            )),
            (true, false) => outln(&format!("purged {name}")),
            (false, _) => outln(&format!("killed {name}")),
        }
    }
}

/// `capture`: the screen, or `{screen}`.
pub fn print_screen(screen: String, json: bool) {
    if json {
        out_json(&Screen { screen })
    } else {
        outln(&screen)
    }
}

/// `logs`: one line per event, or one object per line (JSON Lines, also with `-f`);
/// `position` is the line's index (the lines come in order from the first).
pub fn print_log_line(position: usize, line: &str, json: bool) {
    if !json {
        return outln(line);
    }
    let record = parse_log(line.as_bytes()).pop();
    out_json(&LogLine {
        position,
        at_ms: record.as_ref().map_or(0, |r| {
            u64::try_from(r.at_ns / 1_000_000).unwrap_or(u64::MAX)
        }),
        event: record
            .as_ref()
            .map_or(UNREADABLE.to_string(), |r| r.kind.clone()),
        payload: record.and_then(|r| r.payload),
        line: line.to_string(),
    })
}
