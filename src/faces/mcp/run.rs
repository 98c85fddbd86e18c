//! Running one blocking verb for one tool call. The verbs block (tmux calls, inotify waits), so
//! each call runs on tokio's blocking pool with its own copy of the [`Ctx`] and its own cancel
//! flag: calls on different workers proceed side by side, and cancelling one request (or
//! shutting the server down) stops only the calls concerned. While it runs, a call whose client
//! sent a progress token gets a progress notification about once a second.

use super::reply;
use crate::core::errors::{Error, Result};
use crate::operations::Ctx;
use rmcp::RoleServer;
use rmcp::model::{CallToolResult, ProgressNotificationParam};
use rmcp::service::RequestContext;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::{Instant, MissedTickBehavior, interval_at};

/// How often a long call reports progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// One tool call about to run.
pub struct Call<'a> {
    /// The server's context, cloned for the call.
    pub base: &'a Ctx,
    /// Flips to `true` when the server stops.
    pub shutdown: &'a watch::Receiver<bool>,
    /// The MCP request: its cancellation token, progress token and peer.
    pub request: &'a RequestContext<RoleServer>,
    /// The tool's name, for messages.
    pub tool: &'static str,
    /// Report progress (when the client asked for it) while the call runs.
    pub progress: Option<String>,
}

impl Call<'_> {
    /// Runs `job` on the blocking pool. A verb's error or a panic comes back as the error
    /// result to send.
    pub async fn run<T, F>(self, job: F) -> Result<T, CallToolResult>
    where
        T: Send + 'static,
        F: FnOnce(&Ctx) -> Result<T> + Send + 'static,
    {
        let flag = Arc::new(AtomicBool::new(false));
        let mut ctx = self.base.clone();
        ctx.cancel = flag.clone();
        let mut handle = tokio::task::spawn_blocking(move || job(&ctx));

        let token = self
            .progress
            .as_ref()
            .and_then(|_| self.request.meta.get_progress_token());
        let started = Instant::now();
        let mut ticks = interval_at(started + PROGRESS_EVERY, PROGRESS_EVERY);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Skip);
        let mut shutdown = self.shutdown.clone();
        let mut stopping: Option<&str> = None;

        let joined = loop {
            tokio::select! {
                joined = &mut handle => break joined,
                () = self.request.ct.cancelled(), if stopping.is_none() => {
                    stopping = Some("cancelled by the client");
                    flag.store(true, Ordering::Relaxed);
                }
                () = stopped(&mut shutdown), if stopping.is_none() => {
                    // Also reached when the sender is gone: the server is ending either way.
                    stopping = Some("stopped with the server");
                    flag.store(true, Ordering::Relaxed);
                }
                _ = ticks.tick(), if token.is_some() && stopping.is_none() => {
                    if let (Some(token), Some(label)) = (&token, &self.progress) {
                        let secs = started.elapsed().as_secs();
                        let param = ProgressNotificationParam::new(token.clone(), secs as f64)
                            .with_message(format!("{label}: {secs}s"));
                        // A client that went away is noticed by the serve loop, not here.
                        let _ = self.request.peer.notify_progress(param).await;
                    }
                }
            }
        };
        if let (Some(why), Ok(Err(Error::Interrupted))) = (stopping, &joined) {
            errln!("umbel: {} {why}; the worker is left as it was", self.tool);
        }
        match joined {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => Err(reply::error(&err)),
            Err(join) => Err(reply::internal(format!(
                "{} failed inside umbel: {join} (this is a bug in umbel)",
                self.tool
            ))),
        }
    }
}

/// Resolves once the server stops (or its stop signal is gone).
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

/// The `umbel_send` prompt: required, and taken as the text itself (MCP has no standard input).
pub fn required_prompt(prompt: Option<String>) -> Result<Vec<u8>> {
    match prompt {
        Some(p) if p != "-" => Ok(p.into_bytes()),
        _ => Err(Error::usage(
            "umbel_send needs `prompt`: the text to send (MCP has no standard input, so `-` and \
             an omitted prompt cannot be read)",
        )),
    }
}
