//! fake-codex's command line: the options umbel uses (plus a few harmless
//! real ones, accepted and ignored), with clap's error wording and exit 2.

use super::release::{Codex, Release};

/// `codex --help` (recorded from 0.171.0).
pub const HELP: &str = include_str!("assets/help.txt");
/// `codex exec --help` (recorded from 0.171.0).
pub const EXEC_HELP: &str = include_str!("assets/exec-help.txt");

const SUBCOMMANDS: &[&str] = &[
    "agents",
    "review",
    "login",
    "logout",
    "mcp",
    "plugin",
    "app-server",
    "remote-control",
    "completion",
    "update",
    "doctor",
    "sandbox",
    "debug",
    "apply",
    "a",
    "resume",
    "queue",
    "archive",
    "delete",
    "migrate-rollouts",
    "migrate-nfs-db",
    "unarchive",
    "fork",
    "cloud",
    "exec-server",
    "features",
    "help",
];
const SANDBOX: &[&str] = &["read-only", "workspace-write", "danger-full-access"];
const APPROVAL: &[&str] = &["on-request", "never"];

#[derive(Clone, Copy, PartialEq)]
enum Scope {
    Both,
    Top,
    Exec,
}

struct Spec {
    long: &'static str,
    short: Option<char>,
    value: Option<&'static str>,
    scope: Scope,
}

const fn spec(
    long: &'static str,
    short: Option<char>,
    value: Option<&'static str>,
    scope: Scope,
) -> Spec {
    Spec {
        long,
        short,
        value,
        scope,
    }
}

const SPECS: &[Spec] = &[
    spec("model", Some('m'), Some("<MODEL>"), Scope::Both),
    spec("config", Some('c'), Some("<key=value>"), Scope::Both),
    spec("cd", Some('C'), Some("<DIR>"), Scope::Both),
    spec(
        "dangerously-bypass-approvals-and-sandbox",
        None,
        None,
        Scope::Both,
    ),
    spec("dangerously-bypass-hook-trust", None, None, Scope::Both),
    spec("sandbox", Some('s'), Some("<SANDBOX_MODE>"), Scope::Both),
    spec("enable", None, Some("<FEATURE>"), Scope::Both),
    spec("disable", None, Some("<FEATURE>"), Scope::Both),
    spec("add-dir", None, Some("<DIR>"), Scope::Both),
    spec(
        "profile",
        Some('p'),
        Some("<CONFIG_PROFILE_V2>"),
        Scope::Both,
    ),
    spec("version", Some('V'), None, Scope::Both),
    spec("help", Some('h'), None, Scope::Both),
    spec("no-daemon", None, None, Scope::Top),
    spec("no-alt-screen", None, None, Scope::Top),
    spec("search", None, None, Scope::Top),
    spec(
        "ask-for-approval",
        Some('a'),
        Some("<APPROVAL_POLICY>"),
        Scope::Top,
    ),
    spec("json", None, None, Scope::Exec),
    spec("skip-git-repo-check", None, None, Scope::Exec),
    spec("ephemeral", None, None, Scope::Exec),
    spec("color", None, Some("<COLOR>"), Scope::Exec),
    spec(
        "output-last-message",
        Some('o'),
        Some("<FILE>"),
        Scope::Exec,
    ),
];

/// Parsed options (TUI and `exec`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// `-m/--model`.
    pub model: Option<String>,
    /// `-c key=value`, in order.
    pub overrides: Vec<String>,
    /// `-C/--cd`.
    pub cd: Option<String>,
    /// `--dangerously-bypass-approvals-and-sandbox`.
    pub bypass_approvals: bool,
    /// `-a/--ask-for-approval never`: an escalation is rejected, never asked for.
    pub approval_never: bool,
    /// `--dangerously-bypass-hook-trust`.
    pub bypass_hook_trust: bool,
    /// `--no-daemon`.
    pub no_daemon: bool,
    /// `exec` (print mode).
    pub exec: bool,
    /// `exec --json`.
    pub json: bool,
    /// `exec --skip-git-repo-check`.
    pub skip_git_repo_check: bool,
    /// `exec --ephemeral`: no rollout file.
    pub ephemeral: bool,
    /// `exec -o FILE`.
    pub output_last_message: Option<String>,
    /// The positional prompt.
    pub prompt: Option<String>,
    /// `codex resume <id>` (the TUI on that thread, appended to its rollout) or `codex fork <id>`.
    pub thread: Option<Thread>,
}

/// Which earlier thread `codex resume`/`codex fork` opens.
#[derive(Clone, Debug, PartialEq)]
pub struct Thread {
    /// The thread id given.
    pub id: String,
    /// `fork`: a new thread starting with a copy of its records.
    pub fork: bool,
}

/// What the command line asks for.
pub type Action = crate::engine::entry::Action<Options>;

/// A rejected command line: clap's message, exit 2.
#[derive(Clone, Debug, PartialEq)]
pub struct Usage(pub String);

fn usage_lines(exec: bool) -> &'static str {
    if exec {
        "Usage: codex exec [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] <COMMAND> [ARGS]"
    } else {
        "Usage: codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]"
    }
}

fn unexpected(arg: &str, exec: bool) -> Usage {
    let tip = if arg.starts_with('-') {
        format!("\n  tip: to pass '{arg}' as a value, use '-- {arg}'\n")
    } else {
        String::new()
    };
    Usage(format!(
        "error: unexpected argument '{arg}' found\n{tip}\n{}\n\nFor more information, try '--help'.",
        usage_lines(exec)
    ))
}

fn missing(s: &Spec) -> Usage {
    let flag = format!("--{} {}", s.long, s.value.unwrap_or(""));
    Usage(format!(
        "error: a value is required for '{flag}' but none was supplied\n\nFor more information, try '--help'."
    ))
}

fn check_choice(s: &Spec, v: &str, choices: &[&str]) -> Result<(), Usage> {
    if choices.contains(&v) {
        return Ok(());
    }
    Err(Usage(format!(
        "error: invalid value '{v}' for '--{} {}'\n  [possible values: {}]\n\nFor more information, try '--help'.",
        s.long,
        s.value.unwrap_or(""),
        choices.join(", ")
    )))
}

/// What a release without [`Codex::NoDaemonFlag`] says to `--no-daemon` (recorded from 0.155.1).
fn no_daemon_unknown() -> Usage {
    Usage(format!(
        "error: unexpected argument '--no-daemon' found\n\n  tip: a similar argument exists: '--no-alt-screen'\n\n{}\n\nFor more information, try '--help'.",
        usage_lines(false)
    ))
}

/// Parses arguments (without the program name) as the release played parses them.
pub fn parse(argv: &[String]) -> Result<Action, Usage> {
    parse_for(super::release::current(), argv)
}

/// Parses arguments (without the program name) as `release` does.
pub fn parse_for(release: Release, argv: &[String]) -> Result<Action, Usage> {
    let mut o = Options::default();
    let mut i = 0;
    let mut positional_only = false;
    while i < argv.len() {
        let arg = argv[i].as_str();
        i += 1;
        if positional_only || arg == "-" || !arg.starts_with('-') {
            if !o.exec && o.prompt.is_none() && !positional_only {
                if arg == "exec" || arg == "e" {
                    o.exec = true;
                    continue;
                }
                if (arg == "resume" || arg == "fork") && o.thread.is_none() {
                    o.thread = Some(Thread {
                        id: String::new(),
                        fork: arg == "fork",
                    });
                    continue;
                }
                if let Some(thread) = o.thread.as_mut().filter(|t| t.id.is_empty()) {
                    thread.id = arg.to_string();
                    continue;
                }
                if o.thread.is_none() && SUBCOMMANDS.contains(&arg) {
                    return Err(Usage(format!(
                        "fake-codex: `codex {arg}` is not simulated (only the TUI and `codex exec`)"
                    )));
                }
            }
            if o.prompt.is_some() {
                return Err(unexpected(arg, o.exec));
            }
            o.prompt = Some(arg.to_string());
            continue;
        }
        if arg == "--" {
            positional_only = true;
            continue;
        }
        let (found, inline) = if let Some(body) = arg.strip_prefix("--") {
            let (name, v) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            (SPECS.iter().find(|s| s.long == name), v)
        } else {
            let mut chars = arg[1..].chars();
            let c = chars.next();
            let rest: String = chars.collect();
            let rest = rest.strip_prefix('=').map(str::to_string).unwrap_or(rest);
            let found = SPECS.iter().find(|s| s.short.is_some() && s.short == c);
            match found {
                Some(s) if s.value.is_none() && !rest.is_empty() => {
                    return Err(unexpected(arg, o.exec));
                }
                _ => (found, (!rest.is_empty()).then_some(rest)),
            }
        };
        let scope_ok = |s: &Spec| s.scope == Scope::Both || (s.scope == Scope::Exec) == o.exec;
        let Some(s) = found.filter(|s| scope_ok(s)) else {
            return Err(unexpected(arg.split('=').next().unwrap_or(arg), o.exec));
        };
        let value = match (s.value, inline) {
            (None, Some(v)) => {
                return Err(Usage(format!(
                    "error: unexpected value '{v}' for '--{}' found; no more were expected\n\n{}\n\nFor more information, try '--help'.",
                    s.long,
                    usage_lines(o.exec)
                )));
            }
            (None, None) => None,
            (Some(_), Some(v)) => Some(v),
            (Some(_), None) => match argv.get(i) {
                Some(v) if !(v.starts_with('-') && v.len() > 1) => {
                    i += 1;
                    Some(v.clone())
                }
                _ => return Err(missing(s)),
            },
        };
        let v = value.unwrap_or_default();
        match s.long {
            "help" => return Ok(Action::Print(if o.exec { EXEC_HELP } else { HELP })),
            "version" => return Ok(Action::Version),
            "model" => o.model = Some(v),
            "config" => o.overrides.push(v),
            "cd" => o.cd = Some(v),
            "dangerously-bypass-approvals-and-sandbox" => o.bypass_approvals = true,
            "dangerously-bypass-hook-trust" => o.bypass_hook_trust = true,
            "no-daemon" if !release.has(Codex::NoDaemonFlag) => return Err(no_daemon_unknown()),
            "no-daemon" => o.no_daemon = true,
            "json" => o.json = true,
            "skip-git-repo-check" => o.skip_git_repo_check = true,
            "ephemeral" => o.ephemeral = true,
            "output-last-message" => o.output_last_message = Some(v),
            "sandbox" => check_choice(s, &v, SANDBOX)?,
            "ask-for-approval" => {
                check_choice(s, &v, APPROVAL)?;
                o.approval_never = v == "never";
            }
            _ => {}
        }
    }
    if o.thread.as_ref().is_some_and(|t| t.id.is_empty()) {
        return Err(Usage(
            "fake-codex: the session picker of `codex resume`/`codex fork` is not simulated (give an id)"
                .into(),
        ));
    }
    Ok(Action::Run(o))
}

/// `-c` overrides as (dotted key, value); the value is TOML, or the raw text
/// when it is not valid TOML (as the real CLI does).
pub fn overrides(list: &[String]) -> Result<Vec<(String, serde_json::Value)>, String> {
    list.iter()
        .map(|raw| {
            let (k, v) = raw.split_once('=').ok_or_else(|| {
                format!("Error parsing -c overrides: Invalid override (missing '='): {raw}")
            })?;
            let value = super::config_toml::parse_value(v)
                .unwrap_or_else(|_| serde_json::Value::from(v.trim()));
            Ok((k.trim().to_string(), value))
        })
        .collect()
}

#[cfg(test)]
#[path = "cli_tests.rs"]
mod tests;
