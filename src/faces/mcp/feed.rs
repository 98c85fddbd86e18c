//! The change feed behind resource subscriptions: one thread follows the fleet as
//! `umbel events -f` does (the same [`Stream`] over the same inotify [`FleetWatch`]; no timer
//! but a 30 s safety net) and turns each state change into `notifications/resources/updated`
//! for the subscribed URIs it touches, and a worker coming or going into
//! `notifications/resources/list_changed`.
//!
//! Two ways to subscribe, one per protocol: `resources/subscribe` (up to 2025-11-25; the
//! notifications go to the session's peer) and `subscriptions/listen` (2026-07-28; each listen
//! gets its own sink, which carries only what it accepted). The feed starts at the first
//! resources request or subscription and ends with the server.

use super::resources;
use crate::adapters::fleet_watch::FleetWatch;
use crate::core::args::EventsArgs;
use crate::core::name::WorkerName;
use crate::operations::Ctx;
use crate::operations::events::Stream;
use rmcp::RoleServer;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, SubscriptionContext, SubscriptionSendError, SubscriptionSink};
use std::collections::BTreeSet;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc as tokio_mpsc, watch};

/// The look at the fleet when no change woke the feed for this long (a missed inotify event).
const SAFETY_NET: Duration = Duration::from_secs(30);

/// What the feed thread tells the session.
#[derive(Debug, PartialEq)]
pub enum Notice {
    /// These resources changed.
    Updated(Vec<String>),
    /// A worker came or went.
    ListChanged,
}

/// What wakes the feed thread.
enum Wake {
    Change,
    Stop,
}

/// Who is told what.
#[derive(Default)]
struct Listeners {
    /// The legacy session's peer, once it asked anything about resources.
    legacy: Option<Peer<RoleServer>>,
    /// URIs subscribed with `resources/subscribe`.
    subscribed: BTreeSet<String>,
    /// Open `subscriptions/listen` streams.
    listens: Vec<SubscriptionSink>,
}

/// The session's change feed.
pub struct Feed {
    ctx: Ctx,
    shutdown: watch::Receiver<bool>,
    listeners: Mutex<Listeners>,
    /// Turns `true` once the feed took its first look (what happens after that is news).
    ready: watch::Receiver<bool>,
    ready_tx: Mutex<Option<watch::Sender<bool>>>,
}

impl Feed {
    pub fn new(ctx: Ctx, shutdown: watch::Receiver<bool>) -> Arc<Feed> {
        let (ready_tx, ready) = watch::channel(false);
        Arc::new(Feed {
            ctx,
            shutdown,
            listeners: Mutex::new(Listeners::default()),
            ready,
            ready_tx: Mutex::new(Some(ready_tx)),
        })
    }

    fn listeners(&self) -> MutexGuard<'_, Listeners> {
        self.listeners
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A legacy session asked about resources: it hears of workers coming and going from now.
    pub async fn legacy_session(self: &Arc<Self>, peer: &Peer<RoleServer>) {
        self.listeners().legacy.get_or_insert_with(|| peer.clone());
        self.start().await;
    }

    /// `resources/subscribe`: every change after it returns is told.
    pub async fn subscribe(self: &Arc<Self>, uri: String, peer: &Peer<RoleServer>) {
        self.listeners().subscribed.insert(uri);
        self.legacy_session(peer).await;
    }

    /// `resources/unsubscribe`.
    pub fn unsubscribe(&self, uri: &str) {
        self.listeners().subscribed.remove(uri);
    }

    /// `subscriptions/listen`: delivers to this stream until the client cancels it.
    pub async fn listen(self: &Arc<Self>, context: SubscriptionContext) {
        self.listeners().listens.push(context.sink().clone());
        self.start().await;
        let mut shutdown = self.shutdown.clone();
        tokio::select! {
            () = context.cancelled() => {}
            () = stopped(&mut shutdown) => {}
        }
        let id = context.sink().id().clone();
        self.listeners().listens.retain(|s| *s.id() != id);
    }

    /// Starts the feed thread and its forwarder, once; returns when it took its first look.
    async fn start(self: &Arc<Self>) {
        let ready = self.ready_tx.lock().ok().and_then(|mut r| r.take());
        if let Some(ready) = ready {
            self.spawn(ready);
        }
        // The sender dropped (the thread could not start, or ended) also ends the wait.
        let _ = self.ready.clone().wait_for(|r| *r).await;
    }

    fn spawn(self: &Arc<Self>, ready: watch::Sender<bool>) {
        let (wake_tx, wake) = mpsc::channel();
        let (notices_tx, notices) = tokio_mpsc::unbounded_channel();
        let ctx = self.ctx.clone();
        let waker = wake_tx.clone();
        let spawned = std::thread::Builder::new()
            .name("umbel-mcp-feed".into())
            .spawn(move || follow(&ctx, &wake, waker, &notices_tx, ready));
        if let Err(e) = spawned {
            errln!("umbel: cannot start the resource change feed: {e}");
            return;
        }
        tokio::spawn(forward(self.clone(), notices, wake_tx));
    }

    /// Sends one notice to whoever subscribed to it.
    async fn deliver(&self, notice: &Notice) {
        let (legacy, subscribed, listens) = {
            let l = self.listeners();
            (l.legacy.clone(), l.subscribed.clone(), l.listens.clone())
        };
        let mut closed = Vec::new();
        for sink in &listens {
            let accepted = sink.accepted();
            let sent = match notice {
                Notice::ListChanged if accepted.resources_list_changed == Some(true) => {
                    sink.notify_resource_list_changed().await
                }
                Notice::Updated(uris) => {
                    let wanted = accepted.resource_subscriptions.clone().unwrap_or_default();
                    let mut sent = Ok(());
                    for uri in uris.iter().filter(|u| wanted.contains(u)) {
                        sent = sent.and(sink.notify_resource_updated(uri.clone()).await);
                    }
                    sent
                }
                Notice::ListChanged => Ok(()),
            };
            if matches!(sent, Err(SubscriptionSendError::SubscriptionClosed)) {
                closed.push(sink.id().clone());
            }
        }
        if !closed.is_empty() {
            self.listeners()
                .listens
                .retain(|s| !closed.contains(s.id()));
        }
        let Some(peer) = legacy else { return };
        // A client that went away is noticed by the serve loop, not here.
        match notice {
            Notice::ListChanged => {
                let _ = peer.notify_resource_list_changed().await;
            }
            Notice::Updated(uris) => {
                for uri in uris.iter().filter(|u| subscribed.contains(*u)) {
                    let param = ResourceUpdatedNotificationParam::new(uri.clone());
                    let _ = peer.notify_resource_updated(param).await;
                }
            }
        }
    }
}

/// Hands the feed's notices on until the server stops, then stops the feed thread.
async fn forward(
    feed: Arc<Feed>,
    mut notices: tokio_mpsc::UnboundedReceiver<Notice>,
    stop: mpsc::Sender<Wake>,
) {
    let mut shutdown = feed.shutdown.clone();
    loop {
        tokio::select! {
            notice = notices.recv() => match notice {
                Some(notice) => feed.deliver(&notice).await,
                None => break,
            },
            // Also reached when the sender is gone: the server is ending either way.
            () = stopped(&mut shutdown) => break,
        }
    }
    let _ = stop.send(Wake::Stop);
}

/// Resolves once the server stops (or its stop signal is gone).
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

/// The feed thread: looks at the fleet whenever inotify says something changed, and turns what
/// happened since the last look into notices. What had happened before it started is no news.
fn follow(
    ctx: &Ctx,
    wake: &mpsc::Receiver<Wake>,
    waker: mpsc::Sender<Wake>,
    notices: &tokio_mpsc::UnboundedSender<Notice>,
    ready: watch::Sender<bool>,
) {
    let mut stream = match Stream::new(ctx, &EventsArgs::default()) {
        Ok(stream) => stream,
        Err(e) => return errln!("umbel: the resource change feed cannot start: {e}"),
    };
    let watch = FleetWatch::new(move || {
        let _ = waker.send(Wake::Change);
    });
    let mut watch = match watch {
        Ok(watch) => watch,
        Err(e) => return errln!("umbel: the resource change feed cannot watch: {e}"),
    };
    let mut known: Option<BTreeSet<WorkerName>> = None;
    loop {
        // Watch first, then read: a change landing in between still wakes the loop.
        let dirs = stream.dirs(ctx);
        watch.sync(&dirs);
        let events = stream.look(ctx);
        let names: BTreeSet<WorkerName> = ctx
            .state
            .folders()
            .unwrap_or_default()
            .into_iter()
            .collect();
        ready.send_replace(true);
        if let Some(before) = known.replace(names) {
            let mut out = Vec::new();
            if known.as_ref() != Some(&before) {
                out.push(Notice::ListChanged);
            }
            let touched: BTreeSet<String> = events.iter().flat_map(resources::touched).collect();
            if !touched.is_empty() {
                out.push(Notice::Updated(touched.into_iter().collect()));
            }
            if out.into_iter().any(|n| notices.send(n).is_err()) {
                return;
            }
        }
        if stream.dirs(ctx) != dirs {
            continue; // a worker came or went while looking: watch it before waiting
        }
        match wake.recv_timeout(SAFETY_NET) {
            Ok(Wake::Stop) | Err(RecvTimeoutError::Disconnected) => return,
            Ok(Wake::Change) | Err(RecvTimeoutError::Timeout) => {}
        }
        while let Ok(next) = wake.try_recv() {
            if matches!(next, Wake::Stop) {
                return;
            }
        }
    }
}
