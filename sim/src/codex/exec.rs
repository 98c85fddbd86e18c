//! `fake-codex exec [--json] [PROMPT|-]`: one turn, no TUI.
//!
//! Plain: the final message alone on stdout; the header block, the prompt,
//! `hook: <Event>` / `hook: <Event> Completed` lines and the token count on
//! stderr. `--json`: JSONL events like `codex-0.171.0-exec-json-*.jsonl`.
//! The rollout and hooks are the TUI's (SessionStart first, SessionEnd last).
//! No sleeping beyond the scenario's own delays: this is a benchmark baseline.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use super::cli::Options;
use super::config;
use super::session::{Session, Usage};
use super::turn::{Done, Turn};
use crate::engine::headless::{self, Played};
use crate::engine::host::Host;
use crate::engine::timeline::Timeline;
use crate::json::Obj;
use crate::obj;

/// What `exec` prints (exit 1) without a signed-in session.
const NOT_SIGNED_IN: &str = "Not signed in. Run `codex login` to sign in, or set OPENAI_API_KEY.";

fn emit(line: &Obj) {
    let mut out = std::io::stdout().lock();
    let _ = out
        .write_all(format!("{}\n", line.to_line()).as_bytes())
        .and_then(|()| out.flush());
}

/// `{"type":"thread.started","thread_id":…}`.
pub fn thread_started(id: &str) -> Obj {
    obj! { "type" => "thread.started", "thread_id" => id }
}

/// `{"type":"turn.started"}`.
pub fn turn_started() -> Obj {
    obj! { "type" => "turn.started" }
}

/// `{"type":"turn.completed","usage":{…}}` (no `total_tokens`, as recorded).
pub fn turn_completed(usage: Usage) -> Obj {
    obj! { "type" => "turn.completed", "usage" => usage.obj(false) }
}

/// `{"type":"turn.failed","error":{"message":…}}`.
pub fn turn_failed(message: &str) -> Obj {
    obj! { "type" => "turn.failed", "error" => obj! { "message" => message } }
}

fn read_stdin() -> Result<String, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The prompt from argv and/or stdin, or the message to fail with.
fn prompt(opts: &Options) -> Result<Result<String, &'static str>, String> {
    let piped = !crate::term::stdin_is_tty();
    match opts.prompt.as_deref() {
        Some(p) if p != "-" => {
            if !piped {
                return Ok(Ok(p.to_string()));
            }
            eprintln!("Reading additional input from stdin...");
            let extra = read_stdin()?;
            if extra.trim().is_empty() {
                return Ok(Ok(p.to_string()));
            }
            Ok(Ok(format!(
                "{p}\n\n<stdin>\n{}\n</stdin>",
                extra.trim_end()
            )))
        }
        None if !piped => Ok(Err(
            "No prompt provided. Either specify one as an argument or pipe the prompt into stdin.",
        )),
        _ => {
            eprintln!("Reading prompt from stdin...");
            let text = read_stdin()?;
            if text.trim().is_empty() {
                return Ok(Err("No prompt provided via stdin."));
            }
            Ok(Ok(text))
        }
    }
}

fn header(sess: &Session, prompt: &str) {
    let sandbox = if sess.bypass_approvals {
        "danger-full-access".to_string()
    } else {
        "workspace-write [workdir, /tmp, $TMPDIR]".to_string()
    };
    eprintln!(
        "OpenAI Codex v{} (research preview)\n--------\nworkdir: {}\nmodel: {}\nprovider: openai\napproval: never\nsandbox: {sandbox}\nreasoning effort: medium\nreasoning summaries: auto\nsession id: {}\n--------\nuser\n{prompt}\n",
        super::release::current().version,
        sess.cwd,
        sess.model.id,
        sess.id
    );
}

/// Runs `exec` and returns the exit status.
pub fn run(opts: &Options, mut sess: Session) -> Result<i32, String> {
    let prompt = match prompt(opts)? {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("{msg}");
            return Ok(1);
        }
    };
    let startup = sess.script.scenario.startup.clone();
    if startup.sign_in {
        eprintln!("{NOT_SIGNED_IN}");
        return Ok(1);
    }
    let in_repo = config::git_root(&sess.cwd_path).is_some();
    if !opts.skip_git_repo_check && !in_repo && !sess.config.trusted(&sess.cwd_path) {
        eprintln!("Not inside a trusted directory and --skip-git-repo-check was not specified.");
        return Ok(1);
    }
    let bypass = opts.bypass_hook_trust;
    let on = sess.config.hooks_enabled();
    sess.hooks = sess.hook_file.to_hooks(|e| on && (bypass || e.trusted));
    std::thread::sleep(Duration::from_millis(startup.delay_ms));
    if opts.json {
        emit(&thread_started(&sess.id));
    } else {
        header(&sess, &prompt);
    }
    sess.record_prompt(&prompt);
    let mut turn = Turn::new(&mut sess, prompt, Instant::now(), 120);
    turn.start(&mut sess);
    if opts.json {
        emit(&turn_started());
    }
    let json = opts.json;
    let each = |turn: &mut Turn, _: &mut Session| {
        if json {
            turn.events.drain(..).for_each(|e| emit(&e));
        }
        Ok(())
    };
    let sign_in = || {
        eprintln!("{NOT_SIGNED_IN}");
        1
    };
    let Done {
        hook,
        late,
        text,
        error,
    } = match headless::play("fake-codex", &mut turn, &mut sess, each, sign_in)? {
        Played::Done(done) => done,
        Played::Over(code) => return Ok(code),
    };
    if let Some(h) = hook {
        sess.fire(h.event, None, &h.payload);
    }
    headless::settle(&mut sess, late)?;
    let total = sess.thread_usage.input + sess.thread_usage.output;
    match (&error, opts.json) {
        (Some(message), true) => {
            emit(&turn_failed(message));
        }
        (Some(message), false) => eprintln!("ERROR: {message}"),
        (None, true) => emit(&turn_completed(sess.thread_usage)),
        (None, false) => {
            eprintln!(
                "codex\n{text}\ntokens used\n{}",
                super::screens::thousands(total)
            );
            let mut out = std::io::stdout().lock();
            let _ = out
                .write_all(format!("{text}\n").as_bytes())
                .and_then(|()| out.flush());
        }
    }
    if let Some(path) = &opts.output_last_message
        && let Err(e) = std::fs::write(path, &text)
    {
        eprintln!("Failed to write last message file {path}: {e}");
    }
    let payload = sess.payload_session_end("other");
    sess.fire("SessionEnd", None, &payload);
    Ok(if error.is_some() { 1 } else { 0 })
}
