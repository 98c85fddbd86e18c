//! The host side of a forwarded verb (`umbel remote-exec`, run by ssh for another umbel): the
//! request read from standard input, then the channel watched for its end, which cancels the
//! verb (ssh without a terminal forwards no signal: a closed channel is the local Ctrl-C).

use crate::core::errors::{Error, Result};
use crate::core::remote_frame::decode;
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the other umbel asked for.
#[derive(Debug)]
pub struct Received {
    /// umbel's environment with the request's variables added.
    pub env: Vec<(String, String)>,
    /// The verb and its arguments.
    pub argv: Vec<String>,
    /// The verb's standard input.
    pub stdin: Vec<u8>,
}

/// Reads the request from standard input; refuses one from another umbel version.
pub fn receive(mut env: Vec<(String, String)>) -> Result<Received> {
    let (frame, stdin) = decode(&mut std::io::stdin().lock())?;
    let mine = env!("CARGO_PKG_VERSION");
    if frame.version != mine {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map_or_else(|_| "this host".to_string(), |h| h.trim().to_string());
        return Err(Error::RemoteUmbel {
            host,
            detail: format!(
                "umbel {mine} here, umbel {} on the calling side: install the same version on both",
                frame.version
            ),
        });
    }
    for (k, v) in frame.env {
        env.retain(|(name, _)| *name != k);
        env.push((k, v));
    }
    Ok(Received {
        env,
        argv: frame.argv,
        stdin,
    })
}

/// Sets `cancel` when standard input ends (the calling umbel stopped, or its host went away).
pub fn cancel_on_eof(cancel: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin();
        while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        cancel.store(true, Ordering::Relaxed);
    });
}

static FORWARDED_STDIN: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// Makes `stdin` what the verb reads as its standard input (the real one carries the request).
pub fn set_forwarded_stdin(stdin: Vec<u8>) {
    let _ = FORWARDED_STDIN.set(stdin);
}

/// The forwarded verb's standard input, when this umbel runs one for another.
pub fn forwarded_stdin() -> Option<Vec<u8>> {
    FORWARDED_STDIN.get().cloned()
}
