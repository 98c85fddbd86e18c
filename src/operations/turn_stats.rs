//! The records and stats of a worker's last turn, read from the end of its transcript (the
//! print-mode JSON is filled from them).

use super::Ctx;
use super::worker::Worker;
use crate::adapters::transcript::ReverseLines;
use crate::core::print::stats::TurnStats;
use crate::core::providers::last_turn_records;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long to wait for the transcript to show the end of a turn a hook already reported:
/// claude fires its StopFailure hook before it writes the API error's record.
const SETTLE: Duration = Duration::from_secs(3);

/// The last turn's stats; empty when the transcript cannot be read (the JSON then reports
/// zero tokens rather than failing a turn that ended). `ended`: the turn is known to have
/// ended, so the transcript is given a moment to show it.
pub fn last_turn_stats(
    ctx: &Ctx,
    worker: &Worker,
    transcript: Option<&Path>,
    ended: bool,
) -> TurnStats {
    let path = match transcript {
        Some(path) => Some(path.to_path_buf()),
        None => worker.transcript_path(ctx),
    };
    let Some(path) = path else {
        return TurnStats::default();
    };
    let deadline = Instant::now() + SETTLE;
    loop {
        let Some(mut lines) = ReverseLines::open(&path) else {
            // Not written yet (claude writes the turn a moment after its Stop hook), or never.
            if !ended || Instant::now() >= deadline {
                return TurnStats::default();
            }
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        let (turn, records) = last_turn_records(worker.provider(), &mut lines);
        if turn.ended || !ended || Instant::now() >= deadline {
            return worker.provider().turn_stats(&records);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
