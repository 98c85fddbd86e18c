//! Progress on stderr for `-p` and `wait`: one line redrawn in place on a terminal (a pty
//! here), and not a byte when stderr is a pipe or `UMBEL_PROGRESS=off`.

use crate::harness::*;
use rexpect::session::spawn_command;
use serde_json::json;

/// A claude whose reply to "slow" takes a while, so the progress line has time to draw.
fn slow(sb: &Sandbox) -> String {
    sb.scenario(
        "slow",
        json!({ "turns": [ { "match": "slow", "reply": "done slowly", "delay_ms": 3000 } ] }),
    )
}

#[test]
fn print_mode_on_a_terminal_shows_progress_then_erases_it() {
    let sb = Sandbox::new();
    // A claude slow to start too: on a quiet machine the fake is ready and has the prompt
    // before the first redraw (100 ms), and the start would draw no line of its own.
    let scenario = sb.scenario(
        "slow-start",
        json!({ "startup": { "delay_ms": 600 },
                "turns": [ { "match": "slow", "reply": "done slowly", "delay_ms": 3000 } ] }),
    );
    let cmd = sb.pty_command(&["-p", "slow", "--env", &scenario]);
    let mut pty = spawn_command(cmd, Some(60_000)).expect("spawn umbel in a pty");
    // Coloured on a terminal: the phase in yellow, then the elapsed time.
    pty.exp_regex(r"claude: \x1b\[33m(starting|submitting)\x1b\[0m \d+\.\ds")
        .expect("a progress line while the worker starts");
    pty.exp_string("claude: \x1b[33mworking")
        .expect("the working phase");
    let rest = pty.exp_string("done slowly").expect("the answer");
    assert!(
        rest.contains("\r\x1b[2K"),
        "the line is redrawn in place: {rest:?}"
    );
    pty.exp_eof().expect("umbel ends");
}

#[test]
fn wait_on_a_terminal_shows_the_phase_and_no_colour_with_no_color() {
    let mut sb = Sandbox::new();
    let scenario = slow(&sb);
    sb.spawn("p1", &["--env", &scenario]);
    sb.umbel(["send", "p1", "slow"]).success();
    sb.var("NO_COLOR", "1");
    let mut pty = spawn_command(sb.pty_command(&["wait", "p1"]), Some(60_000)).expect("pty");
    let before = pty.exp_string("p1: working").expect("the working phase");
    pty.exp_string("stop").expect("the outcome");
    pty.exp_eof().expect("umbel ends");
    assert!(
        !before.contains("\x1b[3"),
        "NO_COLOR: no colour codes: {before:?}"
    );
}

/// A wait for a pattern on an idle worker: nothing was submitted, and the line says it waits.
#[test]
fn wait_for_a_pattern_on_an_idle_worker_says_waiting_not_submitted() {
    let mut sb = Sandbox::new();
    sb.spawn("i1", &[]);
    sb.turn("i1", "hello").success();
    sb.var("NO_COLOR", "1");
    let cmd = sb.pty_command(&["wait", "i1", "--pattern", "NEVER SHOWN", "--timeout", "2s"]);
    let mut pty = spawn_command(cmd, Some(60_000)).expect("pty");
    let before = pty.exp_string("timeout").expect("the outcome");
    pty.exp_eof().expect("umbel ends");
    assert!(before.contains("i1: waiting"), "{before:?}");
    assert!(!before.contains("submitted"), "{before:?}");
}

#[test]
fn progress_off_on_a_terminal_draws_nothing() {
    let mut sb = Sandbox::new();
    let scenario = slow(&sb);
    sb.var("UMBEL_PROGRESS", "off");
    let cmd = sb.pty_command(&["-p", "slow", "--env", &scenario]);
    let mut pty = spawn_command(cmd, Some(60_000)).expect("pty");
    let before = pty.exp_string("done slowly").expect("the answer");
    assert!(!before.contains("claude:"), "no progress: {before:?}");
    assert!(!before.contains('\x1b'), "no escape codes: {before:?}");
    pty.exp_eof().expect("umbel ends");
}

#[test]
fn print_mode_and_wait_keep_a_piped_stderr_clean() {
    let sb = Sandbox::new();
    let scenario = slow(&sb);
    let out = sb
        .umbel(["-p", "slow", "--env", &scenario])
        .stdout("done slowly\n")
        .success();
    assert_eq!(out.stderr(), "", "nothing on a piped stderr");

    sb.spawn("q1", &["--env", &scenario]);
    let waited = sb.turn("q1", "slow").success();
    assert_eq!(waited.stderr(), "");
}

#[test]
fn the_line_shows_the_output_tokens_the_transcript_records() {
    // The fake writes its preamble (with usage) before the tool runs and the reply streams, so
    // the token count is on screen for a while. (The tool phase itself is too short to catch
    // here; core::turn_progress tests it.)
    let sb = Sandbox::new();
    let scenario = sb.scenario(
        "tool",
        json!({ "turns": [ {
            "match": "tool",
            "reply": "The command printed hi, and that is all there is to say about it.",
            "delay_ms": 1500,
            "chunk_ms": 200,
            "end": { "permission": { "tool": "Bash", "input": { "command": "echo hi" } } }
        } ] }),
    );
    let cmd = sb.pty_command(&["-p", "run the tool", "--unattended", "--env", &scenario]);
    let mut pty = spawn_command(cmd, Some(60_000)).expect("pty");
    let seen = pty.exp_string("that is all").expect("the answer");
    pty.exp_eof().expect("umbel ends");
    assert!(
        regex::Regex::new(r"\d+ tokens").unwrap().is_match(&seen),
        "{seen:?}"
    );
}
