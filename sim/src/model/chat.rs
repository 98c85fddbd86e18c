//! OpenAI Chat Completions (`POST /v1/chat/completions`, streamed with `stream_options.
//! include_usage`), as qwen and copilot read it. A tool call is the shell tool the request
//! offers: `bash` (copilot's), else `run_shell_command` (qwen's); the CLI itself decides whether
//! it needs approval.

use super::http;
use super::next_id;
use super::plan::{Answer, Turn};
use serde_json::{Value, json};
use std::net::TcpStream;

/// The shell tool the request offers its model: copilot's `bash`, else qwen's.
fn shell_tool(body: &Value) -> &'static str {
    let offered = body.get("tools").and_then(Value::as_array);
    let bash = offered.is_some_and(|tools| {
        tools
            .iter()
            .any(|t| t.pointer("/function/name").and_then(Value::as_str) == Some("bash"))
    });
    if bash { "bash" } else { "run_shell_command" }
}

/// Writes the answer; `Ok(true)` when the connection may be reused.
pub fn send(out: &mut TcpStream, body: &Value, answer: &Answer) -> std::io::Result<bool> {
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("qwen-fake");
    match answer {
        Answer::Error { status, message } => {
            let error = json!({"error": {"type": "invalid_request_error", "code": null, "message": message, "param": null}});
            return http::json(out, *status, &error).map(|()| true);
        }
        Answer::UsageLimit => {
            let error = json!({"error": {"type": "insufficient_quota", "code": "insufficient_quota", "message": "You exceeded your current quota", "param": null}});
            return http::json(out, 429, &error).map(|()| true);
        }
        _ => {}
    }
    let id = format!("chatcmpl-fake{:012}", next_id());
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 1796300000, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    http::sse_start(out)?;
    http::sse(
        out,
        None,
        &chunk(json!({"role": "assistant", "content": ""}), Value::Null),
    )?;
    let finish = if let Some((name, args)) = answer.call(shell_tool(body)) {
        let call = json!({"index": 0, "id": format!("call_fake{:012}", next_id()), "type": "function",
                          "function": {"name": name, "arguments": args.to_string()}});
        http::sse(
            out,
            None,
            &chunk(json!({"tool_calls": [call]}), Value::Null),
        )?;
        "tool_calls"
    } else {
        let turn = match answer {
            Answer::Text(turn) => turn.clone(),
            _ => Turn::instant("ok"),
        };
        turn.pause();
        if let Some(thinking) = &turn.thinking {
            // The reasoning models' field (qwen reads it as a thought).
            let delta = json!({"reasoning_content": thinking});
            http::sse(out, None, &chunk(delta, Value::Null))?;
        }
        for (i, piece) in turn.chunks().iter().enumerate() {
            if i > 0 {
                turn.gap();
            }
            http::sse(out, None, &chunk(json!({"content": piece}), Value::Null))?;
        }
        if turn.wedge {
            http::hold(out);
            return Ok(false);
        }
        "stop"
    };
    http::sse(out, None, &chunk(json!({}), json!(finish)))?;
    let mut usage = chunk(json!({}), Value::Null);
    usage["choices"] = json!([]);
    usage["usage"] = json!({"prompt_tokens": 321, "completion_tokens": 17, "total_tokens": 338});
    http::sse(out, None, &usage)?;
    use std::io::Write;
    write!(out, "data: [DONE]\n\n")?;
    out.flush()?;
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::shell_tool;
    use serde_json::json;

    #[test]
    fn the_shell_tool_is_the_one_the_request_offers() {
        let copilot = json!({"tools": [{"type": "function", "function": {"name": "bash"}}]});
        assert_eq!(shell_tool(&copilot), "bash");
        let qwen =
            json!({"tools": [{"type": "function", "function": {"name": "run_shell_command"}}]});
        assert_eq!(shell_tool(&qwen), "run_shell_command");
    }
}
