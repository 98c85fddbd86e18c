//! How each flag umbel passes through reaches gemini (the table docs/print-mode.md shows).

use super::super::flags::{Flag, Mapping};

/// gemini, the newest tested release (`gemini --help`; `tools.exclude` in settings).
pub const FLAGS: &[(Flag, Mapping)] = &[
    (Flag::Model, Mapping::Args(&["-m"])),
    (Flag::PermissionMode, Mapping::Args(&["--approval-mode"])),
    (Flag::AllowedTools, Mapping::Rule),
    (Flag::DisallowedTools, Mapping::Rule),
    (
        Flag::AppendSystemPrompt,
        Mapping::Refused(
            "gemini can only replace its system prompt (`GEMINI_SYSTEM_MD`): put your text in a GEMINI.md in the working directory",
        ),
    ),
    (
        Flag::SystemPrompt,
        Mapping::Refused(
            "gemini reads a replacement system prompt from a file: pass `--env GEMINI_SYSTEM_MD=<file>`",
        ),
    ),
    (Flag::MaxTurns, Mapping::Held),
    (
        Flag::McpConfig,
        Mapping::Refused("gemini reads MCP servers from `mcpServers` in its settings.json"),
    ),
    (Flag::AddDir, Mapping::Args(&["--include-directories"])),
    (
        Flag::Resume,
        Mapping::Refused(
            "gemini's `--resume` cannot be combined with the `--session-id` umbel gives each worker",
        ),
    ),
    (
        Flag::Continue,
        Mapping::Refused(
            "gemini's `--resume latest` cannot be combined with the `--session-id` umbel gives each worker",
        ),
    ),
];
