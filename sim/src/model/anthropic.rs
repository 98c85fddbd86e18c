//! Anthropic Messages (`POST /v1/messages`, streamed or not; `count_tokens`), as claude reads it.

use super::http::{self, Request};
use super::next_id;
use super::plan::{Answer, Turn};
use serde_json::{Value, json};
use std::net::TcpStream;

fn error_type(status: u16) -> &'static str {
    match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    }
}

/// The shell tool the request offers: claude's `Bash`, or opencode's `bash` (it speaks the
/// Messages API too, with its own tool names).
fn shell_tool(body: &Value) -> &'static str {
    let offered = |name: &str| {
        body.get("tools")
            .and_then(Value::as_array)
            .is_some_and(|tools| {
                tools
                    .iter()
                    .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
            })
    };
    if offered("bash") && !offered("Bash") {
        "bash"
    } else {
        "Bash"
    }
}

fn usage(output: u64) -> Value {
    json!({"input_tokens": 123, "output_tokens": output, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

/// Writes the answer; `Ok(true)` when the connection may be reused.
pub fn send(
    out: &mut TcpStream,
    req: &Request,
    body: &Value,
    answer: &Answer,
) -> std::io::Result<bool> {
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-fake");
    let stream = body.get("stream") == Some(&Value::Bool(true));
    let id = format!("msg_fake{:016}", next_id());
    let message = |content: Value, stop: &str| {
        json!({"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
               "stop_reason": stop, "stop_sequence": null, "usage": usage(7)})
    };
    let (text, tool) = match answer {
        Answer::Count => return http::json(out, 200, &json!({"input_tokens": 42})).map(|()| true),
        Answer::Error { status, message } => {
            let body = json!({"type": "error", "error": {"type": error_type(*status), "message": message}, "request_id": "req_fake"});
            return http::json(out, *status, &body).map(|()| true);
        }
        Answer::Classifier => {
            let stops = body.get("stop_sequences").and_then(Value::as_array);
            let short = stops.is_some_and(|s| s.iter().any(|v| v == "</block>"));
            let (text, stop) = if short {
                ("<block>no", "stop_sequence")
            } else {
                ("<block>no</block>", "end_turn")
            };
            let mut reply = message(json!([{"type": "text", "text": text}]), stop);
            if short {
                reply["stop_sequence"] = json!("</block>");
            }
            return http::json(out, 200, &reply).map(|()| true);
        }
        Answer::Text(turn) => (Some(turn.clone()), None),
        Answer::Tool { .. } => (None, answer.call(shell_tool(body))),
        Answer::Side | Answer::UsageLimit | Answer::NotFound => (None, None),
    };
    if req.path.contains("count_tokens") {
        return http::json(out, 200, &json!({"input_tokens": 42})).map(|()| true);
    }
    let side = Turn::instant("ok");
    if !stream {
        let content = match (&text, &tool) {
            (_, Some((name, input))) => json!([{"type": "text", "text": "I will run a command."},
                {"type": "tool_use", "id": format!("toolu_fake{:012}", next_id()), "name": name, "input": input}]),
            (Some(t), None) => json!([{"type": "text", "text": t.text}]),
            (None, None) => json!([{"type": "text", "text": side.text}]),
        };
        let stop = if tool.is_some() {
            "tool_use"
        } else {
            "end_turn"
        };
        return http::json(out, 200, &message(content, stop)).map(|()| true);
    }
    http::sse_start(out)?;
    let mut start = message(json!([]), "");
    start["stop_reason"] = Value::Null;
    start["usage"] = usage(1);
    http::sse(
        out,
        Some("message_start"),
        &json!({"type": "message_start", "message": start}),
    )?;
    let turn = text.unwrap_or(match &tool {
        Some(_) => Turn {
            text: "I will run a command.".into(),
            ..side
        },
        None => side,
    });
    turn.pause();
    let text_at = match &turn.thinking {
        Some(thinking) => {
            thinking_block(out, 0, thinking)?;
            1
        }
        None => 0,
    };
    block_start(out, text_at, json!({"type": "text", "text": ""}))?;
    for (i, chunk) in turn.chunks().iter().enumerate() {
        if i > 0 {
            turn.gap();
        }
        let delta = json!({"type": "content_block_delta", "index": text_at, "delta": {"type": "text_delta", "text": chunk}});
        http::sse(out, Some("content_block_delta"), &delta)?;
    }
    if turn.wedge {
        http::hold(out);
        return Ok(false);
    }
    block_stop(out, text_at)?;
    let stop = match tool {
        Some((name, input)) => {
            let id = format!("toolu_fake{:012}", next_id());
            let at = text_at + 1;
            block_start(
                out,
                at,
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            )?;
            let delta = json!({"type": "content_block_delta", "index": at, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}});
            http::sse(out, Some("content_block_delta"), &delta)?;
            block_stop(out, at)?;
            "tool_use"
        }
        None => "end_turn",
    };
    let delta = json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 12}});
    http::sse(out, Some("message_delta"), &delta)?;
    http::sse(out, Some("message_stop"), &json!({"type": "message_stop"}))?;
    Ok(false)
}

/// A `thinking` block at `index`: its text, then a signature (the fake's own, never checked).
fn thinking_block(out: &mut TcpStream, index: u32, thinking: &str) -> std::io::Result<()> {
    block_start(
        out,
        index,
        json!({"type": "thinking", "thinking": "", "signature": ""}),
    )?;
    let delta = json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": thinking}});
    http::sse(out, Some("content_block_delta"), &delta)?;
    let signed = json!({"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": "fakesig"}});
    http::sse(out, Some("content_block_delta"), &signed)?;
    block_stop(out, index)
}

fn block_start(out: &mut TcpStream, index: u32, block: Value) -> std::io::Result<()> {
    let event = json!({"type": "content_block_start", "index": index, "content_block": block});
    http::sse(out, Some("content_block_start"), &event)
}

fn block_stop(out: &mut TcpStream, index: u32) -> std::io::Result<()> {
    let event = json!({"type": "content_block_stop", "index": index});
    http::sse(out, Some("content_block_stop"), &event)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_tool_is_the_one_the_request_offers() {
        let claude = json!({"tools": [{"name": "Bash"}, {"name": "Read"}]});
        let opencode = json!({"tools": [{"name": "bash"}, {"name": "read"}]});
        assert_eq!(shell_tool(&claude), "Bash");
        assert_eq!(shell_tool(&opencode), "bash");
        assert_eq!(shell_tool(&json!({})), "Bash");
    }
}
