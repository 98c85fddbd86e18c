//! Headless mode: `fake-gemini -p PROMPT [-o text|json|stream-json]`.
//!
//! One turn from the same scenario without a TUI: the trust and auth checks
//! of the real `-p`, the same hooks (SessionStart, BeforeAgent, tool hooks in
//! yolo mode, AfterAgent, SessionEnd) and the same chat file, then the answer
//! (text), one result object (json) or one event per line (stream-json). No
//! sleeping beyond the scenario's own delays: this is the baseline umbel's
//! print overhead is measured against.

use std::io::Write;
use std::time::{Duration, Instant};

use super::cli::{ApprovalMode, Options, OutputFormat};
use super::home;
use super::output;
use super::session::Session;
use super::tool::HEADLESS_EXCLUDED;
use super::turn::{Done, Event, Turn};
use crate::engine::headless::{self, Played};
use crate::engine::host::Host;
use crate::engine::timeline::Timeline;
use crate::json::Obj;
use crate::scenario::Scenario;
use crate::term::{self, Input};

/// The real message when an untrusted folder meets headless mode (exit 55).
pub const UNTRUSTED: &str = "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode. For more details, see https://geminicli.com/docs/cli/trusted-folders/#headless-and-automated-environments";
/// Printed first when an untrusted folder downgrades `--approval-mode`.
pub const MODE_OVERRIDDEN: &str =
    "Approval mode overridden to \"default\" because the current folder is not trusted.";
/// No prompt at all (exit 42).
pub const NO_INPUT: &str = "No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.";
/// No auth configured (exit 41).
pub const NO_AUTH: &str = "Invalid auth method selected.";

/// Reads piped stdin; an open pipe that stays silent for 500 ms counts as empty.
fn read_stdin() -> Result<String, String> {
    let mut bytes = Vec::new();
    let mut timeout = Some(Duration::from_millis(500));
    loop {
        match term::read_stdin(timeout).map_err(|e| format!("cannot read stdin: {e}"))? {
            Input::Bytes(b) => {
                bytes.extend_from_slice(&b);
                timeout = None;
            }
            Input::Timeout if timeout.is_some() => break,
            Input::Timeout => {}
            Input::Closed => break,
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The prompt: `-p` text appended to piped stdin (`<stdin>\n\n<prompt>`).
fn prompt(opts: &Options) -> Result<String, String> {
    let p = opts
        .prompt
        .clone()
        .or(opts.query.clone())
        .unwrap_or_default();
    if term::stdin_is_tty() {
        return Ok(p);
    }
    let stdin = read_stdin()?;
    Ok(match (stdin.is_empty(), p.is_empty()) {
        (true, _) => p,
        (false, true) => stdin,
        (false, false) => format!("{stdin}\n\n{p}"),
    })
}

/// True when the folder may be used: `--skip-trust`, the env switch, trust
/// checks off in settings, or a trusting rule in `trustedFolders.json`.
pub fn trusted_for_session(
    opts: &Options,
    paths: &home::Paths,
    settings: &home::Settings,
) -> Result<Option<bool>, String> {
    let env = std::env::var("GEMINI_CLI_TRUST_WORKSPACE").is_ok_and(|v| v == "true");
    if opts.skip_trust || env || !settings.folder_trust {
        return Ok(Some(true));
    }
    let folders = home::read_json(&paths.trusted_folders())?;
    Ok(home::is_trusted(&folders, &paths.cwd))
}

/// The auth type in use: settings `security.auth.selectedType`, else an API key in the env.
pub fn auth_type(settings: &home::Settings) -> Option<String> {
    if super::flavor::qwen() {
        return crate::qwen::data::auth_type(settings.auth_type.as_ref());
    }
    settings.auth_type.clone().or_else(|| {
        std::env::var("GEMINI_API_KEY")
            .ok()
            .filter(|k| !k.is_empty())
            .map(|_| "gemini-api-key".to_string())
    })
}

fn emit(out: &mut impl Write, line: &str) {
    let _ = out.write_all(line.as_bytes()).and_then(|()| out.flush());
}

/// Runs headless mode and returns the exit status.
pub fn run(opts: &Options, scenario: Scenario) -> Result<i32, String> {
    let prompt = prompt(opts)?;
    if prompt.is_empty() {
        eprintln!("{NO_INPUT}");
        return Ok(42);
    }
    let paths = home::paths()?;
    let settings = home::load_settings(&paths)?;
    if trusted_for_session(opts, &paths, &settings)? != Some(true) {
        if opts.approval_mode != ApprovalMode::Default {
            eprintln!("{MODE_OVERRIDDEN}");
        }
        eprintln!("{UNTRUSTED}");
        return Ok(55);
    }
    if scenario.startup.sign_in || auth_type(&settings).is_none() {
        eprintln!("{NO_AUTH}");
        return Ok(41);
    }
    let delay = scenario.startup.delay_ms;
    std::thread::sleep(Duration::from_millis(delay));
    let mut sess = Session::open(opts, scenario, paths, settings, true, false)?;
    let excluded = match sess.mode {
        ApprovalMode::Yolo => 0,
        ApprovalMode::AutoEdit => 4,
        _ => HEADLESS_EXCLUDED.len(),
    };
    sess.excluded_tools
        .extend(HEADLESS_EXCLUDED[..excluded].iter().map(|t| t.to_string()));
    sess.skip_startup(delay);
    sess.chat_open();
    let payload = sess.payload_session_start("startup");
    sess.fire("SessionStart", Some("startup"), &payload);
    sess.record_prompt(&prompt);
    let format = opts.output_format;
    let mut stdout = std::io::stdout().lock();
    let started_ms = sess.clock.now_ms();
    if format == OutputFormat::StreamJson {
        let init = output::init(&mut sess);
        let user = output::message(&mut sess, "user", &prompt);
        emit(
            &mut stdout,
            &format!("{}\n{}\n", init.to_line(), user.to_line()),
        );
    }
    let payload = sess.payload_before_agent(&prompt);
    sess.fire("BeforeAgent", None, &payload);
    let mut turn = Turn::new(&mut sess, prompt, Instant::now(), term::DEFAULT_SIZE.0);
    turn.start(&mut sess);
    let each = |turn: &mut Turn, sess: &mut Session| {
        for e in std::mem::take(&mut turn.events) {
            match (format, &e) {
                (OutputFormat::StreamJson, _) => {
                    let line = output::event(sess, &e).to_line();
                    emit(&mut stdout, &format!("{line}\n"));
                }
                (OutputFormat::Text, Event::Delta(text)) => emit(&mut stdout, text),
                _ => {}
            }
        }
        // A failed write stops the run at once, before the turn's end is looked at.
        sess.take_fatal().map_or(Ok(()), Err)
    };
    let sign_in = || {
        eprintln!("{NO_AUTH}");
        41
    };
    let played = headless::play("fake-gemini", &mut turn, &mut sess, each, sign_in)?;
    let Done {
        after_agent,
        late,
        response,
        failure,
    } = match played {
        Played::Done(done) => done,
        Played::Over(code) => return Ok(code),
    };
    if let Some(payload) = &after_agent {
        sess.fire("AfterAgent", None, payload);
    }
    headless::settle(&mut sess, late)?;
    let duration = (sess.clock.now_ms() - started_ms).max(0) as u64;
    match (format, &failure) {
        (OutputFormat::Text, None) if !response.is_empty() => emit(&mut stdout, "\n"),
        (OutputFormat::Json, None) => {
            let o = output::result_json(&sess, &response);
            emit(&mut stdout, &format!("{}\n", output::pretty(&o)));
        }
        (OutputFormat::StreamJson, f) => {
            let o = output::result_event(&mut sess, duration, f.as_ref());
            emit(&mut stdout, &format!("{}\n", o.to_line()));
        }
        _ => {}
    }
    if let Some(f) = &failure {
        eprintln!("{}", report_line(&sess));
        match format {
            OutputFormat::Json => eprintln!("{}", output::pretty(&output::error_json(&sess, f))),
            _ => eprintln!("[API Error: {}]", f.raw),
        }
    }
    let payload: Obj = sess.payload_session_end("exit");
    sess.fire("SessionEnd", Some("exit"), &payload);
    Ok(match failure {
        // The real CLI exits with the HTTP status (process.exit(400) → 144).
        Some(f) => match i32::from(f.status) % 256 {
            0 => 1,
            n => n,
        },
        None => 0,
    })
}

fn report_line(sess: &Session) -> String {
    let stamp = sess.clock.iso().replace(':', "-");
    format!(
        "Error when talking to Gemini API Full report available at: {}/gemini-client-error-Turn.run-sendMessageStream-{stamp}.json",
        std::env::temp_dir().display()
    )
}
