//! How each flag umbel passes through reaches copilot (the table docs/print-mode.md shows).

use super::super::flags::{Flag, Mapping};

/// copilot, the newest tested release (`copilot --help`, `copilot help permissions`).
pub const FLAGS: &[(Flag, Mapping)] = &[
    (Flag::Model, Mapping::Args(&["--model"])),
    (
        Flag::PermissionMode,
        Mapping::Refused(
            "copilot has no permission modes on its command line: use `--on-permission` (`stop`, `deny`, `allow`), or `--allowed-tools`/`--disallowed-tools`",
        ),
    ),
    (Flag::AllowedTools, Mapping::Rule),
    (Flag::DisallowedTools, Mapping::Rule),
    (
        Flag::AppendSystemPrompt,
        Mapping::Refused(
            "copilot reads extra instructions from AGENTS.md or .github/copilot-instructions.md",
        ),
    ),
    (
        Flag::SystemPrompt,
        Mapping::Refused("copilot sets a custom agent's prompt in its agent file (`--agent`)"),
    ),
    (Flag::MaxTurns, Mapping::Held),
    (
        Flag::McpConfig,
        Mapping::Refused(
            "copilot reads MCP servers from ~/.copilot/mcp-config.json (a worker links it); `--additional-mcp-config` after `--` adds more",
        ),
    ),
    (Flag::AddDir, Mapping::Same),
    (
        Flag::Resume,
        Mapping::Refused(
            "umbel has not tested copilot's `--resume` together with the `--session-id` it gives each worker: use `umbel resume`",
        ),
    ),
    (
        Flag::Continue,
        Mapping::Refused(
            "umbel has not tested copilot's `--continue` together with the `--session-id` it gives each worker",
        ),
    ),
];
