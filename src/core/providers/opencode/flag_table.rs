//! How each flag umbel passes through reaches opencode (the table docs/print-mode.md shows).

use super::super::flags::{Flag, Mapping};

/// opencode, the newest tested release (`opencode --help`; the rest lives in its config).
pub const FLAGS: &[(Flag, Mapping)] = &[
    (Flag::Model, Mapping::Args(&["-m"])),
    (
        Flag::PermissionMode,
        Mapping::Refused(
            "opencode has permission rules in its config instead: use `--on-permission` (`stop`, `deny`, `allow`), or `permission` in opencode.json",
        ),
    ),
    (Flag::AllowedTools, Mapping::Rule),
    (Flag::DisallowedTools, Mapping::Rule),
    (
        Flag::AppendSystemPrompt,
        Mapping::Refused(
            "opencode reads extra instructions from AGENTS.md or `instructions` in its opencode.json",
        ),
    ),
    (
        Flag::SystemPrompt,
        Mapping::Refused(
            "opencode sets an agent's prompt with `agent.<name>.prompt` in its opencode.json",
        ),
    ),
    (Flag::MaxTurns, Mapping::Held),
    (
        Flag::McpConfig,
        Mapping::Refused("opencode reads MCP servers from `mcp` in its opencode.json"),
    ),
    (
        Flag::AddDir,
        Mapping::Refused(
            "opencode works in one directory (allow others with `permission.external_directory`)",
        ),
    ),
    (
        Flag::Resume,
        Mapping::Refused("opencode's `--session` is not launched by umbel yet"),
    ),
    (
        Flag::Continue,
        Mapping::Refused("opencode's `--continue` is not launched by umbel yet"),
    ),
];
