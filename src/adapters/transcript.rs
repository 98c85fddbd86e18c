//! Reading a transcript file from its end, line by line, newest first: the cost of reading the
//! last turn does not grow with the length of the conversation. [`ForwardLines`] streams it
//! oldest first, for the verbs that look at every turn (or the first few).

use crate::core::errors::{Error, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Lines of a file, oldest first, streamed through one reused buffer: memory does not grow with
/// the file. A missing file has no lines.
pub struct ForwardLines {
    reader: Option<BufReader<Counted>>,
    path: PathBuf,
    line: Vec<u8>,
}

/// A file that counts the bytes read from it.
struct Counted {
    file: File,
    bytes: u64,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

impl ForwardLines {
    /// Opens `path` (a missing file reads as empty).
    pub fn open(path: &Path) -> Result<Self> {
        let reader = match File::open(path) {
            Ok(file) => Some(BufReader::with_capacity(
                CHUNK as usize,
                Counted { file, bytes: 0 },
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io("cannot read", path, e)),
        };
        Ok(ForwardLines {
            reader,
            path: path.to_path_buf(),
            line: Vec::new(),
        })
    }

    /// The next line without its newline; `None` at the end of the file.
    pub fn next_line(&mut self) -> Result<Option<&[u8]>> {
        let Some(reader) = self.reader.as_mut() else {
            return Ok(None);
        };
        self.line.clear();
        match reader.read_until(b'\n', &mut self.line) {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            Err(e) => return Err(Error::io("cannot read", &self.path, e)),
        }
        if self.line.last() == Some(&b'\n') {
            self.line.pop();
        }
        Ok(Some(&self.line))
    }

    /// Bytes read from the file so far (read ahead included; for tests and benchmarks).
    pub fn bytes_read(&self) -> u64 {
        self.reader.as_ref().map_or(0, |r| r.get_ref().bytes)
    }
}

const CHUNK: u64 = 64 * 1024;

/// Lines of a file, last line first. Stops quietly on a read error.
pub struct ReverseLines {
    file: File,
    /// File offset where the unread part ends.
    pos: u64,
    /// Bytes read but not yet split off as lines (a partial line at the front).
    pending: Vec<u8>,
    /// Lines ready to hand out, in file order (handed out from the back).
    ready: Vec<String>,
    /// Bytes read so far (for tests and benchmarks).
    pub bytes_read: u64,
}

impl ReverseLines {
    /// Opens `path`; `None` when it cannot be opened.
    pub fn open(path: &Path) -> Option<Self> {
        let mut file = File::open(path).ok()?;
        let pos = file.seek(SeekFrom::End(0)).ok()?;
        Some(ReverseLines {
            file,
            pos,
            pending: Vec::new(),
            ready: Vec::new(),
            bytes_read: 0,
        })
    }

    fn fill(&mut self) -> bool {
        while self.ready.is_empty() {
            if self.pos == 0 {
                if self.pending.is_empty() {
                    return false;
                }
                let line = std::mem::take(&mut self.pending);
                self.ready.push(String::from_utf8_lossy(&line).into_owned());
                break;
            }
            let size = CHUNK.min(self.pos);
            self.pos -= size;
            let mut buf = vec![0u8; size as usize];
            if self.file.seek(SeekFrom::Start(self.pos)).is_err()
                || self.file.read_exact(&mut buf).is_err()
            {
                return false;
            }
            self.bytes_read += size;
            buf.extend_from_slice(&self.pending);
            // Everything after the first newline is made of whole lines.
            match buf.iter().position(|&b| b == b'\n') {
                Some(first) if self.pos > 0 || first > 0 => {
                    self.pending = buf[..first].to_vec();
                    self.ready = split_lines(&buf[first + 1..]);
                }
                Some(_) => {
                    self.pending = Vec::new();
                    self.ready = split_lines(&buf[1..]);
                }
                None => self.pending = buf,
            }
        }
        true
    }
}

fn split_lines(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect()
}

impl Iterator for ReverseLines {
    type Item = String;
    fn next(&mut self) -> Option<String> {
        loop {
            if !self.fill() {
                return None;
            }
            if let Some(line) = self.ready.pop()
                && !line.is_empty()
            {
                return Some(line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(content: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, content).unwrap();
        ReverseLines::open(&path).unwrap().collect()
    }

    #[test]
    fn yields_lines_newest_first() {
        assert_eq!(lines_of("a\nb\nc\n"), ["c", "b", "a"]);
        assert_eq!(lines_of("a\nb\nc"), ["c", "b", "a"]);
        assert_eq!(lines_of("\n\na\n\n"), ["a"]);
        assert!(lines_of("").is_empty());
    }

    #[test]
    fn lines_spanning_chunks_come_back_whole() {
        let long = "x".repeat(150_000);
        let content = format!("first\n{long}\nmid\n{long}y\nlast\n");
        let got = lines_of(&content);
        assert_eq!(got.len(), 5);
        assert_eq!(got[0], "last");
        assert_eq!(got[1], format!("{long}y"));
        assert_eq!(got[2], "mid");
        assert_eq!(got[4], "first");
    }

    #[test]
    fn forward_lines_come_oldest_first_whole_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let long = "x".repeat(150_000);
        let content = format!("first\n\n{long}\nlast");
        std::fs::write(&path, &content).unwrap();
        let mut lines = ForwardLines::open(&path).unwrap();
        let mut got = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            got.push(String::from_utf8(line.to_vec()).unwrap());
        }
        assert_eq!(got, ["first", "", long.as_str(), "last"]);
        assert_eq!(lines.bytes_read(), content.len() as u64);
        let mut gone = ForwardLines::open(&dir.path().join("gone")).unwrap();
        assert!(gone.next_line().unwrap().is_none());
    }

    #[test]
    fn reading_the_tail_of_a_big_file_reads_only_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.jsonl");
        let body = "{\"type\":\"noise\"}\n".repeat(200_000);
        std::fs::write(&path, format!("{body}last\n")).unwrap();
        let mut r = ReverseLines::open(&path).unwrap();
        assert_eq!(r.next().as_deref(), Some("last"));
        assert!(r.bytes_read <= CHUNK, "read {} bytes", r.bytes_read);
    }
}
