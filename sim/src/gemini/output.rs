//! Headless output shapes: `-o json` (`gemini-0.61.0-print-json-success.json`),
//! its error object on stderr (`…-print-json-api-error-stderr.json`) and the
//! `-o stream-json` events (`…-print-stream-json-tool-turn.jsonl`).

use super::session::Session;
use super::turn::{Event, Failure};
use crate::json::Obj;
use crate::obj;

fn token_obj(input: u64, output: u64) -> Obj {
    obj! {
        "input" => input,
        "prompt" => input,
        "candidates" => output,
        "total" => input + output,
        "cached" => 0u64,
        "thoughts" => 0u64,
        "tool" => 0u64,
    }
}

fn role(requests: u64, errors: u64, latency: u64, input: u64, output: u64) -> Obj {
    obj! {
        "totalRequests" => requests,
        "totalErrors" => errors,
        "totalLatencyMs" => latency,
        "tokens" => token_obj(input, output),
    }
}

fn decisions(accept: u64, reject: u64, auto: u64) -> Obj {
    obj! { "accept" => accept, "reject" => reject, "modify" => 0u64, "auto_accept" => auto }
}

/// `stats` of `-o json`: per model (with roles), tools, files.
pub fn stats(sess: &Session, errors: u64) -> Obj {
    let s = &sess.stats;
    let latency = s.active_ms.max(1);
    let mut roles = Obj::new();
    let (mut requests, mut input, mut output) = (s.requests, s.input, s.output);
    if sess.model.auto {
        let (ri, ro) = super::chat::token_counts("", "router");
        roles.set("utility_router", role(1, 0, 20, ri, ro));
        requests += 1;
        input += ri;
        output += ro;
    }
    roles.set("main", role(s.requests, errors, latency, s.input, s.output));
    let model = obj! {
        "api" => obj! {
            "totalRequests" => requests,
            "totalErrors" => errors,
            "totalLatencyMs" => latency + if sess.model.auto { 20 } else { 0 },
            "errorsByType" => obj! {},
        },
        "tokens" => token_obj(input, output),
        "roles" => roles,
    };
    let mut by_name = Obj::new();
    for (name, ok, fail) in &s.by_name {
        by_name.set(
            name,
            obj! {
                "count" => ok + fail,
                "success" => *ok,
                "fail" => *fail,
                "durationMs" => 0u64,
                "decisions" => decisions(s.accepted, s.rejected, s.auto_accepted),
            },
        );
    }
    obj! {
        "models" => Obj::new().with(&sess.model.name, model),
        "tools" => obj! {
            "totalCalls" => s.tool_calls,
            "totalSuccess" => s.tool_ok,
            "totalFail" => s.tool_calls - s.tool_ok,
            "totalDurationMs" => 0u64,
            "totalDecisions" => decisions(s.accepted, s.rejected, s.auto_accepted),
            "byName" => by_name,
        },
        "files" => obj! { "totalLinesAdded" => 0u64, "totalLinesRemoved" => 0u64 },
    }
}

/// The `-o json` result object.
pub fn result_json(sess: &Session, response: &str) -> Obj {
    obj! {
        "session_id" => sess.id.as_str(),
        "response" => response,
        "stats" => stats(sess, 0),
    }
}

/// The error object printed on stderr when the API fails.
pub fn error_json(sess: &Session, f: &Failure) -> Obj {
    obj! {
        "session_id" => sess.id.as_str(),
        "error" => obj! { "type" => "Error", "message" => f.raw.as_str(), "code" => u64::from(f.status) },
    }
}

/// Pretty JSON with two-space indents, like `JSON.stringify(v, null, 2)`.
pub fn pretty(o: &Obj) -> String {
    serde_json::to_string_pretty(o).unwrap_or_default()
}

/// stream-json `init`.
pub fn init(sess: &mut Session) -> Obj {
    obj! {
        "type" => "init",
        "timestamp" => sess.clock.stamp(),
        "session_id" => sess.id.as_str(),
        "model" => sess.model.requested.as_str(),
    }
}

/// stream-json `message` (user prompt or assistant delta).
pub fn message(sess: &mut Session, role: &str, content: &str) -> Obj {
    let mut o = obj! {
        "type" => "message",
        "timestamp" => sess.clock.stamp(),
        "role" => role,
        "content" => content,
    };
    if role == "assistant" {
        o.set("delta", true);
    }
    o
}

/// The stream-json line for a turn event.
pub fn event(sess: &mut Session, e: &Event) -> Obj {
    match e {
        Event::Delta(text) => message(sess, "assistant", text),
        Event::ToolUse { name, id, params } => obj! {
            "type" => "tool_use",
            "timestamp" => sess.clock.stamp(),
            "tool_name" => name.as_str(),
            "tool_id" => id.as_str(),
            "parameters" => params,
        },
        Event::ToolResult { id, status, output } => obj! {
            "type" => "tool_result",
            "timestamp" => sess.clock.stamp(),
            "tool_id" => id.as_str(),
            "status" => status.as_str(),
            "output" => output.as_str(),
        },
    }
}

/// stream-json `result` (`status` `success`, or `error` with the API error).
pub fn result_event(sess: &mut Session, duration_ms: u64, failure: Option<&Failure>) -> Obj {
    let s = &sess.stats;
    let (input, output) = (s.input, s.output);
    let totals = obj! {
        "total_tokens" => input + output,
        "input_tokens" => input,
        "output_tokens" => output,
        "cached" => 0u64,
        "input" => input,
    };
    let mut stats = totals.clone();
    stats.set("duration_ms", duration_ms);
    stats.set("tool_calls", s.tool_calls);
    stats.set("models", Obj::new().with(&sess.model.name, totals));
    let mut o = obj! {
        "type" => "result",
        "timestamp" => sess.clock.stamp(),
        "status" => if failure.is_some() { "error" } else { "success" },
    };
    if let Some(f) = failure {
        o.set(
            "error",
            obj! { "type" => "Error", "message" => f.raw.as_str() },
        );
    }
    o.set("stats", stats);
    o
}
