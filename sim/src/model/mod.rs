//! `fake-model`: a model server on 127.0.0.1 that the REAL claude, codex and gemini CLIs talk to
//! (Anthropic Messages, OpenAI Responses, Gemini generateContent, all streamed) and the REAL qwen
//! (OpenAI Chat Completions, streamed), scripted by the
//! same [`Scenario`](crate::scenario::Scenario) the fake CLIs play. It lets the offline test tier
//! run the pinned npm CLIs with real TUIs, dialogs, hooks and transcripts and no account.
//!
//! ```text
//! fake-model --port 0 [--scenario FILE_OR_JSON] [--log FILE] [--port-file FILE] [--lifetime SECS]
//! ```
//! The port is printed alone on the first stdout line (and written to `--port-file`, atomically,
//! once the socket listens). A scenario FILE is read again whenever it changes. `docs/fake-model.md`
//! says how each scenario `end` looks in each wire format.

mod anthropic;
mod chat;
mod format;
mod gemini;
mod http;
mod openai;
mod plan;
mod prompt;

use crate::scenario::{Scenario, Script};
use http::Request;
use plan::Answer;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// The command line.
#[derive(Debug, Default)]
struct Options {
    port: u16,
    scenario: Option<String>,
    log: Option<PathBuf>,
    port_file: Option<PathBuf>,
    lifetime: Option<u64>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--port" => o.port = value()?.parse().map_err(|e| format!("--port: {e}"))?,
            "--scenario" => o.scenario = Some(value()?),
            "--log" => o.log = Some(value()?.into()),
            "--port-file" => o.port_file = Some(value()?.into()),
            "--lifetime" => {
                o.lifetime = Some(value()?.parse().map_err(|e| format!("--lifetime: {e}"))?)
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(o)
}

const USAGE: &str = "usage: fake-model --port 0 [--scenario FILE_OR_JSON] [--log FILE] [--port-file FILE] [--lifetime SECS]";

/// The scenario being played, reloaded when its file changes.
struct Stage {
    source: Option<String>,
    stamp: Option<(SystemTime, u64)>,
    script: Script,
    /// A turn whose tool call went out, answered when its result comes back (per wire format).
    after_tool: [Option<plan::Turn>; format::FORMATS],
    memo: plan::Memo,
}

impl Stage {
    fn refresh(&mut self) -> Result<(), String> {
        let Some(source) = self.source.clone() else {
            return Ok(());
        };
        if source.trim_start().starts_with('{') {
            return Ok(());
        }
        let meta = std::fs::metadata(&source).map_err(|e| format!("{source}: {e}"))?;
        let stamp = (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
        );
        if self.stamp != Some(stamp) {
            self.script = Script::new(Scenario::load(&source)?);
            self.after_tool = Default::default();
            self.memo = Default::default();
            self.stamp = Some(stamp);
        }
        Ok(())
    }
}

/// A fresh number for the ids in answers (deterministic: counts from 1).
pub(crate) fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

struct Shared {
    stage: Mutex<Stage>,
    log: Option<Mutex<std::fs::File>>,
}

/// Runs the server; returns the exit status.
pub fn main() -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fake-model: {e}");
            return 2;
        }
    };
    match serve(opts) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("fake-model: {e}");
            1
        }
    }
}

fn serve(opts: Options) -> Result<(), String> {
    let script = match &opts.scenario {
        Some(s) => Script::new(Scenario::load(s)?),
        None => Script::new(Scenario::default()),
    };
    let log = match &opts.log {
        Some(path) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("{}: {e}", path.display()))?,
        )),
        None => None,
    };
    let mut stage = Stage {
        source: opts.scenario.clone(),
        stamp: None,
        script,
        after_tool: Default::default(),
        memo: Default::default(),
    };
    stage.refresh()?;
    let shared = Arc::new(Shared {
        stage: Mutex::new(stage),
        log,
    });
    let listener = TcpListener::bind(("127.0.0.1", opts.port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", opts.port))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    if let Some(path) = &opts.port_file {
        let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
        std::fs::write(&tmp, format!("{port}\n"))
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    println!("{port}");
    let _ = std::io::stdout().flush();
    if let Some(secs) = opts.lifetime {
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(secs));
            std::process::exit(0);
        });
    }
    for stream in listener.incoming().flatten() {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || connection(stream, &shared));
    }
    Ok(())
}

/// Serves one connection: requests until the client closes it or a stream ends it.
fn connection(mut stream: TcpStream, shared: &Shared) {
    let mut reader = match stream.try_clone() {
        Ok(s) => std::io::BufReader::new(s),
        Err(_) => return,
    };
    while let Ok(Some(request)) = http::read_request(&mut reader) {
        let close = request.header("connection") == Some("close");
        let keep = handle(&mut stream, &request, shared).unwrap_or(false);
        if !keep || close {
            return;
        }
    }
}

/// Answers one request; `Ok(true)` when the connection may carry another.
fn handle(out: &mut TcpStream, req: &Request, shared: &Shared) -> std::io::Result<bool> {
    let body: serde_json::Value = serde_json::from_slice(&req.body).unwrap_or_default();
    let format = format::Format::of(&req.path);
    let count = req.path.contains("count_tokens") || req.path.contains(":countTokens");
    let answer = match format {
        Some(format) => {
            let seen = prompt::read(format, &body);
            let mut stage = match shared.stage.lock() {
                Ok(s) => s,
                Err(p) => p.into_inner(),
            };
            if let Err(e) = stage.refresh() {
                eprintln!("fake-model: {e}");
            }
            let stage = &mut *stage;
            let (script, after, memo) = (&mut stage.script, &mut stage.after_tool, &mut stage.memo);
            plan::answer(format, &seen, script, after, memo, count)
        }
        None => Answer::NotFound,
    };
    log(shared, req, &answer.kind(format), &body);
    match format {
        Some(format::Format::Anthropic) => anthropic::send(out, req, &body, &answer),
        Some(format::Format::OpenAi) => openai::send(out, &body, &answer),
        Some(format::Format::Gemini) => gemini::send(out, req, &answer),
        Some(format::Format::Chat) => chat::send(out, &body, &answer),
        None if req.path.contains("models") => {
            let empty = serde_json::json!({"data": [], "models": [], "object": "list"});
            http::json(out, 200, &empty).map(|()| true)
        }
        None => http::json(
            out,
            404,
            &serde_json::json!({"error": {"message": "not found"}}),
        )
        .map(|()| true),
    }
}

/// One JSON line per request: header names only, never their values.
fn log(shared: &Shared, req: &Request, kind: &str, body: &serde_json::Value) {
    let Some(file) = &shared.log else {
        return;
    };
    let ts = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let entry = serde_json::json!({
        "ts": ts,
        "method": req.method,
        "path": req.path,
        "ua": req.header("user-agent"),
        "headers": req.headers.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        "kind": kind,
        "body": body,
    });
    if let Ok(mut f) = file.lock() {
        let _ = writeln!(f, "{entry}");
    }
}
