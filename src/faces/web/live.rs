//! Live updates: one thread follows the fleet's events (what `umbel events -f --json` prints,
//! woken by inotify, no polling) and hands each, as a JSON line, to every open event stream
//! (`GET /events`, Server-Sent Events). The page script fetches what changed when an event
//! comes. At most [`MAX_STREAMS`] streams are open at once.

use super::App;
use crate::core::fleet_args::EventsArgs;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// What a stream that fell behind its events sends in place of those it lost.
const LAGGED: &str = r#"{"lagged":true}"#;

/// How many event streams may be open at once.
pub const MAX_STREAMS: usize = 64;
/// A comment line this often keeps a stream open through proxies.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The follower thread; dropping it stops the thread.
pub struct Follower {
    stop: Arc<AtomicBool>,
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Starts following the fleet's events into `app.events`.
pub fn follow(app: Arc<App>) -> Follower {
    let stop = Arc::new(AtomicBool::new(false));
    let mut ctx = app.ctx.clone();
    ctx.cancel = stop.clone();
    let sender = app.events.clone();
    let spawned = std::thread::Builder::new()
        .name("umbel-serve-events".into())
        .spawn(move || {
            let args = EventsArgs {
                follow: true,
                ..EventsArgs::default()
            };
            let sent = crate::operations::events::events(&ctx, &args, |event| {
                if let Ok(line) = serde_json::to_string(event) {
                    // No stream open: nobody to tell.
                    let _ = sender.send(line);
                }
            });
            if let Err(e) = sent {
                errln!(
                    "umbel serve: the fleet's events stopped: {e} (pages no longer update live)"
                );
            }
        });
    if let Err(e) = spawned {
        errln!("umbel serve: cannot follow the fleet's events: {e} (pages will not update live)");
    }
    Follower { stop }
}

/// Counts an open stream for as long as it lives.
struct Open(Arc<App>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.streams.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `GET /events`: the fleet's events as they happen, one SSE message each (`data:` the JSON of
/// `umbel events --json`).
pub async fn events(State(app): State<Arc<App>>) -> Response {
    if app.streams.fetch_add(1, Ordering::Relaxed) >= MAX_STREAMS {
        app.streams.fetch_sub(1, Ordering::Relaxed);
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "503: too many event streams open\n",
        )
            .into_response();
    }
    let open = Open(app.clone());
    let receiver = app.events.subscribe();
    let stop = app.stopping.subscribe();
    let state = (receiver, stop, open);
    let stream = futures_util::stream::unfold(state, |(mut receiver, mut stop, open)| async move {
        let line = tokio::select! {
            got = receiver.recv() => match got {
                Ok(line) => line,
                // Fell behind and lost some: a notice naming no worker, on which every page
                // fetches what it shows again.
                Err(RecvError::Lagged(_)) => LAGGED.to_string(),
                Err(RecvError::Closed) => return None,
            },
            // The server stops: the stream ends, so the shutdown need not wait for it.
            _ = stop.changed() => return None,
        };
        let event = Event::default().event("fleet").data(line);
        Some((Ok::<Event, Infallible>(event), (receiver, stop, open)))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response()
}
