//! The private tmux socket: `umbel-` and the first 12 hex digits of the SHA-256 of the state
//! root's path. Every state root gets its own tmux server; the user's default server is never
//! touched. `UMBEL_TMUX_SOCKET` overrides the derived name (the caller reads it, not this module).

use sha2::{Digest, Sha256};
use std::path::Path;

/// The socket name for a state root.
pub fn socket_name(state_root: &Path) -> String {
    let digest = Sha256::digest(state_root.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("umbel-{hex}")
}

/// Checks a `UMBEL_TMUX_SOCKET` name: a plain name of letters, digits, `_` and `-` (at most 64),
/// and never `default`. A path such as `./default` would reach the user's own server through
/// tmux's `-L`, so no `/` or `.` gets through.
pub fn check_override(name: &str) -> Result<(), String> {
    let plain = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !plain {
        return Err(format!(
            "UMBEL_TMUX_SOCKET={name:?} is not a plain socket name: use letters, digits, `_` and `-` only (at most 64)"
        ));
    }
    if name == "default" {
        return Err(
            "UMBEL_TMUX_SOCKET=default would put workers on the user's own tmux server; pick another name"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_other_than_default_override_the_socket() {
        for ok in ["mine", "umbel-test_2", "A"] {
            assert_eq!(check_override(ok), Ok(()), "{ok}");
        }
        for bad in [
            "default",
            "./default",
            "../default",
            "a/b",
            "x.y",
            "",
            "a b",
            &"x".repeat(65),
        ] {
            assert!(check_override(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn derived_from_sha256_of_the_path() {
        let name = socket_name(Path::new("/home/u/.umbel"));
        assert_eq!(name.len(), "umbel-".len() + 12);
        assert!(name.starts_with("umbel-"));
        assert_eq!(name, socket_name(Path::new("/home/u/.umbel")));
        assert_ne!(name, socket_name(Path::new("/home/u/.umbel2")));
        assert_ne!(name, "default");
    }

    #[test]
    fn matches_a_known_digest() {
        // printf %s /tmp/x | sha256sum → 2e56aa36f538…
        assert_eq!(
            socket_name(Path::new("/tmp/x")),
            format!("umbel-{}", &KNOWN[..12])
        );
    }

    const KNOWN: &str = "2e56aa36f538";
}
