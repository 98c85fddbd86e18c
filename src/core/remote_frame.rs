//! The request a local umbel sends to the umbel on another host, over the ssh channel's
//! standard input (never on an argv, local or remote): one JSON header line — umbel's version,
//! the verb's arguments, the variables the verb may read by name (`--env NAME` secrets) and the
//! length of the verb's standard input — then that many raw bytes. After the frame the channel
//! stays open; its end (EOF) tells the remote umbel to stop, which is how a cancelled local
//! verb ends the remote one (ssh without a terminal forwards no signals).

use super::errors::{Error, Result};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read};

/// Refuses headers larger than this (a runaway or hostile peer).
const MAX_HEADER: usize = 1 << 20;
/// The most standard input one frame carries: a prompt is at most 1 MiB, a workflow file far
/// less; a peer declaring more is refused before anything is allocated.
const MAX_STDIN: usize = 64 << 20;

/// One forwarded verb.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Frame {
    /// The sender's umbel version; the receiver refuses another.
    pub version: String,
    /// The verb and its arguments, as typed after `umbel`.
    pub argv: Vec<String>,
    /// Variables added to the remote umbel's environment for this verb only.
    pub env: Vec<(String, String)>,
    /// How many bytes of standard input follow the header.
    pub stdin_len: usize,
}

/// The frame's bytes: the header line, then `stdin`.
pub fn encode(frame: &Frame, stdin: &[u8]) -> Vec<u8> {
    let header = Frame {
        stdin_len: stdin.len(),
        ..frame.clone()
    };
    // Serializing strings and numbers cannot fail.
    let mut out = serde_json::to_vec(&header).unwrap_or_default();
    out.push(b'\n');
    out.extend_from_slice(stdin);
    out
}

/// Reads one frame from `input`, leaving it positioned just after it.
pub fn decode<R: BufRead>(input: &mut R) -> Result<(Frame, Vec<u8>)> {
    let mut header = Vec::new();
    let read = input
        .by_ref()
        .take(MAX_HEADER as u64)
        .read_until(b'\n', &mut header)
        .map_err(|e| Error::io("cannot read the forwarded request from", "stdin", e))?;
    if read == 0 || header.last() != Some(&b'\n') {
        return Err(bad("it ended before its header line did"));
    }
    let frame: Frame = serde_json::from_slice(&header).map_err(|e| bad(&e.to_string()))?;
    if frame.stdin_len > MAX_STDIN {
        return Err(bad(&format!(
            "it declares {} bytes of standard input, more than the {MAX_STDIN} umbel forwards",
            frame.stdin_len
        )));
    }
    // Read as it comes, never allocated as declared.
    let mut stdin = Vec::new();
    input
        .by_ref()
        .take(frame.stdin_len as u64)
        .read_to_end(&mut stdin)
        .map_err(|e| Error::io("cannot read the forwarded request from", "stdin", e))?;
    if stdin.len() != frame.stdin_len {
        return Err(bad("it ended before its standard input did"));
    }
    Ok((frame, stdin))
}

fn bad(why: &str) -> Error {
    Error::usage(format!(
        "`umbel remote-exec` reads a request from another umbel on its standard input, and this one is not one: {why}. It is not meant to be run by hand"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame() -> Frame {
        Frame {
            version: "1.2.3".into(),
            argv: vec!["send".into(), "w".into()],
            env: vec![("TOKEN".into(), "s3cr3t\nline".into())],
            stdin_len: 0,
        }
    }

    #[test]
    fn a_frame_round_trips_with_its_stdin_and_leaves_the_rest_unread() {
        let mut bytes = encode(&frame(), b"prompt\n\0bytes");
        bytes.extend_from_slice(b"after");
        let mut input = std::io::Cursor::new(bytes);
        let (got, stdin) = decode(&mut input).unwrap();
        assert_eq!(got.argv, frame().argv);
        assert_eq!(got.env, frame().env);
        assert_eq!(stdin, b"prompt\n\0bytes");
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut input, &mut rest).unwrap();
        assert_eq!(rest, "after");
    }

    #[test]
    fn a_truncated_or_foreign_input_is_refused() {
        let bytes = encode(&frame(), b"12345");
        for cut in [0, 10, bytes.len() - 1] {
            let err = decode(&mut std::io::Cursor::new(&bytes[..cut])).unwrap_err();
            assert!(
                err.to_string().contains("not meant to be run by hand"),
                "{err}"
            );
        }
        let err = decode(&mut std::io::Cursor::new(b"send w\n".to_vec())).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }

    /// A peer's declared length is a claim, not an allocation (issue 45 item 10).
    #[test]
    fn a_huge_declared_stdin_is_refused_without_allocating_it() {
        for len in [usize::MAX, MAX_STDIN + 1] {
            let header = serde_json::to_vec(&Frame {
                stdin_len: len,
                ..frame()
            })
            .unwrap();
            let mut bytes = header;
            bytes.extend_from_slice(b"\nshort");
            let err = decode(&mut std::io::Cursor::new(bytes)).unwrap_err();
            assert!(err.to_string().contains("more than the"), "{err}");
        }
    }
}
