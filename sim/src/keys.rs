//! Turning raw terminal bytes into keys, including bracketed paste.
//!
//! The parser is fed whatever `read` returned; sequences split across reads
//! are kept until complete. A lone ESC cannot be told from the start of a
//! sequence by bytes alone, so the caller waits [`ESC_TIMEOUT_MS`] when
//! [`KeyParser::pending`] is true and then calls [`KeyParser::flush`].
//! Pasted bytes are passed on exactly as received (no CR/LF changes).

/// How long to wait after an ESC before deciding it was the Esc key.
pub const ESC_TIMEOUT_MS: u64 = 40;

const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// One key press (or one paste).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// Printable text (consecutive characters are joined).
    Text(String),
    /// Enter (`\r`).
    Enter,
    /// Ctrl-J (`\n`): a newline typed into the input.
    Newline,
    /// Backspace (`0x7f` or `0x08`).
    Backspace,
    /// Tab.
    Tab,
    /// Shift-Tab (`ESC [ Z`).
    ShiftTab,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// Home.
    Home,
    /// End.
    End,
    /// Delete.
    Delete,
    /// A lone Esc.
    Esc,
    /// Ctrl-C.
    CtrlC,
    /// Ctrl-D.
    CtrlD,
    /// Ctrl-U.
    CtrlU,
    /// Ctrl-K.
    CtrlK,
    /// A bracketed paste: the bytes between the markers, untouched.
    Paste(Vec<u8>),
    /// A sequence or control byte the fakes do not use.
    Unknown(Vec<u8>),
}

/// Incremental key parser.
#[derive(Debug, Default)]
pub struct KeyParser {
    buf: Vec<u8>,
    paste: Option<Vec<u8>>,
}

enum Step {
    Key(Key, usize),
    Skip(usize),
    Incomplete,
}

impl KeyParser {
    /// A parser with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }

    /// True when an incomplete sequence is buffered (maybe a lone ESC).
    pub fn pending(&self) -> bool {
        self.paste.is_none() && !self.buf.is_empty()
    }

    /// True while inside a bracketed paste.
    pub fn in_paste(&self) -> bool {
        self.paste.is_some()
    }

    /// Feeds bytes and returns the keys completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Key> {
        self.buf.extend_from_slice(bytes);
        let mut keys = Vec::new();
        self.drain(&mut keys, false);
        keys
    }

    /// Called after [`ESC_TIMEOUT_MS`] without input: a buffered ESC becomes
    /// Esc, an incomplete character becomes U+FFFD.
    pub fn flush(&mut self) -> Vec<Key> {
        let mut keys = Vec::new();
        self.drain(&mut keys, true);
        keys
    }

    fn drain(&mut self, keys: &mut Vec<Key>, force: bool) {
        let mut i = 0;
        loop {
            if let Some(paste) = self.paste.as_mut() {
                let scan_from = paste.len().saturating_sub(PASTE_END.len() - 1);
                paste.extend_from_slice(&self.buf[i..]);
                i = self.buf.len();
                match find(&paste[scan_from..], PASTE_END) {
                    Some(at) => {
                        let end = scan_from + at;
                        let rest = paste.split_off(end + PASTE_END.len());
                        paste.truncate(end);
                        keys.push(Key::Paste(std::mem::take(paste)));
                        self.paste = None;
                        self.buf = rest;
                        i = 0;
                        continue;
                    }
                    None => break,
                }
            }
            if i >= self.buf.len() {
                break;
            }
            match step(&self.buf[i..], force) {
                Step::Key(Key::Text(t), n) => {
                    if let Some(Key::Text(prev)) = keys.last_mut() {
                        prev.push_str(&t);
                    } else {
                        keys.push(Key::Text(t));
                    }
                    i += n;
                }
                Step::Key(k, n) => {
                    keys.push(k);
                    i += n;
                }
                Step::Skip(n) => {
                    self.paste = Some(Vec::new());
                    i += n;
                }
                Step::Incomplete => break,
            }
        }
        self.buf.drain(..i.min(self.buf.len()));
    }
}

/// Where `needle` first starts in `hay`.
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn step(b: &[u8], force: bool) -> Step {
    match b[0] {
        0x1b => escape(b, force),
        b'\r' => Step::Key(Key::Enter, 1),
        b'\n' => Step::Key(Key::Newline, 1),
        0x7f | 0x08 => Step::Key(Key::Backspace, 1),
        b'\t' => Step::Key(Key::Tab, 1),
        0x03 => Step::Key(Key::CtrlC, 1),
        0x04 => Step::Key(Key::CtrlD, 1),
        0x15 => Step::Key(Key::CtrlU, 1),
        0x0b => Step::Key(Key::CtrlK, 1),
        c if c < 0x20 => Step::Key(Key::Unknown(vec![c]), 1),
        _ => utf8(b, force),
    }
}

fn utf8(b: &[u8], force: bool) -> Step {
    let want = match b[0] {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Step::Key(Key::Text('\u{fffd}'.to_string()), 1),
    };
    let have = b
        .iter()
        .take(want)
        .skip(1)
        .take_while(|c| (0x80..=0xbf).contains(*c))
        .count()
        + 1;
    if have < want {
        if have == b.len() && !force {
            return Step::Incomplete;
        }
        return Step::Key(Key::Text('\u{fffd}'.to_string()), have);
    }
    match std::str::from_utf8(&b[..want]) {
        Ok(s) => Step::Key(Key::Text(s.to_string()), want),
        Err(_) => Step::Key(Key::Text('\u{fffd}'.to_string()), want),
    }
}

fn escape(b: &[u8], force: bool) -> Step {
    let Some(&kind) = b.get(1) else {
        return if force {
            Step::Key(Key::Esc, 1)
        } else {
            Step::Incomplete
        };
    };
    match kind {
        b'[' => csi(b, force),
        b'O' => match b.get(2) {
            None if !force => Step::Incomplete,
            None => Step::Key(Key::Esc, 1),
            Some(&c) => {
                let key = match c {
                    b'A' => Key::Up,
                    b'B' => Key::Down,
                    b'C' => Key::Right,
                    b'D' => Key::Left,
                    b'H' => Key::Home,
                    b'F' => Key::End,
                    _ => Key::Unknown(b[..3].to_vec()),
                };
                Step::Key(key, 3)
            }
        },
        // ESC followed by anything else: the Esc key, then that byte on its own.
        _ => Step::Key(Key::Esc, 1),
    }
}

fn csi(b: &[u8], force: bool) -> Step {
    let Some(end) = b
        .iter()
        .skip(2)
        .position(|c| (0x40..=0x7e).contains(c))
        .map(|p| p + 2)
    else {
        let plausible = b[2..].iter().all(|c| (0x20..=0x3f).contains(c));
        return if force || !plausible {
            Step::Key(Key::Esc, 1)
        } else {
            Step::Incomplete
        };
    };
    let seq = &b[..=end];
    if seq == PASTE_START {
        return Step::Skip(seq.len());
    }
    let params = &b[2..end];
    let key = match (b[end], params) {
        (b'A', _) => Key::Up,
        (b'B', _) => Key::Down,
        (b'C', _) => Key::Right,
        (b'D', _) => Key::Left,
        (b'H', _) => Key::Home,
        (b'F', _) => Key::End,
        (b'Z', _) => Key::ShiftTab,
        (b'~', b"1" | b"7") => Key::Home,
        (b'~', b"4" | b"8") => Key::End,
        (b'~', b"3") => Key::Delete,
        _ => Key::Unknown(seq.to_vec()),
    };
    Step::Key(key, seq.len())
}

#[cfg(test)]
mod tests;
