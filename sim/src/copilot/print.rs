//! `copilot -p PROMPT` (or a prompt on stdin): one turn without a TUI, as 1.0.102 runs it
//! (recorded: `print-*` in `tests/data/copilot/1.0.102/`).
//!
//! Hooks: `SessionStart`, `UserPromptSubmit`, the tool hooks, `Stop`, `SessionEnd`
//! (`complete`); the session log as in the TUI. Output:
//!
//! - text: the answer and a blank line on stdout; on stderr a blank line, then the stats
//!   (`Changes`, `Duration`, `Tokens ↑ in • ↓ out`, `Resume copilot --resume=<id>`); an API
//!   error puts `<status> <message>` before them instead of an answer and exits 1;
//! - `-s`: the answer alone (stats and error block left out: not recorded);
//! - `--output-format json`: the events as JSONL while they happen (the persisted kinds of
//!   [`super::log::ECHOED`] and the ephemeral ones), then a `result` line with `exitCode`.
//!
//! Without a sign-in it prints copilot's error (`print-not-signed-in-stderr.txt`) and exits 1.
//! A tool the model asks for runs only with `--allow-all-tools` (`--allow-all`, `--yolo`);
//! without it the call is refused and the model answers (not recorded).

use std::io::Write;
use std::time::{Duration, Instant};

use super::cli::Options;
use super::ephemeral;
use super::home::Auth;
use super::session::Session;
use super::turn::{Done, Turn};
use crate::engine::headless::{self, Played};
use crate::engine::host::Host;
use crate::engine::timeline::Timeline;
use crate::obj;
use crate::scenario::Scenario;

/// What `-p` says without a sign-in (recorded, exit 1).
pub const NOT_SIGNED_IN: &str = "Error: No authentication information found.\n\nCopilot can be authenticated with GitHub using an OAuth Token or a Fine-Grained Personal Access Token.\n\nTo authenticate, you can use any of the following methods:\n  • Start 'copilot' and run the '/login' command\n  • Set the COPILOT_GITHUB_TOKEN, GH_TOKEN, or GITHUB_TOKEN environment variable\n  • Run 'gh auth login' to authenticate with the GitHub CLI\n";

/// Writes `text` to stdout now.
fn out(text: &str) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| format!("cannot write to stdout: {e}"))
}

/// Prints the events made since the last look (`--output-format json`).
fn echo(sess: &mut Session) -> Result<(), String> {
    let lines: String = sess
        .log
        .take_echo()
        .iter()
        .map(|e| e.to_line() + "\n")
        .collect();
    out(&lines)
}

/// A virtual duration as the stats show it: `12s`, `1m 5s`.
fn duration(ms: i64) -> String {
    let secs = ms.max(0) / 1000;
    match secs {
        0..60 => format!("{secs}s"),
        _ => format!("{}m {}s", secs / 60, secs % 60),
    }
}

/// The stats block on stderr.
fn stats(sess: &Session, ms: i64) -> String {
    let mut text = format!("\nChanges    +0 -0\nDuration   {}\n", duration(ms));
    let t = &sess.totals;
    if t.input + t.output > 0 {
        text += &format!("Tokens     ↑ {} • ↓ {}\n", t.input, t.output);
    }
    text + &format!("Resume     copilot --resume={}\n", sess.who.id)
}

/// The `result` line of `--output-format json`.
fn result_line(sess: &Session, code: i32, ms: i64) -> String {
    let changes = obj! { "linesAdded" => 0u64, "linesRemoved" => 0u64, "filesModified" => Vec::<String>::new() };
    let usage = obj! {
        "premiumRequests" => 0u64, "totalApiDurationMs" => sess.totals.api_ms,
        "sessionDurationMs" => ms.max(0), "codeChanges" => changes,
    };
    let line = obj! {
        "type" => "result", "timestamp" => sess.clock.iso(), "sessionId" => sess.who.id.as_str(),
        "exitCode" => code, "usage" => usage,
    };
    line.to_line() + "\n"
}

/// Runs `-p` on `prompt`; returns the exit status.
pub fn run(opts: &Options, scenario: Scenario, prompt: String) -> Result<i32, String> {
    if !Auth::from_env().signed_in() || scenario.startup.sign_in {
        eprint!("{NOT_SIGNED_IN}");
        return Ok(1);
    }
    let delay = scenario.startup.delay_ms;
    let mut sess = Session::open(opts, scenario, false)?;
    if opts.json {
        sess.log.echo = Some(Vec::new());
    }
    std::thread::sleep(Duration::from_millis(delay));
    sess.clock.advance(delay);
    let started = sess.clock.now_ms();
    let data = ephemeral::skills_loaded(&sess.who);
    sess.ephemeral("session.skills_loaded", data);
    sess.ephemeral(
        "session.mcp_servers_loaded",
        ephemeral::mcp_servers_loaded(),
    );
    sess.ephemeral("session.tools_updated", ephemeral::tools_updated(&sess.who));
    sess.record_prompt(&prompt);
    let mut turn = Turn::new(&mut sess, prompt, Instant::now());
    turn.start(&mut sess);
    let each = |t: &mut Turn, s: &mut Session| {
        t.flush_deltas(s);
        echo(s)
    };
    let sign_in = || {
        eprint!("{NOT_SIGNED_IN}");
        1
    };
    let mut done = match headless::play("fake-copilot", &mut turn, &mut sess, each, sign_in)? {
        Played::Done(done) => done,
        Played::Over(code) => return Ok(code),
    };
    if done.stop {
        sess.stop();
    }
    headless::settle(&mut sess, done.late.take())?;
    sess.ephemeral("assistant.idle", ephemeral::idle());
    sess.end("complete");
    let ms = sess.clock.now_ms() - started;
    report(opts, &mut sess, &done, ms)
}

/// Prints what the run gives (text, `-s` or JSON) and returns the exit status.
fn report(opts: &Options, sess: &mut Session, done: &Done, ms: i64) -> Result<i32, String> {
    let code = i32::from(done.error.is_some());
    if opts.json {
        echo(sess)?;
        out(&result_line(sess, code, ms))?;
    } else if opts.silent {
        if done.error.is_none() {
            out(&format!("{}\n", done.text))?;
        }
    } else {
        match &done.error {
            Some(e) => eprint!("\n{e}\n\n{}", stats(sess, ms)),
            None => {
                out(&format!("{}\n\n", done.text))?;
                eprint!("\n{}", stats(sess, ms));
            }
        }
    }
    sess.take_fatal().map_or(Ok(code), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_copilot_prints_them() {
        assert_eq!(duration(999), "0s");
        assert_eq!(duration(12_000), "12s");
        assert_eq!(duration(65_000), "1m 5s");
    }
}
