//! `umbel -p --output-format stream-json`: a thread tails the worker's transcript while the
//! turn runs and prints each event as one JSON line, flushed at once; the `result` event ends
//! the stream. Event types and fields are the real print modes' (see core/print/stream.rs).

use super::Done;
use super::json;
use crate::core::meta::Meta;
use crate::core::print::stream::StreamMapper;
use crate::core::providers::Provider;
use crate::faces::output::out_json;
use crate::operations::Ctx;
use crate::operations::transcript_tail::TranscriptTail;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// How often the transcript is read while the turn runs.
const TICK: Duration = Duration::from_millis(100);

/// The tail and the mapper of a running stream, handed back for the last records.
pub struct Live {
    tail: TranscriptTail,
    mapper: StreamMapper,
}

impl Live {
    fn drain(&mut self, ctx: &Ctx) {
        for record in self.tail.poll(ctx) {
            for event in self.mapper.events(&record) {
                out_json(&event);
            }
        }
    }
}

/// Prints the `init` event, then runs `body` (send and wait) while the transcript is tailed.
pub fn run<T>(ctx: &Ctx, meta: &Meta, body: impl FnOnce() -> T) -> (T, Live) {
    out_json(&init(meta));
    let mut live = Live {
        tail: TranscriptTail::start(ctx, meta),
        mapper: StreamMapper::new(meta.provider, &meta.session_id),
    };
    let stop = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        // One last read after `body` returns: a fast turn can end between two ticks, and
        // the transcript of a worker `-p` created goes with it.
        let tailer = scope.spawn(|| {
            loop {
                let stopping = stop.load(Ordering::Relaxed);
                live.drain(ctx);
                if stopping {
                    break;
                }
                std::thread::sleep(TICK);
            }
        });
        let result = body();
        stop.store(true, Ordering::Relaxed);
        let _ = tailer.join();
        result
    });
    (result, live)
}

/// The events still in the transcript, then the `result` event.
pub fn finish(ctx: &Ctx, live: Option<Live>, done: &Done, duration_ms: u64) {
    if let Some(mut live) = live {
        live.drain(ctx);
    }
    match done.provider {
        Provider::Claude => {
            let mut result = json::claude(done, duration_ms);
            result["model_usage_since_last_result"] = result["modelUsage"].clone();
            out_json(&result);
        }
        Provider::Gemini => out_json(&gemini_result(done, duration_ms)),
        Provider::Codex => super::print_documents(json::documents(done, duration_ms)),
    }
}

fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// The stream's first event. What only the CLI knows (its tools, version, key source) is null.
fn init(meta: &Meta) -> Value {
    match meta.provider {
        Provider::Gemini => json!({
            "type": "init",
            "timestamp": now(),
            "session_id": meta.session_id,
            "model": meta.model.as_deref().unwrap_or("auto"),
        }),
        _ => json!({
            "type": "system",
            "subtype": "init",
            "cwd": meta.cwd,
            "session_id": meta.session_id,
            "tools": null,
            "mcp_servers": null,
            "model": meta.model,
            "permissionMode": null,
            "apiKeySource": null,
            "claude_code_version": null,
            "output_style": null,
            "uuid": uuid::Uuid::new_v4().to_string(),
        }),
    }
}

/// gemini's `result` event: the turn's status and token stats.
fn gemini_result(done: &Done, duration_ms: u64) -> Value {
    let stats = &done.stats;
    let tokens = |t: &crate::core::print::stats::Tokens| {
        json!({
            "total_tokens": t.input + t.output + t.thoughts,
            "input_tokens": t.input,
            "output_tokens": t.output,
            "cached": t.cache_read,
            "input": t.input,
        })
    };
    let mut summary = tokens(&stats.total());
    summary["duration_ms"] = json!(duration_ms);
    summary["tool_calls"] = json!(stats.tools.len());
    summary["models"] = stats
        .models
        .iter()
        .map(|(model, t)| (model.clone(), tokens(t)))
        .collect::<serde_json::Map<_, _>>()
        .into();
    let mut result = json!({
        "type": "result",
        "timestamp": now(),
        "status": if done.ok() { "success" } else { "error" },
        "stats": summary,
    });
    if !done.ok() {
        result["error"] = json!({ "type": "Error", "message": done.error_message() });
    }
    result
}
