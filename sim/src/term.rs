//! The terminal: raw mode, bracketed paste, polling reads, size.
//!
//! [`Terminal::enter`] saves the settings of stdin, switches it to raw mode
//! and turns on bracketed paste; [`Terminal::restore`] (also run on drop)
//! undoes all of it. Reads go straight to the file descriptor (no buffering),
//! so `poll` and `read` always agree about what is pending.

use std::io::{self, Write};
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::termios::{OptionalActions, Termios, isatty, tcgetattr, tcgetwinsize, tcsetattr};

/// What a read produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Input {
    /// Bytes arrived.
    Bytes(Vec<u8>),
    /// Nothing arrived before the timeout.
    Timeout,
    /// The terminal is gone (EOF or hang-up).
    Closed,
}

/// A terminal in raw mode; restored on drop.
pub struct Terminal {
    saved: Option<Termios>,
    /// How long input waits before it is handed out: a CLI starved of CPU on a loaded machine
    /// reacts to keys late (scenario `startup.key_lag_ms`).
    lag: Duration,
}

/// Fallback size when stdout is not a terminal: the fixtures' 120x40.
pub const DEFAULT_SIZE: (usize, usize) = (120, 40);

/// True when stdout is a terminal.
pub fn stdout_is_tty() -> bool {
    isatty(rustix::stdio::stdout())
}

/// True when stdin is a terminal.
pub fn stdin_is_tty() -> bool {
    isatty(rustix::stdio::stdin())
}

/// Columns and rows of the terminal on stdout (fallback [`DEFAULT_SIZE`]).
pub fn size() -> (usize, usize) {
    match tcgetwinsize(rustix::stdio::stdout()) {
        Ok(ws) if ws.ws_col > 0 && ws.ws_row > 0 => (ws.ws_col as usize, ws.ws_row as usize),
        _ => DEFAULT_SIZE,
    }
}

impl Terminal {
    /// Puts stdin into raw mode and enables bracketed paste; hides the cursor.
    pub fn enter() -> io::Result<Self> {
        let fd = rustix::stdio::stdin();
        if !isatty(fd) {
            return Err(io::Error::other(
                "stdin is not a terminal (raw mode needs one)",
            ));
        }
        let saved = tcgetattr(fd)?;
        let mut raw = saved.clone();
        raw.make_raw();
        tcsetattr(fd, OptionalActions::Now, &raw)?;
        let term = Self {
            saved: Some(saved),
            lag: Duration::ZERO,
        };
        write_out(b"\x1b[?2004h\x1b[?25l")?;
        Ok(term)
    }

    /// Leaves raw mode, turns bracketed paste off and shows the cursor. Idempotent.
    pub fn restore(&mut self) {
        if let Some(saved) = self.saved.take() {
            let _ = write_out(b"\x1b[?2004l\x1b[?25h");
            let _ = tcsetattr(rustix::stdio::stdin(), OptionalActions::Now, &saved);
        }
    }

    /// This terminal, handing out input `lag` after it arrived.
    pub fn lagging(mut self, lag: Duration) -> Self {
        self.lag = lag;
        self
    }

    /// Waits up to `timeout` (forever when `None`) for input and reads it.
    pub fn read(&mut self, timeout: Option<Duration>) -> io::Result<Input> {
        let input = read_stdin(timeout)?;
        if self.lag.is_zero() || !matches!(input, Input::Bytes(_)) {
            return Ok(input);
        }
        std::thread::sleep(self.lag);
        Ok(input)
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.restore();
    }
}

/// Waits up to `timeout` for bytes on stdin and reads what is there.
pub fn read_stdin(timeout: Option<Duration>) -> io::Result<Input> {
    let fd = rustix::stdio::stdin();
    let forever = Timespec {
        tv_sec: i64::MAX / 2,
        tv_nsec: 0,
    };
    let ts = timeout.map(|d| Timespec::try_from(d).unwrap_or(forever));
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    match poll(&mut fds, ts.as_ref()) {
        Ok(0) => return Ok(Input::Timeout),
        Ok(_) => {}
        Err(rustix::io::Errno::INTR) => return Ok(Input::Timeout),
        Err(e) => return Err(e.into()),
    }
    let revents = fds[0].revents();
    if !revents.contains(PollFlags::IN)
        && revents.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL)
    {
        return Ok(Input::Closed);
    }
    let mut buf = vec![0u8; 65536];
    match rustix::io::read(fd, &mut buf) {
        Ok(0) => Ok(Input::Closed),
        Ok(n) => {
            buf.truncate(n);
            Ok(Input::Bytes(buf))
        }
        Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => Ok(Input::Timeout),
        Err(rustix::io::Errno::IO) => Ok(Input::Closed),
        Err(e) => Err(e.into()),
    }
}

/// Writes all bytes to stdout and flushes.
pub fn write_out(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}
