//! `umbel acp` on the fakes, driven by the SDK's client side: how long after the CLI wrote its
//! answer to its transcript the editor has the first message chunk, how long after the last
//! chunk the prompt's response (`stopReason`) comes, and the CPU of an `umbel acp` holding an
//! idle session.

use crate::acp::{Heard, connect, prompt};
use crate::harness::Sandbox;
use crate::ms;
use crate::perf::Row;
use agent_client_protocol::v1::schema::{
    NewSessionRequest, PromptResponse, SessionUpdate, StopReason,
};
use serde_json::json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// Turns measured per CLI.
const TURNS: usize = 20;
/// How long the idle server is watched.
const IDLE: Duration = Duration::from_secs(5);
/// The CLIs whose transcript has the answer as the turn runs (gemini and opencode write it at
/// the turn's end: their first chunk is their last).
const PROVIDERS: [&str; 3] = ["claude", "codex", "qwen"];

/// The figures, with summary rows.
pub fn figures() -> Vec<Row> {
    let mut rows = Vec::new();
    for provider in PROVIDERS {
        rows.extend(turns(provider));
    }
    rows.push(idle_cpu());
    rows
}

/// One CLI: [`TURNS`] prompts, each answer written 300 ms into the turn.
fn turns(provider: &str) -> Vec<Row> {
    let sb = Sandbox::new();
    let reply = "The answer, measured.";
    let scenario = sb.scenario(
        "acp",
        json!({ "default": { "reply": reply, "delay_ms": 300 } }),
    );
    let args = ["acp", "--provider", provider, "--env", scenario.as_str()];
    let (mut after_write, mut to_response) = (Vec::new(), Vec::new());
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let mut child = start(&sb, &args);
        let streams = agent_client_protocol::ByteStreams::new(
            child.stdin.take().expect("stdin").compat_write(),
            child.stdout.take().expect("stdout").compat(),
        );
        let project = sb.project.clone();
        connect(streams, async |cx, mut heard| {
            let new = cx.send_request(NewSessionRequest::new(project));
            let id = new.block_task().await.expect("session/new").session_id;
            let mut transcript = None;
            for turn in 0..=TURNS {
                let watch = transcript.clone().map(|path| Written::watch(path, reply));
                let sent = cx.send_request(prompt(&id, &format!("turn {turn}")));
                let (first, last, ended) =
                    heard_until_response(&mut heard, sent.block_task()).await;
                if let (Some(watch), Some(first), Some(last)) = (watch, first, last) {
                    if let Some(written) = watch.stop() {
                        after_write.push(first.saturating_duration_since(written));
                    }
                    to_response.push(ended.saturating_duration_since(last));
                }
                // Known once the first turn made it.
                transcript = transcript.or_else(|| transcript_of(&sb, id.0.as_ref()));
            }
        })
        .await;
        drop(child.kill().await);
    });
    let _ = sb.run(&["kill", "--all", "--purge"]);
    let (write, end) = (p50(&mut after_write), p50(&mut to_response));
    println!(
        "acp {provider}: transcript written → first chunk p50 {:.1} ms, last chunk → stopReason p50 {:.1} ms ({} turns)",
        ms(write),
        ms(end),
        after_write.len()
    );
    vec![
        Row {
            figure: format!("acp {provider}: transcript written → first chunk (p50)"),
            value: format!("{:.1} ms", ms(write)),
            goal: "< 20 ms",
        },
        Row {
            figure: format!("acp {provider}: last chunk → stopReason (p50)"),
            value: format!("{:.1} ms", ms(end)),
            goal: "< 20 ms",
        },
    ]
}

/// `umbel ARGS` in the sandbox with piped stdio.
fn start(sb: &Sandbox, args: &[&str]) -> tokio::process::Child {
    let mut command = tokio::process::Command::from(sb.process(args));
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    command.spawn().expect("umbel acp starts")
}

/// When the first and the last message chunk came, and the response, for prompt `sent`.
async fn heard_until_response(
    heard: &mut mpsc::UnboundedReceiver<Heard>,
    response: impl Future<Output = Result<PromptResponse, agent_client_protocol::Error>>,
) -> (Option<Instant>, Option<Instant>, Instant) {
    let (mut first, mut last) = (None, None);
    tokio::pin!(response);
    loop {
        tokio::select! {
            ended = &mut response => {
                let ended_at = Instant::now();
                assert_eq!(ended.expect("the prompt").stop_reason, StopReason::EndTurn);
                // Chunks sent before the response but not taken yet.
                while let Ok(h) = heard.try_recv() {
                    if is_chunk(&h) {
                        last = Some(ended_at);
                    }
                }
                return (first, last, ended_at);
            }
            Some(h) = heard.recv() => {
                if is_chunk(&h) {
                    let now = Instant::now();
                    first.get_or_insert(now);
                    last = Some(now);
                }
            }
        }
    }
}

fn is_chunk(heard: &Heard) -> bool {
    matches!(heard, Heard::Update(n) if matches!(n.update, SessionUpdate::AgentMessageChunk(_)))
}

/// The worker's transcript, as `status` says.
fn transcript_of(sb: &Sandbox, name: &str) -> Option<PathBuf> {
    let out = sb.run(&["status", name, "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let status = status.get(0).unwrap_or(&status);
    status["transcriptPath"].as_str().map(PathBuf::from)
}

/// A thread looking at a transcript every millisecond for the moment `text` is in it.
struct Written {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Option<Instant>>>,
    thread: std::thread::JoinHandle<()>,
}

impl Written {
    fn watch(path: PathBuf, text: &'static str) -> Self {
        let start = std::fs::metadata(&path).map_or(0, |m| m.len() as usize);
        let (stop, seen) = (Arc::new(AtomicBool::new(false)), Arc::new(Mutex::new(None)));
        let (stopped, saw) = (stop.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                let now = std::fs::read(&path).unwrap_or_default();
                let new = now.get(start..).unwrap_or_default();
                if String::from_utf8_lossy(new).contains(text) {
                    *saw.lock().expect("lock") = Some(Instant::now());
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        Written { stop, seen, thread }
    }

    /// When the text was written, if it was.
    fn stop(self) -> Option<Instant> {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
        *self.seen.lock().expect("lock")
    }
}

/// `umbel acp` holding one idle session, its CPU over [`IDLE`] (from /proc).
fn idle_cpu() -> Row {
    let sb = Sandbox::new();
    let scenario = sb.scenario("idle", json!({ "default": { "reply": "Here." } }));
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let share = runtime.block_on(async {
        let mut child = start(&sb, &["acp", "--env", &scenario]);
        let pid = child.id().expect("a pid");
        let streams = agent_client_protocol::ByteStreams::new(
            child.stdin.take().expect("stdin").compat_write(),
            child.stdout.take().expect("stdout").compat(),
        );
        let project = sb.project.clone();
        let share = connect(streams, async |cx, _heard| {
            let new = cx.send_request(NewSessionRequest::new(project));
            let id = new.block_task().await.expect("session/new").session_id;
            let ended = cx.send_request(prompt(&id, "hi")).block_task().await;
            assert_eq!(ended.expect("prompt").stop_reason, StopReason::EndTurn);
            tokio::time::sleep(Duration::from_millis(500)).await;
            let before = cpu_ticks(pid);
            tokio::time::sleep(IDLE).await;
            let used = cpu_ticks(pid).saturating_sub(before);
            used as f64 / ticks_per_second() / IDLE.as_secs_f64()
        })
        .await;
        drop(child.kill().await);
        share
    });
    let _ = sb.run(&["kill", "--all", "--purge"]);
    println!(
        "acp: CPU of an idle `umbel acp` holding a session, {} s: {:.2}% of a core",
        IDLE.as_secs(),
        share * 100.0
    );
    Row {
        figure: "acp: CPU of an idle `umbel acp` with a session".into(),
        value: format!("{:.2}% of a core", share * 100.0),
        goal: "< 1%",
    }
}

/// User and system CPU of process `pid` so far, in clock ticks (/proc/PID/stat).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let at = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    at(11) + at(12)
}

fn ticks_per_second() -> f64 {
    rustix::param::clock_ticks_per_second() as f64
}

fn p50(values: &mut [Duration]) -> Duration {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}
