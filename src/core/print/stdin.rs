//! Piped standard input in print mode: each real CLI's own rule for combining it with the
//! prompt argument, measured on claude 2.1.332, codex 0.171.0 and gemini 0.61.0 (the model
//! server logged the user message each one sent):
//!
//! | CLI | `printf 'x\ny\n' \| cli -p "Count"` sends |
//! |---|---|
//! | `claude -p` | `Count\nx\ny\n` — prompt, one newline, stdin as read |
//! | `codex exec` | `Count\n\n<stdin>\nx\ny\n</stdin>` — a newline is added before `</stdin>` only when stdin lacks one; `codex exec -` sends stdin alone |
//! | `gemini -p` | `x\ny\n\n\nCount` — stdin as read, two newlines, prompt |
//! | `opencode run` | `Count\nx\ny\n` — prompt, one newline, stdin as read (run.ts: `message += "\n" + stdin`); an argument holding a space is sent in double quotes (`opencode run "say hi"` sends `"say hi"`, recorded on 1.18.33) |
//!
//! Empty stdin (`</dev/null`) leaves the prompt alone on all three; no prompt (or `-`) makes
//! stdin the prompt.

use crate::core::errors::{Error, Result};
use crate::core::providers::Provider;

/// Standard input as text, or a typed error naming the first byte no TUI can take.
pub fn stdin_text(bytes: &[u8]) -> Result<&str> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::StdinNotText {
        at: e.valid_up_to(),
        what: "is not valid UTF-8",
    })?;
    match bytes.iter().position(|b| *b == 0) {
        Some(at) => Err(Error::StdinNotText {
            at,
            what: "is a NUL byte",
        }),
        None => Ok(text),
    }
}

/// The prompt the provider's own print mode would send for `prompt` (None or `-`: absent) and
/// piped `stdin` (empty when none was piped).
pub fn combine(provider: Provider, prompt: Option<&str>, stdin: &str) -> String {
    let prompt = prompt.filter(|p| *p != "-");
    match (prompt, stdin.is_empty()) {
        (None, _) => stdin.to_string(),
        (Some(prompt), true) => prompt.to_string(),
        (Some(prompt), false) => provider.module().print().join_stdin(prompt, stdin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencode_joins_its_quoted_prompt_and_stdin_with_one_newline() {
        assert_eq!(
            combine(Provider::Opencode, Some("Count"), "x\ny\n"),
            "Count\nx\ny\n"
        );
        assert_eq!(
            combine(Provider::Opencode, Some("say hi"), "x"),
            "\"say hi\"\nx"
        );
    }

    #[test]
    fn each_provider_combines_as_its_own_print_mode() {
        let x = "x\ny\n";
        assert_eq!(combine(Provider::Claude, Some("Count"), x), "Count\nx\ny\n");
        assert_eq!(
            combine(Provider::Codex, Some("Count"), x),
            "Count\n\n<stdin>\nx\ny\n</stdin>"
        );
        assert_eq!(
            combine(Provider::Gemini, Some("Count"), x),
            "x\ny\n\n\nCount"
        );
    }

    #[test]
    fn codex_closes_stdin_on_its_own_line() {
        assert_eq!(
            combine(Provider::Codex, Some("P1"), "NONL"),
            "P1\n\n<stdin>\nNONL\n</stdin>"
        );
        assert_eq!(
            combine(Provider::Codex, Some("P2"), "  sp\n\n\n"),
            "P2\n\n<stdin>\n  sp\n\n\n</stdin>"
        );
    }

    #[test]
    fn stdin_is_kept_as_read() {
        assert_eq!(combine(Provider::Claude, Some("P1"), "NONL"), "P1\nNONL");
        assert_eq!(
            combine(Provider::Gemini, Some("P2"), "  sp\n\n\n"),
            "  sp\n\n\n\n\nP2"
        );
    }

    #[test]
    fn empty_stdin_leaves_the_prompt_and_no_prompt_takes_stdin() {
        for p in [
            Provider::Claude,
            Provider::Codex,
            Provider::Gemini,
            Provider::Opencode,
        ] {
            assert_eq!(combine(p, Some("P0"), ""), "P0");
            assert_eq!(combine(p, None, "x\n"), "x\n");
            assert_eq!(combine(p, Some("-"), "x\n"), "x\n");
        }
    }

    #[test]
    fn binary_stdin_is_refused_naming_the_byte() {
        let e = stdin_text(b"ok\xffno").unwrap_err();
        assert_eq!(e.code(), "stdin_not_text");
        assert!(e.to_string().contains("byte 2"), "{e}");
        assert_eq!(e.exit_code(), 2);
        let e = stdin_text(b"a\0b").unwrap_err();
        assert!(e.to_string().contains("NUL"), "{e}");
        assert_eq!(stdin_text("ünï\n".as_bytes()).unwrap(), "ünï\n");
    }
}
