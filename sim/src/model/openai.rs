//! OpenAI Responses (`POST /v1/responses`, streamed), as codex reads it through a custom model
//! provider. A tool call is `exec_command`; in a permission turn it asks for sandbox escalation,
//! which is what makes codex show its approval prompt.

use super::http;
use super::next_id;
use super::plan::{Answer, Turn};
use serde_json::{Value, json};
use std::net::TcpStream;

/// Writes the answer; `Ok(true)` when the connection may be reused.
pub fn send(out: &mut TcpStream, body: &Value, answer: &Answer) -> std::io::Result<bool> {
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("gpt-fake");
    match answer {
        Answer::Error { status, message } => {
            let error = json!({"error": {"type": "invalid_request_error", "code": "bad_request", "message": message, "param": null}});
            return http::json(out, *status, &error).map(|()| true);
        }
        Answer::UsageLimit => {
            let error = json!({"error": {"type": "usage_limit_reached", "message": "The usage limit has been reached", "plan_type": "plus", "resets_in_seconds": 3600}});
            return http::json(out, 429, &error).map(|()| true);
        }
        _ => {}
    }
    let base = json!({"id": format!("resp_fake{:012}", next_id()), "object": "response", "created_at": 1796300000,
                      "status": "in_progress", "model": model, "output": []});
    http::sse_start(out)?;
    http::sse(
        out,
        Some("response.created"),
        &json!({"type": "response.created", "response": base}),
    )?;
    if let Answer::Tool {
        command,
        escalate,
        named,
        ..
    } = answer
    {
        let mut args = json!({"cmd": command});
        if *escalate {
            args["sandbox_permissions"] = json!("require_escalated");
            args["justification"] = json!("The scenario asks for a command that needs approval");
        }
        let (name, args) = named
            .clone()
            .unwrap_or_else(|| ("exec_command".to_string(), args));
        let item = json!({"type": "function_call", "id": format!("fc_{:010}", next_id()), "status": "completed",
                          "name": name, "arguments": args.to_string(), "call_id": format!("call_fake{:012}", next_id())});
        for event in ["response.output_item.added", "response.output_item.done"] {
            http::sse(
                out,
                Some(event),
                &json!({"type": event, "output_index": 0, "item": item}),
            )?;
        }
    } else {
        let turn = match answer {
            Answer::Text(turn) => turn.clone(),
            _ => Turn::instant("ok"),
        };
        turn.pause();
        let at = match &turn.thinking {
            Some(thinking) => {
                reasoning(out, thinking)?;
                1
            }
            None => 0,
        };
        let id = format!("msg_fake{:012}", next_id());
        let added = json!({"type": "message", "id": id, "status": "in_progress", "role": "assistant", "content": []});
        http::sse(
            out,
            Some("response.output_item.added"),
            &json!({"type": "response.output_item.added", "output_index": at, "item": added}),
        )?;
        for (i, chunk) in turn.chunks().iter().enumerate() {
            if i > 0 {
                turn.gap();
            }
            let delta = json!({"type": "response.output_text.delta", "item_id": id, "output_index": at, "content_index": 0, "delta": chunk});
            http::sse(out, Some("response.output_text.delta"), &delta)?;
        }
        if turn.wedge {
            http::hold(out);
            return Ok(false);
        }
        let done = json!({"type": "message", "id": id, "status": "completed", "role": "assistant",
                          "content": [{"type": "output_text", "text": turn.text, "annotations": []}]});
        http::sse(
            out,
            Some("response.output_item.done"),
            &json!({"type": "response.output_item.done", "output_index": at, "item": done}),
        )?;
    }
    let mut completed = base;
    completed["status"] = json!("completed");
    completed["usage"] = json!({"input_tokens": 321, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 17,
                                "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 338});
    http::sse(
        out,
        Some("response.completed"),
        &json!({"type": "response.completed", "response": completed}),
    )?;
    Ok(false)
}

/// A `reasoning` output item with `thinking` as its summary, as the Responses API streams one.
fn reasoning(out: &mut TcpStream, thinking: &str) -> std::io::Result<()> {
    let id = format!("rs_fake{:012}", next_id());
    let item = |summary: Value| json!({"type": "reasoning", "id": id, "summary": summary});
    http::sse(
        out,
        Some("response.output_item.added"),
        &json!({"type": "response.output_item.added", "output_index": 0, "item": item(json!([]))}),
    )?;
    let part = json!({"type": "summary_text", "text": ""});
    let added = json!({"type": "response.reasoning_summary_part.added", "item_id": id, "output_index": 0, "summary_index": 0, "part": part});
    http::sse(out, Some("response.reasoning_summary_part.added"), &added)?;
    let delta = json!({"type": "response.reasoning_summary_text.delta", "item_id": id, "output_index": 0, "summary_index": 0, "delta": thinking});
    http::sse(out, Some("response.reasoning_summary_text.delta"), &delta)?;
    let done = json!({"type": "response.reasoning_summary_text.done", "item_id": id, "output_index": 0, "summary_index": 0, "text": thinking});
    http::sse(out, Some("response.reasoning_summary_text.done"), &done)?;
    let summary = json!([{"type": "summary_text", "text": thinking}]);
    http::sse(
        out,
        Some("response.output_item.done"),
        &json!({"type": "response.output_item.done", "output_index": 0, "item": item(summary)}),
    )
}
