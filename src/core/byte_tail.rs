//! The end of a byte stream in bounded memory: a program's output of any size is read through
//! it, and only its last bytes (what a guardrail check's report and feedback show) are kept,
//! with the count of those that went before.

/// At most `keep` bytes of a stream's end (everything when `keep` is `usize::MAX`), and how
/// many bytes before them were dropped. Holds at most twice `keep` plus one pushed chunk.
#[derive(Debug)]
pub struct ByteTail {
    bytes: Vec<u8>,
    keep: usize,
    dropped: u64,
}

impl ByteTail {
    /// A tail keeping the last `keep` bytes.
    pub fn new(keep: usize) -> Self {
        ByteTail {
            bytes: Vec::new(),
            keep,
            dropped: 0,
        }
    }

    /// A tail keeping everything.
    pub fn unbounded() -> Self {
        ByteTail::new(usize::MAX)
    }

    /// Appends `chunk`, dropping the oldest bytes once twice `keep` is held (so dropping
    /// costs as much as the bytes pushed, whatever the stream's length).
    pub fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > self.keep.saturating_mul(2) {
            self.shrink();
        }
    }

    /// The bytes kept (the last `keep` of the stream) and how many came before them.
    pub fn finish(mut self) -> (Vec<u8>, u64) {
        self.shrink();
        (self.bytes, self.dropped)
    }

    fn shrink(&mut self) {
        let excess = self.bytes.len().saturating_sub(self.keep);
        if excess > 0 {
            self.bytes.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// The bytes held now (at most twice `keep`).
    pub fn held(&self) -> usize {
        self.bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_bytes_and_counts_the_rest() {
        let mut tail = ByteTail::new(4);
        for chunk in [&b"abc"[..], b"defg", b"hi", b"", b"jklmn"] {
            tail.push(chunk);
            assert!(tail.held() <= 2 * 4 + 5, "held {}", tail.held());
        }
        assert_eq!(tail.finish(), (b"klmn".to_vec(), 10));
    }

    #[test]
    fn a_short_stream_is_kept_whole() {
        let mut tail = ByteTail::new(16);
        tail.push(b"hello");
        assert_eq!(tail.finish(), (b"hello".to_vec(), 0));
    }

    #[test]
    fn memory_stays_bounded_over_a_long_stream() {
        let mut tail = ByteTail::new(1024);
        let chunk = [b'x'; 64 * 1024];
        for _ in 0..1000 {
            tail.push(&chunk);
            assert!(tail.held() <= 2 * 1024 + chunk.len());
        }
        let (bytes, dropped) = tail.finish();
        assert_eq!(bytes.len(), 1024);
        assert_eq!(dropped, 1000 * 64 * 1024 - 1024);
    }

    #[test]
    fn unbounded_keeps_everything() {
        let mut tail = ByteTail::unbounded();
        tail.push(&[7; 100_000]);
        tail.push(&[8; 100_000]);
        let (bytes, dropped) = tail.finish();
        assert_eq!((bytes.len(), dropped), (200_000, 0));
    }
}
