//! Which CLI this engine plays: Gemini CLI, or Qwen Code (a Gemini CLI fork, see
//! [`crate::qwen`]). One process plays one CLI, chosen by its binary's `main` before anything
//! else runs; tests in this crate play Gemini.

use std::sync::OnceLock;

/// A CLI built on Gemini CLI's TUI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// Gemini CLI itself.
    Gemini,
    /// Qwen Code: its own home, hook names, chat records, version and sign-in.
    Qwen,
}

static CURRENT: OnceLock<Flavor> = OnceLock::new();

/// Chooses the flavor for this process (the first call wins).
pub fn set(flavor: Flavor) {
    let _ = CURRENT.set(flavor);
}

/// The flavor this process plays (Gemini unless [`set`] chose another).
pub fn current() -> Flavor {
    CURRENT.get().copied().unwrap_or(Flavor::Gemini)
}

/// True when this process plays Qwen Code.
pub fn qwen() -> bool {
    current() == Flavor::Qwen
}
