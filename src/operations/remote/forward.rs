//! One verb run by the umbel on a worker's host: the request framed onto ssh's stdin, the
//! host umbel's exit status mapped back, ssh's own failures turned into typed errors.

use super::super::Ctx;
use crate::adapters::ssh::{Ssh, Stdout};
use crate::core::errors::{Error, Result};
use crate::core::remote::classify;
use crate::core::remote_frame::{Frame, encode};
use std::time::Duration;

/// What the host's umbel did.
#[derive(Debug)]
pub struct Forwarded {
    /// Its exit status (the same codes as a local verb).
    pub code: u8,
    /// Its standard output, when captured.
    pub stdout: Vec<u8>,
}

/// What to run on the host and how.
#[derive(Debug, Default)]
pub struct Request {
    /// The verb and its arguments, as typed after `umbel`.
    pub argv: Vec<String>,
    /// Variables the host umbel may read by name for this verb (`--env NAME` values).
    pub env: Vec<(String, String)>,
    /// The verb's standard input (a prompt).
    pub stdin: Vec<u8>,
    /// Kill the run after this long (a host that does not answer).
    pub bound: Option<Duration>,
}

/// Runs `request` on `host`; a cancel of `ctx` ends the host's umbel too (its stdin closes).
pub fn forward(ctx: &Ctx, host: &str, request: Request, stdout: Stdout) -> Result<Forwarded> {
    let frame = Frame {
        version: env!("CARGO_PKG_VERSION").to_string(),
        argv: request.argv,
        env: request.env,
        stdin_len: 0,
    };
    let ssh = Ssh::from_env(ctx.state.path(), &ctx.env);
    let ran = ssh.exec(
        host,
        encode(&frame, &request.stdin),
        stdout,
        &ctx.cancel,
        request.bound,
    )?;
    if ran.cancelled {
        return Err(Error::Interrupted);
    }
    if let Some(err) = classify(host, ran.code, &ran.stderr) {
        return Err(err);
    }
    Ok(Forwarded {
        code: ran.code.and_then(|c| u8::try_from(c).ok()).unwrap_or(1),
        stdout: ran.stdout,
    })
}

/// `ask` for each of `hosts` at once, one thread a host, so a slow host holds up only itself;
/// the answers in the hosts' order (`None` where `ask` panicked).
pub fn at_once<H: Sync, T: Send>(hosts: &[H], ask: impl Fn(&H) -> T + Sync) -> Vec<Option<T>> {
    let ask = &ask;
    std::thread::scope(|scope| {
        let asked: Vec<_> = hosts
            .iter()
            .map(|host| scope.spawn(move || ask(host)))
            .collect();
        asked.into_iter().map(|a| a.join().ok()).collect()
    })
}
