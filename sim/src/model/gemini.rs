//! Gemini generateContent (`…:streamGenerateContent?alt=sse`, `:generateContent`, `:countTokens`),
//! as gemini reads it through `GOOGLE_GEMINI_BASE_URL`.

use super::http::{self, Request};
use super::next_id;
use super::plan::{Answer, Turn};
use serde_json::{Value, json};
use std::net::TcpStream;

fn status_name(status: u16) -> &'static str {
    match status {
        400 => "INVALID_ARGUMENT",
        429 => "RESOURCE_EXHAUSTED",
        _ => "INTERNAL",
    }
}

fn response(parts: Value, finish: bool, id: &str) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if finish {
        candidate["finishReason"] = json!("STOP");
    }
    json!({"candidates": [candidate],
           "usageMetadata": {"promptTokenCount": 456, "candidatesTokenCount": 9, "totalTokenCount": 465},
           "modelVersion": "gemini-fake", "responseId": id})
}

/// Writes the answer; `Ok(true)` when the connection may be reused.
pub fn send(out: &mut TcpStream, req: &Request, answer: &Answer) -> std::io::Result<bool> {
    if req.path.contains(":countTokens") {
        return http::json(out, 200, &json!({"totalTokens": 42})).map(|()| true);
    }
    let id = format!("{:016}", next_id());
    let (turn, tool): (Option<Turn>, Option<Value>) = match answer {
        Answer::Error { status, message } => {
            let error = json!({"error": {"code": status, "message": message, "status": status_name(*status)}});
            return http::json(out, *status, &error).map(|()| true);
        }
        Answer::Text(turn) => (Some(turn.clone()), None),
        Answer::Tool { .. } => {
            let call = |(name, args)| json!([{"functionCall": {"name": name, "args": args}}]);
            (None, answer.call("run_shell_command").map(call))
        }
        _ => {
            // Side requests (routing, next-speaker checks) expect JSON text.
            let blob = json!({"reasoning": "fake", "model_choice": "flash", "next_speaker": "user",
                              "complexity_reasoning": "simple", "complexity_score": 1});
            (Some(Turn::instant(blob.to_string())), None)
        }
    };
    let stream = req.path.contains(":streamGenerateContent");
    if !stream {
        let parts = match (&turn, &tool) {
            (_, Some(calls)) => calls.clone(),
            (Some(t), None) => json!([{"text": t.text}]),
            (None, None) => json!([]),
        };
        return http::json(out, 200, &response(parts, true, &id)).map(|()| true);
    }
    http::sse_start(out)?;
    if let Some(calls) = tool {
        http::sse(out, None, &response(calls, true, &id))?;
        return Ok(false);
    }
    let turn = turn.unwrap_or(Turn::instant(""));
    turn.pause();
    if let Some(thinking) = &turn.thinking {
        let thought = json!([{"text": thinking, "thought": true}]);
        http::sse(out, None, &response(thought, false, &id))?;
    }
    // gemini 0.61.0 garbled word-by-word chunks in its hook payload: the text goes out whole,
    // after the time its chunks would have taken.
    for _ in 1..turn.chunks().len() {
        turn.gap();
    }
    http::sse(
        out,
        None,
        &response(json!([{"text": turn.text}]), !turn.wedge, &id),
    )?;
    if turn.wedge {
        http::hold(out);
    }
    Ok(false)
}
