//! `umbel mcp`: the verbs as MCP tools, served over stdio with `rmcp` until stdin closes, and
//! the workers as resources a client can subscribe to (`resources.rs`, `feed.rs`).
//!
//! stdout carries the protocol, so everything umbel says goes to stderr. The [`Ctx`] is the
//! one the CLI built from the process environment; each tool call runs the blocking verb on its
//! own thread with its own cancel flag (`run.rs`). Results follow `reply.rs`: structured
//! content is the JSON the CLI's `--json` prints, and failures are tool results with
//! `isError: true`, never JSON-RPC errors (bar an unknown tool name and unreadable request params,
//! `protocol.rs`). The end of stdin or a
//! Ctrl-C interrupts the calls still running (workers are left as they are) and ends the server.
//! The user-facing description is docs/mcp.md.
//!
//! Try it by hand: `npx @modelcontextprotocol/inspector --cli umbel mcp --method tools/list`.

// The error side of the tools' `Result<_, CallToolResult>` is the reply itself, built once per
// call and sent as is: boxing it would buy nothing.
#![allow(clippy::result_large_err)]

mod annotations;
mod feed;
mod help;
mod protocol;
mod reply;
mod reply_turns;
mod resource_calls;
mod resources;
mod run;
mod server;
mod server_park;
mod server_turns;
mod stdin;
mod transport;

pub use help::{HelpArgs, INSTRUCTIONS, TOPICS};
pub use server::UmbelServer;

use crate::operations::Ctx;
use rmcp::ServiceExt;
use rmcp::service::{QuitReason, ServerInitializeError};
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::watch;

/// How long blocking calls get to notice the shutdown before the process exits anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// How often the server checks whether Ctrl-C was pressed (the CLI's SIGINT flag).
const SIGINT_POLL: Duration = Duration::from_millis(250);

/// Serves MCP on stdin/stdout; returns the exit status (0 when stdin closed, 130 on Ctrl-C).
pub fn serve(ctx: &Ctx) -> u8 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("umbel-mcp")
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            errln!("umbel: cannot start the MCP server's runtime: {e}");
            return 1;
        }
    };
    let code = runtime.block_on(serve_stdio(ctx.clone()));
    // The stdin reader and any verb still running sit on blocking threads; do not wait on them.
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    code
}

async fn serve_stdio(ctx: Ctx) -> u8 {
    let interrupted = ctx.cancel.clone();
    let (stop, stopped) = watch::channel(false);
    let server = UmbelServer::new(ctx, stopped);
    let stdio =
        transport::LineTransport::new(stdin::WatchedStdin::new(stop.clone()), tokio::io::stdout());
    let service = match server.serve(stdio).await {
        Ok(service) => service,
        Err(ServerInitializeError::ConnectionClosed(_)) => return 0,
        Err(e) => {
            errln!("umbel: MCP session did not start: {e}");
            return 1;
        }
    };
    // Ctrl-C sets the CLI's cancel flag; then interrupt the calls and end the session (a second
    // Ctrl-C exits at once).
    let session = service.cancellation_token();
    let flag = interrupted.clone();
    let on_sigint = stop.clone();
    let watcher = tokio::spawn(async move {
        while !flag.load(Ordering::Relaxed) {
            tokio::time::sleep(SIGINT_POLL).await;
        }
        on_sigint.send_replace(true);
        session.cancel();
    });
    let quit = service.waiting().await;
    watcher.abort();
    // Interrupt whatever is still running: a wait must not outlive its server.
    stop.send_replace(true);
    match quit {
        Ok(_) if interrupted.load(Ordering::Relaxed) => 130,
        Ok(QuitReason::Closed | QuitReason::Cancelled) => 0,
        Ok(reason) => {
            errln!("umbel: MCP session ended: {reason:?}");
            1
        }
        Err(e) => {
            errln!("umbel: MCP session failed: {e}");
            1
        }
    }
}
