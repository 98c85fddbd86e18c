//! Just enough HTTP/1.1 for the three CLIs: requests with a `content-length` (or chunked) body,
//! JSON answers on a kept-alive connection, and server-sent event streams that close it.

use std::io::{BufRead, Read, Write};

/// One request.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Header names lower-cased, with values.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the next request; `None` when the client closed the connection.
pub fn read_request(r: &mut impl BufRead) -> std::io::Result<Option<Request>> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (method, path) = (method.to_string(), path.to_string());
    let mut headers = Vec::new();
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let mut req = Request {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    if req
        .header("transfer-encoding")
        .is_some_and(|v| v.contains("chunked"))
    {
        req.body = read_chunked(r)?;
    } else if let Some(n) = req.header("content-length").and_then(|v| v.parse().ok()) {
        let mut body = vec![0; n];
        r.read_exact(&mut body)?;
        req.body = body;
    }
    Ok(Some(req))
}

fn read_chunked(r: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        r.read_line(&mut line)?;
        let size =
            usize::from_str_radix(line.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
        if size == 0 {
            line.clear();
            r.read_line(&mut line)?;
            return Ok(body);
        }
        let mut chunk = vec![0; size + 2];
        r.read_exact(&mut chunk)?;
        chunk.truncate(size);
        body.extend(chunk);
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Error",
    }
}

/// A JSON answer; the connection stays open.
pub fn json(out: &mut impl Write, status: u16, value: &serde_json::Value) -> std::io::Result<()> {
    let body = value.to_string();
    write!(
        out,
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        reason(status),
        body.len()
    )?;
    out.flush()
}

/// Starts an event stream; the connection closes when it ends.
pub fn sse_start(out: &mut impl Write) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"
    )?;
    out.flush()
}

/// One event (`event:` line only when named), flushed at once.
pub fn sse(
    out: &mut impl Write,
    event: Option<&str>,
    data: &serde_json::Value,
) -> std::io::Result<()> {
    if let Some(event) = event {
        writeln!(out, "event: {event}")?;
    }
    write!(out, "data: {data}\n\n")?;
    out.flush()
}

/// Holds a stream open, sending nothing, until the client hangs up (a wedged model).
pub fn hold(out: &mut std::net::TcpStream) {
    let mut byte = [0u8; 1];
    let _ = out.set_read_timeout(None);
    let _ = out.read(&mut byte);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_with_length_and_chunked_bodies() {
        let raw = b"POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nX-Api-Key: s\r\n\r\n{}POST /b HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        let mut r = std::io::BufReader::new(&raw[..]);
        let a = read_request(&mut r).unwrap().unwrap();
        assert_eq!(
            (a.method.as_str(), a.path.as_str()),
            ("POST", "/v1/messages?beta=true")
        );
        assert_eq!(a.body, b"{}");
        assert_eq!(a.header("x-api-key"), Some("s"));
        let b = read_request(&mut r).unwrap().unwrap();
        assert_eq!(b.body, b"abcde");
        assert!(read_request(&mut r).unwrap().is_none());
    }
}
