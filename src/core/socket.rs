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

#[cfg(test)]
mod tests {
    use super::*;

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
