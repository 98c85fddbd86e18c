//! How each flag umbel passes through reaches codex (the table docs/print-mode.md shows).

use super::super::flags::{Flag, Mapping};

/// codex, the newest tested release (`codex --help`; `developer_instructions` observed in the model request).
pub const FLAGS: &[(Flag, Mapping)] = &[
    (Flag::Model, Mapping::Args(&["-m"])),
    (
        Flag::PermissionMode,
        Mapping::Refused(
            "codex has approval policies instead: use `--on-permission` (`stop`, `deny`, `allow`), or `-- --ask-for-approval <policy> --sandbox <mode>`",
        ),
    ),
    (Flag::AllowedTools, Mapping::Rule),
    (Flag::DisallowedTools, Mapping::Rule),
    (
        Flag::AppendSystemPrompt,
        Mapping::Config("developer_instructions"),
    ),
    (
        Flag::SystemPrompt,
        Mapping::Refused(
            "codex has no replacement system prompt on its command line: use `--append-system-prompt` (codex `developer_instructions`)",
        ),
    ),
    (Flag::MaxTurns, Mapping::Held),
    (
        Flag::McpConfig,
        Mapping::Refused(
            "codex reads MCP servers from `[mcp_servers]` in its config.toml: pass them with `-- -c mcp_servers.<name>.command=…`",
        ),
    ),
    (Flag::AddDir, Mapping::Same),
    (
        Flag::Resume,
        Mapping::Launch(
            "`codex resume <id>`, after a copy of the thread's rollout went from your CODEX_HOME into the worker's",
        ),
    ),
    (
        Flag::Continue,
        Mapping::Refused(
            "codex resumes with its `resume --last` subcommand, which umbel does not launch yet",
        ),
    ),
];
