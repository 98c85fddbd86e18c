//! A client of `umbel serve` for the tests and the benches: starts the server in a sandbox,
//! reads its URL line, and speaks just enough HTTP/1.1 (one request per connection).

use crate::harness::Sandbox;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A running `umbel serve` and what its first line said.
pub struct Server {
    pub child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    pub token: String,
}

impl Server {
    pub fn start(sb: &Sandbox) -> Server {
        let mut child = sb
            .process(&["serve", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start umbel serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the URL line");
        let url = line.trim().strip_prefix("http://").expect("an http URL");
        let (addr, query) = url.split_once("/?token=").expect("the token in the URL");
        Server {
            child,
            addr: addr.to_string(),
            token: query.to_string(),
        }
    }

    pub fn cookie(&self) -> String {
        let port = self.addr.rsplit(':').next().unwrap_or("");
        format!("umbel_token_{port}={}", self.token)
    }

    /// One request; the status, the headers (lower-case names) and the body.
    pub fn call(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        http(&self.addr, method, path, headers, body)
    }

    /// A GET with the cookie.
    pub fn get(&self, path: &str) -> Reply {
        self.call("GET", path, &[("Cookie", &self.cookie())], "")
    }

    /// A POST from this server's own page: cookie, CSRF token, its own origin.
    pub fn post(&self, path: &str, form: &[(&str, &str)]) -> Reply {
        let csrf = csrf_of(&self.get("/").body);
        let mut pairs = form.to_vec();
        pairs.push(("csrf", &csrf));
        let origin = format!("http://{}", self.addr);
        let headers = [("Cookie", self.cookie()), ("Origin", origin)];
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.call("POST", path, &headers, &encode(&pairs))
    }

    /// SIGTERM, and its exit status.
    pub fn stop(mut self) -> Option<i32> {
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("umbel serve did not stop within 10 s of SIGTERM");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

pub fn encode(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", url_encode(k), url_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The CSRF token a page carries.
pub fn csrf_of(page: &str) -> String {
    let at = page
        .find("name=\"csrf\" content=\"")
        .expect("the csrf meta")
        + 21;
    page[at..at + 64].to_string()
}

pub fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    if method == "POST" {
        request.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
        request.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_string(),
    }
}
