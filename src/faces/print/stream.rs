//! `umbel -p --output-format stream-json` (and codex's `-o json`, which is `codex exec --json`,
//! a stream too): a thread tails the worker's transcript while the turn runs and prints each
//! event as one JSON line, flushed at once; the `result` event (codex: `turn.completed`) ends
//! the stream. Event types and fields are the real print modes' (see core/print/stream.rs).

use super::Done;
use super::json::Clock;
use crate::core::meta::Meta;
use crate::core::print::shape::{StreamStart, Streamed};
use crate::core::print::stream::StreamMapper;
use crate::faces::output::out_json;
use crate::operations::Ctx;
use crate::operations::transcript_tail::TranscriptTail;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the transcript is read while the turn runs.
const TICK: Duration = Duration::from_millis(100);

/// The tail and the mapper of a running stream, handed back for the last records.
pub struct Live {
    tail: TranscriptTail,
    mapper: StreamMapper,
    started: Instant,
}

impl Live {
    fn drain(&mut self, ctx: &Ctx) {
        let records = self.tail.poll(ctx);
        let now_ms = self.started.elapsed().as_millis() as u64;
        let mut events = self.mapper.tick(now_ms);
        for record in records {
            events.extend(self.mapper.events(&record));
        }
        for event in events {
            out_json(&event);
        }
    }
}

/// Prints the `init` event, then runs `body` (send and wait) while the transcript is tailed.
pub fn run<T>(ctx: &Ctx, meta: &Meta, body: impl FnOnce() -> T) -> (T, Live) {
    for event in init(meta) {
        out_json(&event);
    }
    let mut live = Live {
        tail: TranscriptTail::start(ctx, meta),
        mapper: StreamMapper::new(
            meta.provider.module().print().stream_records(),
            &meta.session_id,
        ),
        started: Instant::now(),
    };
    let stop = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        // One last read after `body` returns: a fast turn can end between two ticks, and
        // the transcript of a worker `-p` created goes with it.
        let tailer = scope.spawn(|| {
            loop {
                let stopping = stop.load(Ordering::Relaxed);
                live.drain(ctx);
                if stopping {
                    break;
                }
                std::thread::sleep(TICK);
            }
        });
        let result = body();
        stop.store(true, Ordering::Relaxed);
        let _ = tailer.join();
        result
    });
    (result, live)
}

/// The events still in the transcript, then the provider's last events (its `result`).
pub fn finish(ctx: &Ctx, live: Option<Live>, done: &Done, duration_ms: u64) {
    let streamed = live.map(|mut live| {
        live.drain(ctx);
        let mut mapper = live.mapper;
        Streamed {
            nothing: mapper.streamed_nothing(),
            answered: mapper.answered(),
            next_item: mapper.next_item(),
        }
    });
    let shapes = done.provider.module().print();
    for event in shapes.stream_end(&done.turn, duration_ms, streamed.as_ref(), &Clock) {
        out_json(&event);
    }
}

/// The stream's first events.
fn init(meta: &Meta) -> Vec<Value> {
    let start = StreamStart {
        session_id: &meta.session_id,
        model: meta.model.as_deref(),
        cwd: &meta.cwd,
    };
    meta.provider.module().print().stream_init(&start, &Clock)
}
