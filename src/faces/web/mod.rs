//! `umbel serve`: the fleet in a browser. An HTTP server (axum on tokio) over the same
//! operations as the CLI and MCP: a fleet page, a page per worker (its turns, its screen, its
//! pending approval, forms to send, interrupt, approve, deny, park, resume and kill), live
//! updates over Server-Sent Events from the fleet's event stream, and every asset served by
//! umbel itself — server-rendered HTML that works without JavaScript, no build step, no CDN.
//!
//! Every request needs the access token printed at start (`?token=` once, then a cookie, or
//! `Authorization: Bearer`): without it 401 and nothing else ([`guard`]). Forms that change
//! something are POSTs carrying a CSRF token, from this server's own origin. A worker's
//! environment never reaches a page. The user-facing description is docs/web.md.

mod assets;
mod calls;
mod guard;
mod live;
mod pages;
mod pages_worker;
mod posts;
mod routes;

pub use routes::ROUTES;

use crate::core::errors::{Error, Result};
use crate::core::serve_args::ServeArgs;
use crate::operations::Ctx;
use crate::operations::fleet::Fleet;
use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast;

/// How long blocking calls get to notice the shutdown before the process exits anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// How often the server checks whether Ctrl-C or SIGTERM arrived (the CLI's stop flag).
const SIGNAL_POLL: Duration = Duration::from_millis(200);

/// What every request handler shares.
pub struct App {
    /// umbel's context (the state root, tmux); each blocking call gets a clone.
    pub ctx: Ctx,
    /// The access token.
    pub token: String,
    /// The CSRF token forms carry ([`crate::core::web_guard::csrf_of`]).
    pub csrf: String,
    /// The cookie that carries the token ([`crate::core::web_guard::cookie_name`]).
    pub cookie: String,
    /// Whether the server listens on loopback (then the `Host` must name loopback too).
    pub loopback: bool,
    /// Wrong tokens per address.
    pub failures: Mutex<crate::core::web_guard::Failures>,
    /// The fleet as last looked at (a look re-reads only what grew).
    pub fleet: Mutex<Fleet>,
    /// The fleet's events, one JSON line each, for the event streams.
    pub events: broadcast::Sender<String>,
    /// Event streams open now.
    pub streams: std::sync::atomic::AtomicUsize,
    /// Set once the server stops: the open event streams end (a graceful shutdown waits for
    /// every connection, and an event stream would never end by itself).
    pub stopping: tokio::sync::watch::Sender<bool>,
}

/// Serves until Ctrl-C or SIGTERM; returns the exit status (0).
pub fn serve(ctx: &Ctx, args: &ServeArgs) -> Result<u8> {
    let address = args.address()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("umbel-serve")
        .build()
        .map_err(|e| Error::usage(format!("cannot start the web server's runtime: {e}")))?;
    let code = runtime.block_on(run(ctx.clone(), address));
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    code
}

/// A fresh access token: 244 random bits, hex.
fn new_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

async fn run(ctx: Ctx, address: SocketAddr) -> Result<u8> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| Error::usage(format!("cannot listen on {address}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::usage(format!("cannot read the address listened on: {e}")))?;
    let token = new_token();
    let app = Arc::new(App {
        csrf: crate::core::web_guard::csrf_of(&token),
        token,
        cookie: crate::core::web_guard::cookie_name(bound.port()),
        loopback: bound.ip().is_loopback(),
        failures: Mutex::default(),
        fleet: Mutex::default(),
        events: broadcast::channel(1024).0,
        streams: Default::default(),
        stopping: tokio::sync::watch::channel(false).0,
        ctx,
    });
    announce(&app, bound);
    let follower = live::follow(app.clone());
    let router = routes::router(app.clone());
    let mut stopping = app.stopping.subscribe();
    let serving = axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        let _ = stopping.wait_for(|stop| *stop).await;
    })
    .into_future();
    tokio::pin!(serving);
    let served = tokio::select! {
        served = &mut serving => served,
        () = signalled(&app) => {
            // The event streams end; a request still running a long verb gets a moment.
            app.stopping.send_replace(true);
            tokio::time::timeout(SHUTDOWN_GRACE, &mut serving)
                .await
                .unwrap_or(Ok(()))
        }
    };
    drop(follower);
    served.map_err(|e| Error::usage(format!("the web server failed: {e}")))?;
    Ok(0)
}

/// Returns once Ctrl-C or SIGTERM set the CLI's stop flag.
async fn signalled(app: &App) {
    while !app.ctx.cancel.load(std::sync::atomic::Ordering::Relaxed) {
        tokio::time::sleep(SIGNAL_POLL).await;
    }
}

/// The URL with the token on stdout's first line (what a person opens, what a script reads);
/// the rest on stderr, loudly when the address is not loopback.
fn announce(app: &App, bound: SocketAddr) {
    super::output::outln(&format!("http://{bound}/?token={}", app.token));
    if !app.loopback {
        errln!(
            "umbel serve: WARNING: listening on {bound}, reachable from the network. Every page \
             still needs the token, but the traffic is plain HTTP: prefer 127.0.0.1 behind \
             `ssh -L` or a tunnel (docs/web.md)."
        );
    }
    errln!(
        "umbel serve: serving the workers of {} on http://{bound}/ (Ctrl-C stops)",
        app.ctx.state.path().display()
    );
}
