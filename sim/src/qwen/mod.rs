//! fake-qwen: a stand-in for Qwen Code 0.24.4, a Gemini CLI fork, played by fake-gemini's
//! engine ([`crate::gemini`]) in its Qwen [`Flavor`](crate::gemini::flavor::Flavor).
//!
//! What differs is data, recorded from the real qwen against fake-model
//! (`tests/data/qwen/`): its home (`$QWEN_HOME`, else `~/.qwen`, no folder trust by default),
//! its release and header, its sign-in check and "Connect a Provider" box, the `›` cursor of
//! its choices, its Claude-style hook names and payloads ([`hooks`]) and its chat records
//! ([`records`]). Both translate what fake-gemini's turn produces, so the turn, tool and
//! dialog logic is fake-gemini's own.

pub mod hooks;
pub mod records;

use std::process::ExitCode;

use crate::engine::entry;
use crate::gemini::{Failure, flavor};

/// The release fake-qwen plays unless `UMBEL_SIM_VERSION` names another.
pub const PINNED: crate::release::Version = crate::release::Version::new(0, 24, 4);

/// The variables qwen signs in with (an OpenAI-compatible key, or DashScope's).
pub const KEY_VARS: [&str; 2] = ["OPENAI_API_KEY", "DASHSCOPE_API_KEY"];

/// The sign-in box's heading.
pub const SIGN_IN: &str = "Connect a Provider";

/// The binary's `main`: fake-gemini's, playing Qwen Code.
pub fn main() -> ExitCode {
    flavor::set(flavor::Flavor::Qwen);
    entry::main(crate::gemini::run, |failure| match failure {
        Failure::Usage(msg) => msg,
        Failure::Fake(msg) => format!("fake-qwen: {msg}"),
    })
}

/// The auth type qwen would use: settings' `security.auth.selectedType`, else `openai` when a
/// key is in the environment.
pub fn auth_type(selected: Option<&String>) -> Option<String> {
    selected.cloned().or_else(|| {
        KEY_VARS
            .iter()
            .any(|v| std::env::var(v).is_ok_and(|k| !k.is_empty()))
            .then(|| "openai".to_string())
    })
}

/// The sign-in box qwen 0.24.4 opens without a provider
/// (`tests/data/qwen/qwen-0.24.4-sign-in.txt`).
pub fn sign_in_box(width: usize) -> Vec<String> {
    let rows: Vec<String> = [
        "",
        SIGN_IN,
        "",
        "› Alibaba ModelStudio",
        "  Official recommended setup: Coding Plan, Token Plan, or Standard API Key",
        "",
        "  Third-party Providers",
        "  Choose a built-in provider and connect with an API key",
        "",
        "  Custom Provider",
        "  Manually connect a local server, proxy, or unsupported provider",
        "",
        "Terms of Services and Privacy Notice:",
        "https://qwenlm.github.io/qwen-code-docs/en/users/support/tos-privacy/",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    crate::gemini::boxes::rounded(&rows, width.saturating_sub(4).min(100), 2, 1)
}

/// Where qwen keeps a session's chat record: `<dir>/projects/<cwd with every character but
/// ASCII letters and digits made ->/chats/<session>.jsonl`.
pub fn chat_path(dir: &std::path::Path, cwd: &std::path::Path, id: &str) -> std::path::PathBuf {
    let project: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    dir.join("projects")
        .join(project)
        .join("chats")
        .join(format!("{id}.jsonl"))
}

#[cfg(test)]
mod tests;
