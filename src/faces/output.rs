//! Writing to stdout/stderr the way a well-behaved CLI does: a closed pipe (`umbel ls | head`)
//! ends quietly instead of failing, and errors read `umbel: <message>`.

use crate::core::errors::Error;
use crate::core::outcome::{Outcome, OutcomeKind};
use std::io::Write;

/// Prints `text` to stdout. A broken pipe (`umbel ls | head`) is ignored; any other failure (a
/// full disk under `umbel read w > file`) is kept for [`stdout_failure`], so the command does
/// not exit 0 with its output cut short.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
        && let Ok(mut first) = STDOUT_FAILURE.lock()
    {
        first.get_or_insert_with(|| e.to_string());
    }
}

/// The first write to stdout that failed (but for a broken pipe), as a message.
static STDOUT_FAILURE: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Why the output could not all be written, if it could not.
pub fn stdout_failure() -> Option<String> {
    STDOUT_FAILURE.lock().ok()?.clone()
}

/// Prints `text` and a newline to stdout.
pub fn outln(text: &str) {
    out(&format!("{text}\n"));
}

/// Prints a JSON value on one line.
pub fn out_json<T: serde::Serialize>(value: &T) {
    match serde_json::to_string(value) {
        Ok(text) => outln(&text),
        Err(e) => errln!("umbel: cannot encode JSON output: {e} (this is a bug in umbel)"),
    }
}

/// Reports an error on stderr (and as JSON on stdout when asked) and returns its exit code.
pub fn report(err: &Error, json: bool) -> u8 {
    // A workflow error lists one problem per line, each as `file:line:col: message`.
    for line in err.to_string().lines() {
        errln!("umbel: {line}");
    }
    if let Some(screen) = err.screen() {
        errln!("umbel: the last screen was:\n{screen}");
    }
    if json {
        out_json(&super::error_json::ErrorReply::of(err));
    }
    err.exit_code()
}

/// Explains on stderr a wait that did not end in `stop`: the message, what the last guardrail
/// check said (`rejected`), the last screen (`dead`, `timeout`, …). Silent for `stop`.
pub fn explain_outcome(who: &str, outcome: &Outcome) {
    if outcome.outcome == OutcomeKind::Stop {
        return;
    }
    errln!("umbel: {who}: {}", outcome.message);
    if let Some(check) = outcome.check.as_ref().filter(|c| !c.accepted) {
        let status = check
            .exit_code
            .map_or(String::new(), |c| format!(" (exit status {c})"));
        match check.output.trim_end() {
            "" => errln!("umbel: the last check{status} printed nothing"),
            said => errln!("umbel: the last check{status} said:\n{said}"),
        }
    }
    if let Some(screen) = &outcome.screen {
        errln!("umbel: the last screen was:\n{screen}");
    }
}

/// Hands stdout's end to whoever reads it: flushes it, then points file descriptor 1 at
/// `/dev/null`, so a reader of a pipe sees the end of the answer while umbel still tears its
/// worker down (stderr stays open for what that reports).
pub fn release_stdout() {
    let _ = std::io::stdout().lock().flush();
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = rustix::stdio::dup2_stdout(&null);
    }
}
