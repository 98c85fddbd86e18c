//! The state root's tally of sends (`sends.jsonl`, [`crate::core::send_tally`]): one JSON line
//! appended per delivered prompt, kept to about [`MAX_BYTES`] (the older half moves to
//! `sends.jsonl.1`, replacing it). Best effort: a send that was delivered is never failed over
//! its tally line.

use crate::core::send_tally::SendRecord;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The tally's size before it is rotated.
pub const MAX_BYTES: u64 = 256 * 1024;
const FILE: &str = "sends.jsonl";

fn current(root: &Path) -> PathBuf {
    root.join(FILE)
}

fn rotated(root: &Path) -> PathBuf {
    root.join(format!("{FILE}.1"))
}

/// Appends `record` (one write, so concurrent sends do not interleave their lines).
pub fn append(root: &Path, record: &SendRecord) {
    let path = current(root);
    if fs::metadata(&path).is_ok_and(|m| m.len() >= MAX_BYTES) {
        let _ = fs::rename(&path, rotated(root));
    }
    let Ok(mut line) = serde_json::to_vec(record) else {
        return;
    };
    line.push(b'\n');
    let _ = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(&line));
}

/// Every tallied send, oldest first (a torn or foreign line is skipped).
pub fn read(root: &Path) -> Vec<SendRecord> {
    [rotated(root), current(root)]
        .iter()
        .filter_map(|p| fs::read_to_string(p).ok())
        .flat_map(|text| {
            text.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(enters: u32) -> SendRecord {
        SendRecord {
            at_ms: 1,
            worker: "w".into(),
            provider: "claude".into(),
            enters,
            ms: 5,
        }
    }

    #[test]
    fn appended_records_read_back_in_order_past_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        append(dir.path(), &record(1));
        fs::OpenOptions::new()
            .append(true)
            .open(current(dir.path()))
            .unwrap()
            .write_all(b"{\"atMs\":")
            .unwrap();
        fs::OpenOptions::new()
            .append(true)
            .open(current(dir.path()))
            .unwrap()
            .write_all(b"\n")
            .unwrap();
        append(dir.path(), &record(2));
        let enters: Vec<u32> = read(dir.path()).iter().map(|r| r.enters).collect();
        assert_eq!(enters, [1, 2]);
    }

    #[test]
    fn a_full_tally_rotates_and_keeps_the_older_half() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(current(dir.path()), vec![b'\n'; MAX_BYTES as usize]).unwrap();
        append(dir.path(), &record(3));
        assert!(rotated(dir.path()).exists());
        assert_eq!(read(dir.path()), [record(3)]);
        assert!(fs::metadata(current(dir.path())).unwrap().len() < 200);
    }
}
