//! How each flag umbel passes through reaches qwen (the table docs/print-mode.md shows).

use super::super::flags::{Flag, Mapping};

/// qwen, the newest tested release (`qwen --help`; `tools.exclude` in settings, as gemini).
pub const FLAGS: &[(Flag, Mapping)] = &[
    (Flag::Model, Mapping::Args(&["-m"])),
    (Flag::PermissionMode, Mapping::Args(&["--approval-mode"])),
    (Flag::AllowedTools, Mapping::Rule),
    (Flag::DisallowedTools, Mapping::Rule),
    (Flag::AppendSystemPrompt, Mapping::Same),
    (Flag::SystemPrompt, Mapping::Same),
    (Flag::MaxTurns, Mapping::Held),
    (Flag::McpConfig, Mapping::Same),
    (Flag::AddDir, Mapping::Args(&["--include-directories"])),
    (
        Flag::Resume,
        Mapping::Refused(
            "umbel has not tested qwen's `--resume` together with the `--session-id` it gives each worker",
        ),
    ),
    (
        Flag::Continue,
        Mapping::Refused(
            "umbel has not tested qwen's `--continue` together with the `--session-id` it gives each worker",
        ),
    ),
];
