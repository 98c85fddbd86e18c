//! Reading a worker's event log (`events/log`) with memory bounded whatever its size: its
//! number of positions, counted from a checkpoint kept next to it, and its lines newest first,
//! read backwards in chunks. `status`, `send` and `wait` look only at the end of the log, so a
//! 100 MB log costs them what its last turn costs.

use crate::core::events::{EventRecord, parse_record};
use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::path::Path;

/// How much is read at a time, both ways.
const CHUNK: usize = 64 * 1024;
/// A line longer than this is no event line (umbel's are under 200 bytes): it is one unreadable
/// position, and its bytes are not kept.
const MAX_LINE: usize = 64 * 1024;
/// How far past the last checkpoint the log must have grown before a new one is written.
const CHECKPOINT_EVERY: u64 = 1024 * 1024;
/// How many bytes before a checkpoint's offset it keeps, to see that the log was not rewritten.
const FINGERPRINT: usize = 32;

/// The number of positions (lines) of the log at `log`: its newlines, plus a last line without
/// one. `checkpoint` (a small file of this worker's) remembers how many lines the log's first
/// bytes hold, so only what was appended since is counted; it is written again once the log has
/// grown by [`CHECKPOINT_EVERY`] (a failure to write it costs time, not correctness).
pub fn count(log: &Path, checkpoint: &Path) -> std::io::Result<usize> {
    let mut file = match File::open(log) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let size = file.metadata()?.len();
    count_to(&mut file, checkpoint, size)
}

/// [`count`] of the log's first `size` bytes, on an open `file`: lines appended after `size`
/// was taken are not counted.
fn count_to(file: &mut File, checkpoint: &Path, size: u64) -> std::io::Result<usize> {
    let (mut offset, mut lines) = read_checkpoint(file, checkpoint, size).unwrap_or((0, 0));
    file.seek(SeekFrom::Start(offset))?;
    let mut buf = vec![0u8; CHUNK];
    let mut last = None;
    let mut last_newline = offset;
    loop {
        let want = CHUNK.min((size - offset) as usize);
        if want == 0 {
            break;
        }
        let n = match file.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = &buf[..n];
        lines += chunk.iter().filter(|b| **b == b'\n').count();
        if let Some(at) = chunk.iter().rposition(|b| *b == b'\n') {
            last_newline = offset + at as u64 + 1;
        }
        last = chunk.last().copied();
        offset += n as u64;
    }
    if last_newline >= CHECKPOINT_EVERY + checkpoint_offset(checkpoint) {
        // Every newline counted lies before `last_newline`.
        let _ = write_checkpoint(file, checkpoint, last_newline, lines);
    }
    // A last line without its newline is a position too (nothing read past the checkpoint:
    // the log ends on the newline the checkpoint follows).
    let unterminated = last.is_some_and(|byte| byte != b'\n');
    Ok(lines + usize::from(unterminated))
}

/// The checkpoint's offset (0 when there is none).
fn checkpoint_offset(checkpoint: &Path) -> u64 {
    std::fs::read_to_string(checkpoint)
        .ok()
        .and_then(|t| t.split(' ').next()?.parse().ok())
        .unwrap_or(0)
}

/// `(offset, lines before it)` from the checkpoint, when the log still holds the bytes it saw.
fn read_checkpoint(file: &mut File, checkpoint: &Path, size: u64) -> Option<(u64, usize)> {
    let text = std::fs::read_to_string(checkpoint).ok()?;
    let mut parts = text.split_whitespace();
    let offset: u64 = parts.next()?.parse().ok()?;
    let lines: usize = parts.next()?.parse().ok()?;
    let print = parts.next()?;
    if offset > size || offset < FINGERPRINT as u64 {
        return None;
    }
    (fingerprint(file, offset).ok()? == print).then_some((offset, lines))
}

/// Writes the checkpoint through a temporary file and a rename: a reader sees the old one or
/// the new one, never a mix.
fn write_checkpoint(
    file: &mut File,
    checkpoint: &Path,
    offset: u64,
    lines: usize,
) -> std::io::Result<()> {
    let print = fingerprint(file, offset)?;
    // The state root's one helper: a random temp name (two threads of one MCP process write
    // checkpoints too), created exclusively.
    super::atomic::write_atomic(
        checkpoint,
        format!("{offset} {lines} {print}\n").as_bytes(),
        0o600,
    )
    .map_err(|e| std::io::Error::other(e.to_string()))
}

/// The [`FINGERPRINT`] bytes before `offset`, in hex.
fn fingerprint(file: &mut File, offset: u64) -> std::io::Result<String> {
    let mut bytes = [0u8; FINGERPRINT];
    file.seek(SeekFrom::Start(offset - FINGERPRINT as u64))?;
    file.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The log's records, newest first, each with its position; a read error ends the walk.
pub struct Backwards {
    file: Option<File>,
    /// Where the unread part of the file ends.
    pos: u64,
    /// The bytes after `pos` not yet handed out: the tail of the line being put together.
    pending: Vec<u8>,
    /// The current line is over [`MAX_LINE`]: its bytes are dropped.
    overlong: bool,
    /// The position of the next line handed out.
    next: usize,
}

impl Backwards {
    /// The log at `log`, counted ([`count`], from `checkpoint`) and walked from one open file
    /// and one size: a line appended meanwhile is in neither, so every record's position is
    /// the one the count gives it.
    pub fn open(log: &Path, checkpoint: &Path) -> std::io::Result<Self> {
        let mut file = match File::open(log) {
            Ok(file) => Some(file),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let (mut pos, len) = match &mut file {
            Some(f) => {
                let size = f.metadata()?.len();
                (size, count_to(f, checkpoint, size)?)
            }
            None => (0, 0),
        };
        // The newline that ends the last line ends no position.
        if let Some(f) = &mut file
            && pos > 0
        {
            let mut last = [0u8; 1];
            f.seek(SeekFrom::Start(pos - 1))?;
            f.read_exact(&mut last)?;
            if last[0] == b'\n' {
                pos -= 1;
            }
        }
        Ok(Backwards {
            file,
            pos,
            pending: Vec::new(),
            overlong: false,
            next: len,
        })
    }

    /// The next line back, as bytes (`None` for an overlong one), or the end of the file.
    fn line(&mut self) -> Option<Option<Vec<u8>>> {
        loop {
            if let Some(at) = self.pending.iter().rposition(|b| *b == b'\n') {
                let line = self.pending.split_off(at + 1);
                self.pending.pop();
                let overlong = std::mem::take(&mut self.overlong);
                return Some((!overlong).then_some(line));
            }
            if self.pos == 0 {
                let file = self.file.take()?;
                drop(file);
                let overlong = std::mem::take(&mut self.overlong);
                return Some((!overlong).then(|| std::mem::take(&mut self.pending)));
            }
            let size = CHUNK.min(self.pos as usize);
            self.pos -= size as u64;
            let mut buf = vec![0u8; size];
            let file = self.file.as_mut()?;
            if file.seek(SeekFrom::Start(self.pos)).is_err() || file.read_exact(&mut buf).is_err() {
                self.file = None;
                return None;
            }
            buf.extend_from_slice(&self.pending);
            self.pending = buf;
            if !self.pending.contains(&b'\n') && self.pending.len() > MAX_LINE {
                // Keep walking back to this line's start without keeping its bytes.
                self.overlong = true;
                self.pending.clear();
            }
        }
    }
}

impl Iterator for Backwards {
    type Item = EventRecord;

    fn next(&mut self) -> Option<EventRecord> {
        if self.next == 0 {
            return None;
        }
        let line = self.line()?;
        self.next -= 1;
        Some(parse_record(self.next, line.as_deref().unwrap_or(b"\xff")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::events::parse_log;

    fn write(dir: &Path, bytes: &[u8]) -> std::path::PathBuf {
        let path = dir.join("log");
        std::fs::write(&path, bytes).expect("write");
        path
    }

    /// Counted and read backwards, a log gives what parsing it whole gives.
    #[test]
    fn backwards_agrees_with_the_whole_parse() {
        let dir = tempfile::tempdir().expect("tempdir");
        let checkpoint = dir.path().join("log.count");
        let long = "x".repeat(100_000);
        for log in [
            "".to_string(),
            "1 A -\n".to_string(),
            "1 A -\n2 B b.json".to_string(),
            "1 A -\n\n2 B -\n".to_string(),
            format!("1 A -\n{long}\n3 C -\n"),
            "1 A -\n1796405680272824103 1796405680272824200 Stop s.json\n".to_string(),
        ] {
            let path = write(dir.path(), log.as_bytes());
            let _ = std::fs::remove_file(&checkpoint);
            let whole = parse_log(log.as_bytes());
            let len = count(&path, &checkpoint).expect("count");
            assert_eq!(len, whole.len(), "{log:.40}");
            let mut back: Vec<EventRecord> =
                Backwards::open(&path, &checkpoint).expect("open").collect();
            back.reverse();
            assert_eq!(back, whole, "{log:.40}");
        }
    }

    /// A line appended while the log is being walked is not seen, and shifts no position: the
    /// count and the walk share one file and one size (issue 45 item 1).
    #[test]
    fn a_line_appended_during_the_walk_shifts_no_position() {
        let dir = tempfile::tempdir().expect("tempdir");
        let checkpoint = dir.path().join("log.count");
        let path = write(dir.path(), b"1 Start -\n2 UserPromptSubmit -\n3 Stop -\n");
        let back = Backwards::open(&path, &checkpoint).expect("open");
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        std::io::Write::write_all(&mut log, b"4 UserPromptSubmit -\n").expect("append");
        let seen: Vec<(usize, String)> = back.map(|r| (r.index, r.kind)).collect();
        assert_eq!(
            seen,
            [
                (2, "Stop".to_string()),
                (1, "UserPromptSubmit".to_string()),
                (0, "Start".to_string())
            ]
        );
    }

    /// A big log is counted from its checkpoint; a rewritten log is counted anew.
    #[test]
    fn the_count_resumes_from_a_checkpoint_and_notices_a_rewrite() {
        let dir = tempfile::tempdir().expect("tempdir");
        let checkpoint = dir.path().join("log.count");
        let line = "1796405680272824103 PostToolUse 1796405680272824103-1.PostToolUse.json\n";
        let lines = (3 * CHECKPOINT_EVERY as usize) / line.len();
        let mut log = line.repeat(lines);
        let path = write(dir.path(), log.as_bytes());
        assert_eq!(count(&path, &checkpoint).expect("count"), lines);
        assert!(checkpoint.is_file(), "a checkpoint was written");
        log.push_str("2 Stop -\n3 Torn");
        let path = write(dir.path(), log.as_bytes());
        assert_eq!(count(&path, &checkpoint).expect("count"), lines + 2);
        let path = write(
            dir.path(),
            "a\nb\n".repeat(CHECKPOINT_EVERY as usize).as_bytes(),
        );
        assert_eq!(
            count(&path, &checkpoint).expect("count"),
            2 * CHECKPOINT_EVERY as usize
        );
    }
}
