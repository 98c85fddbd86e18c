//! The agent-CLI flags umbel passes through (`-p`, `spawn`, workflow workers, MCP): one table per
//! provider (`<name>/flag_table.rs`) saying how each flag reaches the CLI — the same flag, the provider's own flag of
//! another name, a setting in the settings file umbel writes, a `-c` config override, or a
//! refusal naming what to use instead. docs/print-mode.md shows these tables (a test keeps it
//! true). Checked before anything is created; applied by each provider's `launch`.

use super::Provider;
use crate::core::errors::{Error, Result};
use serde_json::{Map, Value, json};

/// A flag umbel passes through, named as umbel spells it (claude's spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    /// `--model/-m`.
    Model,
    /// `--permission-mode`.
    PermissionMode,
    /// `--allowed-tools` (`--allowedTools`).
    AllowedTools,
    /// `--disallowed-tools` (`--disallowedTools`).
    DisallowedTools,
    /// `--append-system-prompt`.
    AppendSystemPrompt,
    /// `--system-prompt`.
    SystemPrompt,
    /// `--max-turns`.
    MaxTurns,
    /// `--mcp-config`.
    McpConfig,
    /// `--add-dir`.
    AddDir,
    /// `--resume`.
    Resume,
    /// `--continue`.
    Continue,
}

impl Flag {
    /// Every passthrough flag, in the order of the docs.
    pub const ALL: [Flag; 11] = [
        Flag::Model,
        Flag::PermissionMode,
        Flag::AllowedTools,
        Flag::DisallowedTools,
        Flag::AppendSystemPrompt,
        Flag::SystemPrompt,
        Flag::MaxTurns,
        Flag::McpConfig,
        Flag::AddDir,
        Flag::Resume,
        Flag::Continue,
    ];

    /// The flag as umbel's command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Flag::Model => "--model",
            Flag::PermissionMode => "--permission-mode",
            Flag::AllowedTools => "--allowed-tools",
            Flag::DisallowedTools => "--disallowed-tools",
            Flag::AppendSystemPrompt => "--append-system-prompt",
            Flag::SystemPrompt => "--system-prompt",
            Flag::MaxTurns => "--max-turns",
            Flag::McpConfig => "--mcp-config",
            Flag::AddDir => "--add-dir",
            Flag::Resume => "--resume",
            Flag::Continue => "--continue",
        }
    }
}

/// How a flag reaches one provider's CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mapping {
    /// The same flag, once per value.
    Same,
    /// These arguments, then the value (once per value): the provider's own spelling.
    Args(&'static [&'static str]),
    /// A setting in the settings file umbel writes (a JSON pointer); list values are appended.
    Setting(&'static str),
    /// `-c <key>=<value as a TOML string>` (codex's config override).
    Config(&'static str),
    /// Not available with this provider: why, and what to use instead.
    Refused(&'static str),
    /// Not a flag: the launch itself changes (a subcommand), as the text says.
    Launch(&'static str),
    /// Not handed to the CLI: umbel applies it as a rule on the CLI's permission hook
    /// (`core::rules`), answering with the CLI's own keys.
    Rule,
    /// Not handed to the CLI: umbel holds it itself, on every CLI alike (`--max-turns`: a
    /// turn is stopped at the first response past the limit; docs/budgets.md).
    Held,
}

impl Mapping {
    /// One word for the docs: `same`, `mapped`, `umbel` (held by umbel) or `refused`.
    pub fn kind(self) -> &'static str {
        match self {
            Mapping::Same => "same",
            Mapping::Held => "umbel",
            Mapping::Refused(_) => "refused",
            _ => "mapped",
        }
    }
}

impl Mapping {
    /// What the provider gets, as docs/print-mode.md writes it in its "CLI gets" column: the
    /// arguments, the setting's dotted path, the `-c` key, or why it is refused.
    pub fn target(self, flag: Flag) -> String {
        match self {
            Mapping::Same => format!("`{}`", flag.name()),
            Mapping::Args(args) => format!("`{}`", args.join(" ")),
            Mapping::Setting(pointer) => {
                format!(
                    "setting `{}`",
                    pointer.trim_start_matches('/').replace('/', ".")
                )
            }
            Mapping::Config(key) => format!("`-c {key}=…`"),
            Mapping::Refused(why) | Mapping::Launch(why) => why.to_string(),
            Mapping::Rule => "umbel's rule, answered on its permission hook".to_string(),
            Mapping::Held => {
                "umbel's limit: the turn is stopped at the response past it".to_string()
            }
        }
    }
}

/// The provider's table (`<name>/flag_table.rs`).
pub fn table(provider: Provider) -> &'static [(Flag, Mapping)] {
    provider.module().identity().flags
}

/// One passthrough flag as given: its values (none for a switch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    pub flag: Flag,
    pub values: Vec<String>,
}

fn mapping(provider: Provider, flag: Flag) -> Mapping {
    table(provider)
        .iter()
        .find(|(f, _)| *f == flag)
        .map_or(Mapping::Refused("not in umbel's table"), |(_, m)| *m)
}

/// Refuses the first given flag the provider lacks, naming the flag, the provider and what to
/// use instead (and a `--max-turns` of 0, which YAML and MCP can give).
pub fn check(provider: Provider, given: &[Given]) -> Result<()> {
    for g in given {
        if g.flag == Flag::MaxTurns && g.values.iter().any(|v| v == "0") {
            return Err(Error::usage(
                "`--max-turns` is 1 or more: 0 would stop every turn at its first response",
            ));
        }
        if let Mapping::Refused(why) = mapping(provider, g.flag) {
            return Err(Error::usage(format!(
                "`{}` is not available with {provider}: {why}",
                g.flag.name()
            )));
        }
    }
    Ok(())
}

/// The command-line arguments of the given flags (same, other spelling, `-c` overrides).
pub fn args(provider: Provider, given: &[Given]) -> Vec<String> {
    let mut args = Vec::new();
    for g in given {
        let flag = g.flag.name();
        let push = |args: &mut Vec<String>, prefix: &[&str]| {
            if g.values.is_empty() {
                args.extend(prefix.iter().map(|a| a.to_string()));
            }
            for value in &g.values {
                args.extend(prefix.iter().map(|a| a.to_string()));
                args.push(value.clone());
            }
        };
        match mapping(provider, g.flag) {
            Mapping::Same => push(&mut args, &[flag]),
            Mapping::Args(prefix) => push(&mut args, prefix),
            Mapping::Config(key) => {
                for value in &g.values {
                    args.push("-c".into());
                    args.push(format!("{key}={}", toml_string(value)));
                }
            }
            Mapping::Setting(_)
            | Mapping::Refused(_)
            | Mapping::Launch(_)
            | Mapping::Rule
            | Mapping::Held => {}
        }
    }
    args
}

/// Writes the given flags that are settings into `settings` (a JSON object): a list flag appends
/// to the list already there, any other replaces the value.
pub fn apply_settings(provider: Provider, given: &[Given], settings: &mut Map<String, Value>) {
    for g in given {
        let Mapping::Setting(pointer) = mapping(provider, g.flag) else {
            continue;
        };
        let keys: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
        let Some((last, parents)) = keys.split_last() else {
            continue;
        };
        let Some(at) = object_at(settings, parents) else {
            continue;
        };
        if is_list(g.flag) {
            let list = at.entry(last.to_string()).or_insert_with(|| json!([]));
            if !list.is_array() {
                *list = json!([]);
            }
            if let Some(list) = list.as_array_mut() {
                list.extend(g.values.iter().map(|v| json!(v)));
            }
        } else if let Some(value) = g.values.last() {
            at.insert(last.to_string(), json!(value));
        }
    }
}

/// The object at `keys` below `map`, created (or replacing a non-object) on the way.
fn object_at<'a>(
    map: &'a mut Map<String, Value>,
    keys: &[&str],
) -> Option<&'a mut Map<String, Value>> {
    let Some((key, rest)) = keys.split_first() else {
        return Some(map);
    };
    let next = map
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !next.is_object() {
        *next = Value::Object(Map::new());
    }
    object_at(next.as_object_mut()?, rest)
}

/// Flags that take several values.
pub fn is_list(flag: Flag) -> bool {
    matches!(
        flag,
        Flag::AllowedTools | Flag::DisallowedTools | Flag::AddDir
    )
}

/// A TOML basic string (what `-c key=value` parses as a string): JSON's escapes are TOML's,
/// save DEL, which TOML wants escaped too.
fn toml_string(value: &str) -> String {
    serde_json::to_string(value)
        .unwrap_or_default()
        .replace('\u{7f}', "\\u007F")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(flag: Flag, values: &[&str]) -> Given {
        Given {
            flag,
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    /// Prints the docs tables (`cargo test -p umbel --lib print_docs_tables -- --ignored --nocapture`).
    #[test]
    #[ignore = "prints docs/print-mode.md's tables"]
    fn print_docs_tables() {
        for provider in [
            Provider::Claude,
            Provider::Codex,
            Provider::Gemini,
            Provider::Opencode,
        ] {
            println!("### {provider}\n\n| flag | umbel | CLI gets |\n|---|---|---|");
            for (flag, mapping) in table(provider) {
                let flag_cell = if *flag == Flag::Model {
                    "`--model`, `-m`".to_string()
                } else {
                    format!("`{}`", flag.name())
                };
                println!(
                    "| {flag_cell} | {} | {} |",
                    mapping.kind(),
                    mapping.target(*flag)
                );
            }
            println!();
        }
    }

    /// docs/print-mode.md's "## Flags" tables say what the code does: per provider, every flag
    /// with its kind (same / mapped / refused) and what the CLI gets.
    #[test]
    fn the_docs_tables_match_the_code() {
        let doc = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/print-mode.md"));
        let flags = doc
            .split("\n## ")
            .find(|s| s.starts_with("Flags"))
            .expect("a `## Flags` section");
        for provider in [
            Provider::Claude,
            Provider::Codex,
            Provider::Gemini,
            Provider::Opencode,
        ] {
            let section = flags
                .split("\n### ")
                .find(|s| s.starts_with(provider.as_str()))
                .unwrap_or_else(|| panic!("no `### {provider}` table"));
            let rows: Vec<Vec<&str>> = section
                .lines()
                .filter(|l| l.starts_with("| `"))
                .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
                .collect();
            assert_eq!(rows.len(), Flag::ALL.len(), "{provider}: {rows:?}");
            for ((flag, mapping), row) in table(provider).iter().zip(&rows) {
                assert!(
                    row[0].starts_with(&format!("`{}`", flag.name())),
                    "{provider}: {row:?} is not {}",
                    flag.name()
                );
                assert_eq!(row[1], mapping.kind(), "{provider} {}", flag.name());
                assert_eq!(row[2], mapping.target(*flag), "{provider} {}", flag.name());
            }
        }
    }

    #[test]
    fn every_provider_maps_or_refuses_every_flag() {
        for provider in [
            Provider::Claude,
            Provider::Codex,
            Provider::Gemini,
            Provider::Opencode,
        ] {
            let flags: Vec<Flag> = table(provider).iter().map(|(f, _)| *f).collect();
            assert_eq!(flags, Flag::ALL, "{provider}");
        }
    }

    #[test]
    fn a_refused_flag_names_itself_the_provider_and_the_way_out() {
        let err = check(Provider::Gemini, &[given(Flag::McpConfig, &["m.json"])]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("`--mcp-config`"), "{text}");
        assert!(
            text.contains("gemini") && text.contains("mcpServers"),
            "{text}"
        );
        assert!(check(Provider::Claude, &[given(Flag::McpConfig, &["m.json"])]).is_ok());
    }

    #[test]
    fn args_repeat_the_flag_per_value_and_quote_config_overrides() {
        let list = [
            given(Flag::AllowedTools, &["Bash", "Edit"]),
            given(Flag::Continue, &[]),
        ];
        assert_eq!(
            args(Provider::Claude, &list),
            [
                "--allowedTools",
                "Bash",
                "--allowedTools",
                "Edit",
                "--fork-session",
                "--continue"
            ]
        );
        let note = [given(Flag::AppendSystemPrompt, &["say \"hi\"\nthen go"])];
        assert_eq!(
            args(Provider::Codex, &note),
            ["-c", r#"developer_instructions="say \"hi\"\nthen go""#]
        );
    }

    #[test]
    fn settings_replace_a_value_and_append_to_a_list() {
        let mut settings = serde_json::from_str::<Map<String, Value>>(
            r#"{"tools":{"exclude":["mine"]},"permissions":{"defaultMode":"manual"}}"#,
        )
        .unwrap();
        apply_settings(
            Provider::Claude,
            &[given(Flag::AddDir, &["/data"])],
            &mut settings,
        );
        assert_eq!(
            settings["permissions"]["additionalDirectories"],
            json!(["/data"])
        );
        // A rule umbel applies reaches no CLI setting.
        apply_settings(
            Provider::Gemini,
            &[given(Flag::DisallowedTools, &["WebFetch"])],
            &mut settings,
        );
        assert_eq!(settings["tools"]["exclude"], json!(["mine"]));
        apply_settings(
            Provider::Claude,
            &[given(Flag::PermissionMode, &["plan"])],
            &mut settings,
        );
        assert_eq!(settings["permissions"]["defaultMode"], "plan");
    }
}
