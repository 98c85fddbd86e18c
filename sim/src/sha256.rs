//! SHA-256 as lowercase hex (the `sha2` crate): fake-codex's `trusted_hash` values in
//! `config.toml` and fake-gemini's chat-file `projectHash` (the hex digest of the cwd).

use sha2::{Digest, Sha256};

/// The SHA-256 digest of `data`, as 64 lowercase hex digits.
pub fn hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::hex;

    #[test]
    fn known_digests() {
        assert_eq!(
            hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_fixture_project_hash() {
        // `projectHash` of gemini-0.61.0-chat-session.jsonl, cwd /tmp/probework/proj.
        assert_eq!(
            hex(b"/tmp/probework/proj"),
            "e057e5016006b7bb2c1a5ceda54744a21a1c10460a44c292277481fcaffe3769"
        );
    }
}
