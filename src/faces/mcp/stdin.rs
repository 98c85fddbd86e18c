//! Standard input that says when it ends. rmcp notices the end of stdin too, but then gives
//! unfinished calls 5 s to answer; a `umbel_wait` can block for 30 minutes, so at the end of
//! input umbel interrupts its calls at once (leaving every worker as it was) and exits promptly.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf, Stdin};
use tokio::sync::watch;

/// `tokio::io::stdin()` that sets `stop` when a read finds the end of input.
pub struct WatchedStdin {
    inner: Stdin,
    stop: watch::Sender<bool>,
}

impl WatchedStdin {
    pub fn new(stop: watch::Sender<bool>) -> Self {
        WatchedStdin {
            inner: tokio::io::stdin(),
            stop,
        }
    }
}

impl AsyncRead for WatchedStdin {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let had_room = buf.remaining() > 0;
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && had_room && buf.filled().len() == before {
            self.stop.send_replace(true);
        }
        polled
    }
}
