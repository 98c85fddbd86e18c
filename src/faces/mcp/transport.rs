//! umbel's stdio transport for rmcp. rmcp's own ignores a line that is not JSON (or not UTF-8)
//! without a word, so a client that sent one waits forever; JSON-RPC 2.0 asks for
//! `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,…}}`. This transport reads the lines
//! itself, answers those, answers JSON that is no JSON-RPC message -32600 (with its id when it
//! has one; a malformed notification gets no reply, as notifications never do), and hands every
//! other line to rmcp. Every write — rmcp's and these replies — goes through one lock, a whole
//! line at a time, so replies never interleave.

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use std::future::Future;
use std::io;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// What one input line is.
#[derive(Debug)]
pub enum Line {
    /// A JSON-RPC message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// A line umbel answers itself (the reply, without its newline).
    Answer(Value),
    /// Nothing to do (an empty line, a malformed notification).
    Skip,
}

/// Reads one input line (without its newline).
pub fn read_line(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Skip;
    }
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(e) => return Line::Answer(error(Value::Null, -32700, &format!("Parse error: {e}"))),
    };
    let e = match serde_json::from_str::<RxJsonRpcMessage<RoleServer>>(text) {
        Ok(message) => return Line::Message(Box::new(message)),
        Err(e) => e,
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return Line::Answer(error(Value::Null, -32700, &format!("Parse error: {e}"))),
    };
    if value.get("method").is_some() && value.get("id").is_none() {
        return Line::Skip;
    }
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
        .unwrap_or(Value::Null);
    Line::Answer(error(id, -32600, &format!("Invalid Request: {e}")))
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// The server's side of a line-delimited JSON-RPC stream.
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line being read: kept across cancelled reads (rmcp polls `receive` in a `select!`).
    line: Vec<u8>,
    /// A reply of umbel's own not yet written, and how much of it was.
    answer: Option<(Vec<u8>, usize)>,
    write: Arc<Mutex<W>>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    pub fn new(read: R, write: W) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            answer: None,
            write: Arc::new(Mutex::new(write)),
        }
    }

    /// Writes the pending reply; cancel-safe (progress is kept in `self`).
    async fn write_answer(&mut self) -> io::Result<()> {
        let Some((bytes, mut done)) = self.answer.take() else {
            return Ok(());
        };
        let mut write = self.write.lock().await;
        while done < bytes.len() {
            self.answer = Some((bytes.clone(), done));
            done += write.write(&bytes[done..]).await?;
        }
        self.answer = None;
        write.flush().await
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let mut bytes = serde_json::to_vec(&item)?;
            bytes.push(b'\n');
            let mut write = write.lock().await;
            write.write_all(&bytes).await?;
            write.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.write_answer().await.ok()?;
            let read = self.read.read_until(b'\n', &mut self.line).await.ok()?;
            if read == 0 && self.line.is_empty() {
                return None;
            }
            let line = std::mem::take(&mut self.line);
            match read_line(line.strip_suffix(b"\n").unwrap_or(&line)) {
                Line::Message(message) => return Some(*message),
                Line::Answer(reply) => {
                    let mut bytes = reply.to_string().into_bytes();
                    bytes.push(b'\n');
                    self.answer = Some((bytes, 0));
                }
                Line::Skip => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write_answer().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &[u8]) -> Value {
        match read_line(line) {
            Line::Answer(v) => v,
            other => panic!("not answered: {other:?}"),
        }
    }

    #[test]
    fn lines_that_are_not_json_get_a_parse_error_with_a_null_id() {
        for bad in [&b"{not json"[..], b"{\"id\":1,\"x\":\"\xff\"}", b"\xfe\xff"] {
            let reply = answer(bad);
            assert_eq!(reply["error"]["code"], -32700, "{reply}");
            assert!(reply["id"].is_null());
        }
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_with_its_id() {
        assert_eq!(answer(br#"{"jsonrpc":"2.0","id":7}"#)["id"], 7);
        assert_eq!(
            answer(br#"{"jsonrpc":"2.0","id":7}"#)["error"]["code"],
            -32600
        );
        assert_eq!(answer(b"[1,2]")["id"], Value::Null);
        assert!(matches!(
            read_line(br#"{"method":"x/y","params":5}"#),
            Line::Skip
        ));
        assert!(matches!(read_line(b"  \r"), Line::Skip));
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert!(matches!(read_line(ping), Line::Message(_)));
    }
}
