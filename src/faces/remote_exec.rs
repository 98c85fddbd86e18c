//! The host side of a forwarded verb (`umbel remote-exec`, run by ssh for another umbel): the
//! request read from standard input, then the channel watched for its end, which cancels the
//! verb (ssh without a terminal forwards no signal: a closed channel is the local Ctrl-C).

use super::output::{out_json, report};
use crate::core::errors::{Error, Result};
use crate::core::remote_frame::decode;
use crate::operations::Ctx;
use crate::operations::remote::output_file;
use crate::operations::worker::Worker;
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
pub fn receive(env: Vec<(String, String)>) -> Result<Received> {
    receive_from(&mut std::io::stdin().lock(), env)
}

fn receive_from(
    input: &mut impl std::io::BufRead,
    mut env: Vec<(String, String)>,
) -> Result<Received> {
    let (frame, stdin) = decode(input)?;
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

/// A forwarded verb on worker `name` runs in its folder, as a person on the host would run it
/// there: its guardrail check and relative paths (`--accept ./check.sh`, `wait --file`) are
/// the project's, not the ssh login folder's. A worker that cannot be loaded leaves the folder
/// as it is (the verb then says what is wrong).
pub fn enter_folder_of(ctx: &Ctx, name: &str) {
    if let Ok(worker) = Worker::load(ctx, name) {
        let _ = std::env::set_current_dir(&worker.meta.cwd);
    }
}

/// `output-file NAME PATH`, a verb only another umbel asks for (a workflow's `file:` output
/// of worker NAME here): the file's text as JSON, or the error as JSON.
pub fn output_file(received: Received) -> u8 {
    let read = || {
        let [_, name, path] = received.argv.as_slice() else {
            return Err(Error::usage(
                "`output-file` takes a worker's name and a path",
            ));
        };
        let ctx = Ctx::from_env(received.env.clone())?;
        output_file::read_here(&ctx, name, path)
    };
    match read() {
        Ok(found) => {
            out_json(&found);
            0
        }
        Err(e) => report(&e, true),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::remote_frame::{Frame, encode};

    fn request(version: &str) -> Vec<u8> {
        let frame = Frame {
            version: version.into(),
            argv: vec!["status".into()],
            env: vec![("TOKEN".into(), "s3cr3t".into())],
            stdin_len: 0,
        };
        encode(&frame, b"prompt")
    }

    #[test]
    fn the_request_adds_its_variables_over_umbels_own() {
        let env = vec![("TOKEN".into(), "old".into()), ("HOME".into(), "/h".into())];
        let got = receive_from(&mut &request(env!("CARGO_PKG_VERSION"))[..], env).unwrap();
        assert_eq!(got.argv, ["status"]);
        assert_eq!(got.stdin, b"prompt");
        let token: Vec<_> = got.env.iter().filter(|(k, _)| k == "TOKEN").collect();
        assert_eq!(token, [&("TOKEN".to_string(), "s3cr3t".to_string())]);
        assert!(got.env.iter().any(|(k, _)| k == "HOME"));
    }

    #[test]
    fn another_version_is_refused_naming_both() {
        let err = receive_from(&mut &request("0.0.1-other")[..], Vec::new()).unwrap_err();
        assert_eq!(err.code(), "remote_umbel");
        let text = err.to_string();
        assert!(
            text.contains("0.0.1-other") && text.contains(env!("CARGO_PKG_VERSION")),
            "{text}"
        );
    }
}
