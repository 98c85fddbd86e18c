//! Reading piped stdin the way the real print modes do. With a prompt argument, claude and
//! gemini wait about 3 s for stdin's first bytes and go on without it when none come (claude
//! warns: "no stdin data received in 3s, proceeding without it"); `codex exec` reads to the
//! end. Without a prompt argument, stdin is the prompt: all three read it to the end.

use crate::core::errors::Result;
use crate::core::providers::Provider;
use std::io::{IsTerminal, Read};
use std::sync::mpsc;
use std::time::Duration;

/// How long claude waits for the first bytes of a piped stdin (measured on 2.1.332).
const FIRST_BYTES: Duration = Duration::from_secs(3);

/// The bytes piped to umbel for this prompt (empty when none).
pub fn piped(
    prompt_given: bool,
    provider: Provider,
    read_to_end: impl FnOnce() -> Result<Vec<u8>>,
) -> Result<Vec<u8>> {
    // A verb forwarded from another host: its stdin came with the request.
    if let Some(bytes) = crate::faces::remote_exec::forwarded_stdin() {
        return Ok(bytes);
    }
    if !prompt_given || provider.module().print().reads_all_stdin() {
        return match prompt_given && std::io::stdin().is_terminal() {
            true => Ok(Vec::new()),
            false => read_to_end(),
        };
    }
    if std::io::stdin().is_terminal() {
        return Ok(Vec::new());
    }
    let (first_tx, first_rx) = mpsc::channel::<()>();
    let (all_tx, all_rx) = mpsc::channel::<std::io::Result<Vec<u8>>>();
    // A thread that may stay blocked on a silent pipe until umbel exits: nothing else reads
    // stdin in print mode.
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut bytes = vec![0; 64 * 1024];
        let result = stdin.read(&mut bytes).and_then(|n| {
            let _ = first_tx.send(());
            bytes.truncate(n);
            if n > 0 {
                stdin.read_to_end(&mut bytes)?;
            }
            Ok(bytes)
        });
        let _ = all_tx.send(result);
    });
    match first_rx.recv_timeout(FIRST_BYTES) {
        Err(mpsc::RecvTimeoutError::Timeout) => {
            errln!(
                "umbel: no stdin data received in 3s, proceeding without it; to skip stdin redirect it (< /dev/null), or pipe it sooner"
            );
            Ok(Vec::new())
        }
        _ => match all_rx.recv() {
            Ok(Ok(bytes)) => Ok(bytes),
            Ok(Err(e)) => Err(crate::core::errors::Error::io(
                "cannot read",
                "standard input",
                e,
            )),
            Err(_) => Ok(Vec::new()),
        },
    }
}
