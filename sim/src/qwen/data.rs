//! What Qwen Code 0.24.4 says and keeps where Gemini CLI differs (recorded in
//! `tests/data/qwen/`): its release, sign-in keys and box, and its chat record's place.

/// The release fake-qwen plays unless `UMBEL_SIM_VERSION` names another.
pub const PINNED: crate::release::Version = crate::release::Version::new(0, 24, 4);

/// The variables qwen signs in with (an OpenAI-compatible key, or DashScope's).
pub const KEY_VARS: [&str; 2] = ["OPENAI_API_KEY", "DASHSCOPE_API_KEY"];

/// The sign-in box's heading.
pub const SIGN_IN: &str = "Connect a Provider";

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

/// The rows of the sign-in box qwen 0.24.4 opens without a provider
/// (`tests/data/qwen/qwen-0.24.4-sign-in.txt`).
pub fn sign_in_rows() -> Vec<String> {
    [
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
    .collect()
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
