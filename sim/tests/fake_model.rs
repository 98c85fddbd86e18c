//! `fake-model` as a process: port on stdout and in the port file, each wire format answering a
//! scenario turn, an API error with the provider's status, a tool call and the reply after its
//! result, a scenario file edited after start, and a log that names headers but never their values.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

struct Server {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(scenario: Value) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scenario.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fake-model"))
        .args(["--port", "0", "--lifetime", "120", "--scenario"])
        .arg(&file)
        .arg("--log")
        .arg(dir.path().join("log.jsonl"))
        .arg("--port-file")
        .arg(dir.path().join("port"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line.trim().parse().unwrap();
    let written = std::fs::read_to_string(dir.path().join("port")).unwrap();
    assert_eq!(written.trim(), line.trim());
    Server { child, port, dir }
}

/// POSTs `body`; returns the status and the whole response body.
fn post(server: &Server, path: &str, body: &Value) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let body = body.to_string();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nhost: x\r\nx-api-key: secret-value\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text[9..12].parse().unwrap();
    let body = text.split_once("\r\n\r\n").unwrap().1.to_string();
    (status, body)
}

fn claude(prompt: &str) -> Value {
    json!({"model": "claude-x", "stream": true, "tools": [{"name": "Bash"}],
           "messages": [{"role": "user", "content": [{"type": "text", "text": "<system-reminder>x"},
                                                      {"type": "text", "text": prompt}]}]})
}

#[test]
fn each_wire_format_plays_the_scenario() {
    let server = start(json!({"turns": [
        {"match": "hello", "reply": "The answer is 42."},
        {"match": "bad", "end": {"api_error": {"status": 400, "message": "scripted"}}},
        {"match": "tool", "reply": "It printed hi.", "end": {"permission": {"tool": "Bash", "input": {"command": "echo hi"}}}}
    ]}));
    let (status, sse) = post(&server, "/v1/messages?beta=true", &claude("Say hello"));
    assert_eq!(status, 200);
    assert!(
        sse.contains("event: message_start") && sse.contains("The answer is 42."),
        "{sse}"
    );
    let (status, body) = post(&server, "/v1/messages", &claude("a bad one"));
    assert_eq!(status, 400);
    assert!(
        body.contains("invalid_request_error") && body.contains("scripted"),
        "{body}"
    );
    let codex = json!({"model": "gpt-fake", "tools": [{"type": "function", "name": "exec_command"}],
                       "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run the tool"}]}]});
    let (_, sse) = post(&server, "/v1/responses", &codex);
    assert!(
        sse.contains("\"name\":\"exec_command\"") && sse.contains("require_escalated"),
        "{sse}"
    );
    let result = json!({"tools": [{"type": "function", "name": "exec_command"}],
                        "input": [{"type": "function_call_output", "call_id": "c", "output": "hi"}]});
    let (_, sse) = post(&server, "/v1/responses", &result);
    assert!(
        sse.contains("It printed hi.") && sse.contains("response.completed"),
        "{sse}"
    );
    let gemini = json!({"tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}],
                        "contents": [{"role": "user", "parts": [{"text": "Two words"}]}]});
    let (_, sse) = post(
        &server,
        "/v1beta/models/g:streamGenerateContent?alt=sse",
        &gemini,
    );
    assert!(
        sse.contains("Response to: Two words") && sse.contains("STOP"),
        "{sse}"
    );
    let side = json!({"messages": [{"role": "user", "content": "title please"}]});
    let (_, body) = post(&server, "/v1/messages", &side);
    assert!(
        body.contains("\"ok\""),
        "side requests get a short answer: {body}"
    );

    let log = std::fs::read_to_string(server.dir.path().join("log.jsonl")).unwrap();
    assert!(
        log.contains("x-api-key") && !log.contains("secret-value"),
        "{log}"
    );
    assert!(log.contains("\"kind\":\"anthropic-400\""), "{log}");
}

#[test]
fn a_scenario_written_after_start_is_played() {
    let server = start(json!({}));
    let (_, sse) = post(&server, "/v1/messages", &claude("Say hello"));
    assert!(sse.contains("Response to: Say hello"), "{sse}");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let file = server.dir.path().join("scenario.json");
    std::fs::write(&file, json!({"default": {"reply": "changed!"}}).to_string()).unwrap();
    let (_, sse) = post(&server, "/v1/messages", &claude("Say hello again"));
    assert!(sse.contains("changed!"), "{sse}");
}
