//! The test client: `umbel mcp` as a child process in the sandbox under rmcp's client, with
//! the server's stderr captured and progress notifications recorded.

use crate::harness::*;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ProgressNotificationParam,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;
use tokio::io::AsyncReadExt;

/// The client side: records progress notifications, and resource notifications (each
/// `resources/updated` URI, and `"list_changed"` for a list change) in the order they came,
/// with when they came.
#[derive(Clone, Default)]
pub struct Client {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    resources: Arc<Mutex<Vec<(String, SystemTime)>>>,
}

impl ClientHandler for Client {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().expect("progress lock").push(params);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let mut seen = self.resources.lock().expect("resources lock");
        seen.push((params.uri, SystemTime::now()));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let mut seen = self.resources.lock().expect("resources lock");
        seen.push(("list_changed".to_string(), SystemTime::now()));
    }
}

/// A running `umbel mcp` and what it wrote on stderr.
pub struct Mcp {
    pub client: RunningService<RoleClient, Client>,
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    /// Resource notifications so far: updated URIs and `"list_changed"`.
    pub resources: Arc<Mutex<Vec<(String, SystemTime)>>>,
    stderr: Arc<Mutex<String>>,
}

impl Mcp {
    /// The server in this process, on one end of an in-memory pipe, over the sandbox's own
    /// context (no child process between the client and the verbs).
    pub async fn in_process(sb: &Sandbox) -> Mcp {
        let ctx = umbel::operations::Ctx::from_env(sb.env()).expect("context");
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            let _stop = stop;
            let server = umbel::faces::mcp::UmbelServer::new(ctx, stopped);
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        Mcp::connect(client_io, Arc::new(Mutex::new(String::new()))).await
    }

    pub async fn start(sb: &Sandbox) -> Mcp {
        let cmd = tokio::process::Command::from(sb.process(&["mcp"]));
        let (transport, stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::piped())
            .spawn()
            .expect("start umbel mcp");
        let log = Arc::new(Mutex::new(String::new()));
        if let Some(mut pipe) = stderr {
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let text = String::from_utf8_lossy(&buf[..n]);
                    log.lock().expect("log lock").push_str(&text);
                }
            });
        }
        Mcp::connect(transport, log).await
    }

    /// The client over `transport`, initialized; `stderr` collects the server's log.
    async fn connect<T, E, A>(transport: T, stderr: Arc<Mutex<String>>) -> Mcp
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
    {
        let handler = Client::default();
        let progress = handler.progress.clone();
        let resources = handler.resources.clone();
        let client = handler.serve(transport).await.expect("MCP initialize");
        Mcp {
            client,
            progress,
            resources,
            stderr,
        }
    }

    /// Calls a tool; a JSON-RPC error panics.
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        self.try_call(tool, args)
            .await
            .unwrap_or_else(|e| panic!("{tool}: {e}"))
    }

    pub async fn try_call(&self, tool: &str, args: Value) -> Result<CallToolResult, ServiceError> {
        self.client.call_tool(params(tool, args)).await
    }

    /// Calls a tool expecting success; returns its structured content.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args).await;
        assert_eq!(r.is_error, Some(false), "{tool} failed: {r:?}");
        r.structured_content.unwrap_or(Value::Null)
    }

    /// Calls a tool expecting an error result; returns its structured content.
    pub async fn err(&self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args).await;
        assert_eq!(r.is_error, Some(true), "{tool} should fail: {r:?}");
        match r.structured_content {
            Some(v) => v,
            None => panic!("{tool}: no structured content: {:?}", r.content),
        }
    }

    /// Spawns a fake claude worker in the sandbox's project, with extra `env` entries.
    pub async fn spawn(&self, sb: &Sandbox, name: &str, env: &[String]) {
        let args = json!({ "name": name, "cwd": sb.project, "env": env });
        let meta = self.ok("umbel_spawn", args).await;
        assert_eq!(meta["name"], name);
    }

    /// One turn of worker `name`: `umbel_send`, then `umbel_wait` from the position it gave,
    /// which must end with `stop`.
    pub async fn turn(&self, name: &str, prompt: &str) {
        let sent = self
            .ok("umbel_send", json!({ "name": name, "prompt": prompt }))
            .await;
        let since = sent["position"].as_u64().expect("position");
        let args = json!({ "name": name, "since": since, "timeout": "60s" });
        assert_eq!(self.ok("umbel_wait", args).await["outcome"], "stop");
    }

    pub fn log(&self) -> String {
        self.stderr.lock().expect("log lock").clone()
    }
}

pub fn params(tool: &str, args: Value) -> CallToolRequestParams {
    let args = args.as_object().cloned().unwrap_or_default();
    CallToolRequestParams::new(tool.to_string()).with_arguments(args)
}

/// A worker whose turns never end.
pub fn wedged(sb: &Sandbox) -> Vec<String> {
    vec![sb.scenario("wedge", sim::wedge())]
}

pub fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

pub fn message(v: &Value) -> &str {
    v["error"]["message"].as_str().unwrap_or("")
}
