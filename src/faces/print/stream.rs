//! `umbel -p --output-format stream-json` (and codex's `-o json`, which is `codex exec --json`,
//! a stream too): a thread tails the worker's transcript while the turn runs and prints each
//! event as one JSON line, flushed at once; the `result` event (codex: `turn.completed`) ends
//! the stream. Event types and fields are the real print modes' (see core/print/stream.rs).

use super::Done;
use super::json;
use crate::core::meta::Meta;
use crate::core::print::codex_items;
use crate::core::print::stream::StreamMapper;
use crate::core::providers::Provider;
use crate::faces::output::out_json;
use crate::operations::Ctx;
use crate::operations::transcript_tail::TranscriptTail;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// How often the transcript is read while the turn runs.
const TICK: Duration = Duration::from_millis(100);

/// The tail and the mapper of a running stream, handed back for the last records.
pub struct Live {
    tail: TranscriptTail,
    mapper: StreamMapper,
    started: Instant,
}

impl Live {
    fn drain(&mut self, ctx: &Ctx) {
        let records = self.tail.poll(ctx);
        let now_ms = self.started.elapsed().as_millis() as u64;
        let mut events = self.mapper.tick(now_ms);
        for record in records {
            events.extend(self.mapper.events(&record));
        }
        for event in events {
            out_json(&event);
        }
    }
}

/// Prints the `init` event, then runs `body` (send and wait) while the transcript is tailed.
pub fn run<T>(ctx: &Ctx, meta: &Meta, body: impl FnOnce() -> T) -> (T, Live) {
    for event in init(meta) {
        out_json(&event);
    }
    let mut live = Live {
        tail: TranscriptTail::start(ctx, meta),
        mapper: StreamMapper::new(meta.provider, &meta.session_id),
        started: Instant::now(),
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
    let mut mapper = None;
    if let Some(mut live) = live {
        live.drain(ctx);
        mapper = Some(live.mapper);
    }
    match done.provider {
        Provider::Claude => {
            let mut result = json::claude(done, duration_ms);
            result["model_usage_since_last_result"] = result["modelUsage"].clone();
            out_json(&result);
        }
        Provider::Gemini => out_json(&gemini_result(done, duration_ms)),
        Provider::Qwen => {
            if let Some(result) = json::qwen(done, duration_ms).pop() {
                out_json(&result);
            }
        }
        Provider::Opencode => json::opencode(done, duration_ms).iter().for_each(out_json),
        Provider::Codex => {
            match mapper {
                // A turn whose message the rollout did not show (a guarded answer, a lagging
                // transcript) still ends with it, as codex's stream does.
                Some(mut mapper) if !mapper.streamed_nothing() => {
                    if done.ok() && !mapper.answered() {
                        let id = mapper.next_item();
                        out_json(&codex_items::agent_message(&id, &done.printed()));
                    }
                }
                // Nothing came from the transcript while the turn ran (its path was not known):
                // the items from the turn's stats, read at its end.
                _ => json::codex_body(done).iter().for_each(out_json),
            }
            for event in json::codex_end(done) {
                out_json(&event);
            }
        }
    }
}

fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// The stream's first events. What only the CLI knows (its tools, version, key source) is null.
fn init(meta: &Meta) -> Vec<Value> {
    let event = match meta.provider {
        Provider::Codex => return json::codex_start(&meta.session_id),
        // `opencode run --format json` opens with the turn's first step.
        Provider::Opencode => return Vec::new(),
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
    };
    vec![event]
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
