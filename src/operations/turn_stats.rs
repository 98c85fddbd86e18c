//! The records and stats of a worker's last turn, read from the end of its transcript (the
//! print-mode JSON is filled from them).

use super::Ctx;
use super::worker::Worker;
use crate::adapters::files;
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

/// The model requests the turn umbel last prompted made so far, and whether the transcript
/// marks it ended: the turn whose prompt the transcript holds after byte `from` (where it
/// ended as the prompt was sent). `None` until that prompt is written — the records after
/// `from` may still be the turn before's last ones.
pub fn prompted_turn_requests(
    worker: &Worker,
    transcript: &Path,
    from: u64,
) -> Option<(u64, bool)> {
    // A transcript shorter than it was is a rewritten one: read whole.
    let from = if files::len(transcript) < from {
        0
    } else {
        from
    };
    let appended = files::read_from(transcript, from)?;
    let text = String::from_utf8_lossy(&appended);
    let mut lines = text.lines().rev().map(str::to_string);
    let (turn, records) = last_turn_records(worker.provider(), &mut lines);
    turn.prompt.as_ref()?;
    let requests = worker.provider().turn_stats(&records).total().requests;
    Some((requests, turn.ended))
}

/// [`prompted_turn_requests`] of a turn a hook said ended, once the transcript shows the end
/// too (claude writes a turn's last records a moment after its `Stop` hook), or [`SETTLE`]
/// passed.
pub fn ended_turn_requests(worker: &Worker, transcript: &Path, from: u64) -> Option<u64> {
    let deadline = Instant::now() + SETTLE;
    loop {
        let read = prompted_turn_requests(worker, transcript, from);
        if read.is_some_and(|(_, ended)| ended) || Instant::now() >= deadline {
            return read.map(|(requests, _)| requests);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
