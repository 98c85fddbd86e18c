//! How each flag umbel passes through reaches claude (the table docs/print-mode.md shows).

use super::super::flags::{Flag, Mapping};

/// claude, the newest tested release (`claude --help`). `--max-turns` is umbel's: interactive
/// claude 2.1.332 takes the flag and ignores it (a turn ran two requests past `--max-turns 1`,
/// recorded). The permission
/// mode goes in umbel's `--settings`, where a mode keeps the auto-mode opt-in dialog closed.
/// Resuming forks: umbel's `--session-id` names the worker's own session, which claude allows
/// with `--resume`/`--continue` only together with `--fork-session`.
pub const FLAGS: &[(Flag, Mapping)] = &[
    (Flag::Model, Mapping::Same),
    (
        Flag::PermissionMode,
        Mapping::Setting("/permissions/defaultMode"),
    ),
    (Flag::AllowedTools, Mapping::Args(&["--allowedTools"])),
    (Flag::DisallowedTools, Mapping::Args(&["--disallowedTools"])),
    (Flag::AppendSystemPrompt, Mapping::Same),
    (Flag::SystemPrompt, Mapping::Same),
    (Flag::MaxTurns, Mapping::Held),
    (Flag::McpConfig, Mapping::Same),
    (
        Flag::AddDir,
        Mapping::Setting("/permissions/additionalDirectories"),
    ),
    (Flag::Resume, Mapping::Args(&["--fork-session", "--resume"])),
    (
        Flag::Continue,
        Mapping::Args(&["--fork-session", "--continue"]),
    ),
];
