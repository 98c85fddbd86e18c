//! Print mode: `fake-claude -p [PROMPT] [--output-format text|json]`.
//!
//! Runs one turn from the same scenario without a TUI, writes the transcript
//! and fires hooks like the real `-p`, then prints the reply (text) or one
//! result object (json). No sleeping beyond the scenario's own delays: this is
//! the baseline umbel's `-p` overhead is measured against.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use super::cli::{Options, OutputFormat};
use super::session::Session;
use super::transcript::{api_error_type, usage};
use super::turn::{Done, Turn};
use crate::engine::headless::{self, Played};
use crate::engine::host::Host;
use crate::engine::timeline::Timeline;
use crate::json::Obj;
use crate::obj;
use crate::scenario::Scenario;

/// What `-p` prints (exit 1) without a signed-in session.
const NOT_SIGNED_IN: &str = "Invalid API key · Please run /login";

/// Runs print mode and returns the exit status.
pub fn run(opts: &Options, scenario: Scenario) -> Result<i32, String> {
    let prompt = match &opts.prompt {
        Some(p) => p.clone(),
        None if crate::term::stdin_is_tty() => String::new(),
        None => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
            String::from_utf8_lossy(&bytes).into_owned()
        }
    };
    if prompt.trim().is_empty() {
        eprintln!(
            "Error: Input must be provided either through stdin or as a prompt argument when using --print"
        );
        return Ok(1);
    }
    if scenario.startup.sign_in {
        println!("{NOT_SIGNED_IN}");
        return Ok(1);
    }
    let delay = scenario.startup.delay_ms;
    let mut sess = Session::open(opts, scenario, false)?;
    std::thread::sleep(Duration::from_millis(delay));
    sess.clock.advance(delay);
    let payload = sess.payload_session_start("startup");
    sess.fire("SessionStart", Some("startup"), &payload);
    sess.record_prompt(&prompt);
    let started_ms = sess.clock.now_ms();
    let mut turn = Turn::new(&mut sess, prompt, Instant::now());
    turn.start(&mut sess);
    let sign_in = || {
        println!("{NOT_SIGNED_IN}");
        1
    };
    let done = match headless::play("fake-claude", &mut turn, &mut sess, |_, _| Ok(()), sign_in)? {
        Played::Done(done) => done,
        Played::Over(code) => return Ok(code),
    };
    // Print mode reads no keys: nothing can interrupt it before its text.
    if done.restored.is_some() {
        return Ok(1);
    }
    let Done {
        hook,
        late,
        text,
        api_error,
        ..
    } = done;
    let elapsed = (sess.clock.now_ms() - started_ms).max(0) as u64;
    if let Some(h) = hook {
        sess.fire(h.event, None, &h.payload);
    }
    headless::settle(&mut sess, late)?;
    let out = match opts.output_format {
        OutputFormat::Text => format!("{text}\n"),
        OutputFormat::Json => {
            let info = Summary {
                text: &text,
                api_error,
                elapsed_ms: elapsed,
                turns: turn.num_turns,
                denials: &turn.denials,
            };
            result_json(&mut sess, &info).to_line() + "\n"
        }
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    let payload = sess.payload_session_end("other");
    sess.fire("SessionEnd", None, &payload);
    Ok(if api_error.is_some() { 1 } else { 0 })
}

/// What the result object reports.
pub struct Summary<'a> {
    /// The reply (or API error text).
    pub text: &'a str,
    /// The API error status, if the turn failed.
    pub api_error: Option<u16>,
    /// Virtual duration of the turn.
    pub elapsed_ms: u64,
    /// Model round trips.
    pub turns: u64,
    /// Denied tool calls.
    pub denials: &'a [Obj],
}

/// The `--output-format json` object, shaped like `claude-2.1.332-print-json-*.json`.
pub fn result_json(sess: &mut Session, s: &Summary) -> Obj {
    let ok = s.api_error.is_none();
    let (input, output) = if ok {
        (123u64, (s.text.len() as u64 / 4).max(1))
    } else {
        (0, 0)
    };
    let cost = (input as f64 * 5.0 + output as f64 * 25.0) / 1_000_000.0;
    let mut o = obj! {
        "type" => "result",
        "subtype" => "success",
        "is_error" => !ok,
        "api_error_status" => s.api_error.map(u64::from),
        "duration_ms" => s.elapsed_ms,
        "duration_api_ms" => s.elapsed_ms,
        "num_turns" => s.turns,
        "result" => s.text,
        "stop_reason" => if ok { "end_turn" } else { "stop_sequence" },
        "session_id" => sess.id.as_str(),
        "total_cost_usd" => cost,
        "usage" => usage(input, output),
    };
    if let Some(status) = s.api_error {
        o.set("api_error_type", api_error_type(status));
        o.set("modelUsage", obj! {});
    } else {
        let model = sess.model.id.as_str();
        let m = obj! {
            "inputTokens" => input,
            "outputTokens" => output,
            "cacheReadInputTokens" => 0u64,
            "cacheCreationInputTokens" => 0u64,
            "webSearchRequests" => 0u64,
            "costUSD" => cost,
            "contextWindow" => 1_000_000u64,
            "maxOutputTokens" => 128_000u64,
            "thinkingTokens" => 0u64,
            "cacheCreationEphemeral5mInputTokens" => 0u64,
            "cacheCreationEphemeral1hInputTokens" => 0u64,
            "canonicalModel" => model,
            "provider" => "firstParty",
            "costBasis" => "list",
        };
        o.set("modelUsage", Obj::new().with(model, m));
    }
    o.set("permission_denials", s.denials.to_vec());
    o.set(
        "terminal_reason",
        if ok { "completed" } else { "api_error" },
    );
    o.set("fast_mode_state", "off");
    o.set("fast_mode_disabled_reason", "sdk_opt_in_required");
    o.set("subagent_stats", subagent_stats());
    o.set("safety_stops", 0u64);
    if ok {
        o.set("ttft_ms", s.elapsed_ms);
        o.set("ttft_stream_ms", 0u64);
        o.set("time_to_request_ms", 0u64);
        o.set("first_content_frame_ms", s.elapsed_ms);
    }
    o.set("uuid", sess.ids.uuid());
    o.set("queued_turn_count", 0u64);
    o.set("result_index", 0u64);
    o
}

fn subagent_stats() -> Obj {
    obj! {
        "spawned" => 0u64,
        "requested" => obj! { "background" => 0u64, "foreground" => 0u64, "unset" => 0u64 },
        "started_in_background" => 0u64,
        "max_depth" => 0u64,
        "spawned_by_subagents" => 0u64,
        "completed" => 0u64,
        "failed" => 0u64,
        "killed" => obj! { "parent" => 0u64, "user" => 0u64, "system" => 0u64 },
        "refused" => obj! { "depth_limit" => 0u64, "concurrency_limit" => 0u64, "budget" => 0u64 },
        "by_type" => obj! {},
    }
}
