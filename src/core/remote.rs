//! Workers on other hosts, the pure part: the local record of a remote worker, which hosts are
//! acceptable, the arguments forwarded to the host's umbel, and what an ssh failure means.

use super::args::SpawnArgs;
use super::errors::{Error, Result};
use super::until::Until;
use super::worker_env::EnvSpec;
use serde::{Deserialize, Serialize};

/// What the local state keeps of a worker that runs on another host (`remote/<name>.json`):
/// where it runs. Everything else lives on that host, with the worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteRecord {
    /// The worker's name here and on the host.
    pub name: String,
    /// The host, as `ssh` takes it (`user@box`, an alias of ~/.ssh/config).
    pub host: String,
    /// When it was spawned (milliseconds since the epoch).
    pub created_at: u64,
}

/// Refuses a `--host` that ssh would read as an option, or that holds spaces or control
/// characters (it is one argument to ssh, never a shell word).
pub fn check_host(host: &str) -> Result<()> {
    let why = if host.is_empty() {
        Some("it is empty")
    } else if host.starts_with('-') {
        Some("it starts with `-`, which ssh would take for an option")
    } else if host.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("it holds a space or a control character")
    } else {
        None
    };
    match why {
        Some(why) => Err(Error::usage(format!(
            "`--host {host}`: {why}; give a host as ssh takes it (`box`, `user@box`, an alias from ~/.ssh/config)"
        ))),
        None => Ok(()),
    }
}

/// The verb's arguments as the host's umbel gets them: those typed after `umbel`, without
/// `--host` (the worker is local there). Arguments after `--` (the CLI's own) stay untouched.
pub fn forwarded_argv(typed: &[String]) -> Vec<String> {
    let Ok(argv) = map_flag(typed, "host", |_| Ok::<_, std::convert::Infallible>(None));
    argv
}

/// `typed` with each `--FLAG VALUE` or `--FLAG=VALUE` before a `--` replaced by the argument
/// `with` makes of VALUE, or dropped when it makes none. Arguments after `--` stay untouched.
pub fn map_flag<E>(
    typed: &[String],
    flag: &str,
    mut with: impl FnMut(&str) -> std::result::Result<Option<String>, E>,
) -> std::result::Result<Vec<String>, E> {
    let (bare, joined) = (format!("--{flag}"), format!("--{flag}="));
    let mut out = Vec::with_capacity(typed.len());
    let mut rest = typed.iter();
    while let Some(arg) = rest.next() {
        let value = if arg == "--" {
            out.push(arg.clone());
            out.extend(rest.cloned());
            break;
        } else if *arg == bare {
            rest.next().map_or("", String::as_str)
        } else if let Some(value) = arg.strip_prefix(&joined) {
            value
        } else {
            out.push(arg.clone());
            continue;
        };
        out.extend(with(value)?);
    }
    Ok(out)
}

/// `spawn`'s command line for the host's umbel (`--json`, no `--host`), and the variables it
/// reads by name: `(name on the worker, name in this umbel's environment)`. The values of
/// `--env K=V` stay in the arguments, which travel inside the request, never on an argv.
// long: one line per spawn flag, in `--help` order
pub fn spawn_argv(args: &SpawnArgs) -> (Vec<String>, Vec<(String, String)>) {
    let mut argv = vec!["spawn".to_string(), "--json".to_string()];
    let mut by_name = Vec::new();
    let mut flag = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            argv.push(format!("--{name}={value}"));
        }
    };
    let path = |p: &std::path::PathBuf| p.to_string_lossy().into_owned();
    flag("name", args.name.clone());
    flag("provider", Some(args.provider.to_string()));
    flag("cwd", args.cwd.as_ref().map(path));
    flag("model", args.model.clone());
    for spec in &args.env {
        flag(
            "env",
            Some(match spec {
                EnvSpec::Literal { name, value } => format!("{name}={value}"),
                EnvSpec::FromEnv { name, source } => {
                    by_name.push((name.clone(), source.clone()));
                    name.clone()
                }
            }),
        );
    }
    flag(
        "on-permission",
        args.on_permission.map(|p| p.as_str().to_string()),
    );
    flag("startup-timeout", args.startup_timeout.clone());
    flag("permission-mode", args.permission_mode.clone());
    for tool in &args.allowed_tools {
        flag("allowed-tools", Some(tool.clone()));
    }
    for tool in &args.disallowed_tools {
        flag("disallowed-tools", Some(tool.clone()));
    }
    flag("append-system-prompt", args.append_system_prompt.clone());
    flag("system-prompt", args.system_prompt.clone());
    flag("max-turns", args.max_turns.map(|n| n.to_string()));
    flag("max-tokens", args.budget.max_tokens.map(|n| n.to_string()));
    flag(
        "max-budget-usd",
        args.budget.max_budget_usd.map(|n| n.to_string()),
    );
    flag(
        "max-prompts",
        args.budget.max_prompts.map(|n| n.to_string()),
    );
    flag("mcp-config", args.mcp_config.as_ref().map(path));
    for dir in &args.add_dir {
        flag("add-dir", Some(path(dir)));
    }
    flag("resume", args.resume.clone());
    flag("fork-from", args.fork_from.clone());
    // `--worktree` alone (the default branch) is `--worktree=`, which clap reads the same.
    flag("worktree", args.worktree.clone());
    flag("base", args.base.clone());
    for (on, name) in [
        (args.unattended, "--unattended"),
        (args.r#continue, "--continue"),
    ] {
        if on {
            argv.push(name.to_string());
        }
    }
    if !args.cli_args.is_empty() {
        argv.push("--".to_string());
        argv.extend(args.cli_args.iter().cloned());
    }
    (argv, by_name)
}

/// `wait`'s command line for the host's umbel (`--json`); guardrails are not forwarded.
pub fn wait_argv(name: &str, since: Option<usize>, until: &Until) -> Vec<String> {
    let mut argv = vec!["wait".to_string(), name.to_string(), "--json".to_string()];
    let ms = |d: std::time::Duration| format!("{}ms", d.as_millis());
    for (flag, value) in [
        ("since", since.map(|n| n.to_string())),
        ("timeout", Some(ms(until.timeout))),
        ("idle-timeout", until.idle.map(ms)),
        (
            "file",
            until
                .file
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
        ),
        ("pattern", until.pattern.clone()),
    ] {
        if let Some(value) = value {
            argv.push(format!("--{flag}={value}"));
        }
    }
    argv
}

/// What a finished ssh run means when it is not the host's umbel speaking: ssh's own failure
/// (exit 255), no umbel on the host (127), or a host umbel too old to know `remote-exec`.
pub fn classify(host: &str, code: Option<i32>, stderr: &str) -> Option<Error> {
    let last = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("ssh ended without saying why")
        .to_string();
    let host = host.to_string();
    match code {
        Some(255) | None if is_host_key(stderr) => Some(Error::HostKey { host, detail: last }),
        Some(255) | None => Some(Error::HostUnreachable { host, detail: last }),
        Some(127) => Some(Error::RemoteUmbel {
            detail: format!(
                "umbel is not installed there, or not on the PATH of a non-interactive ssh session (\"{last}\"). Install the same umbel version there, or set UMBEL_REMOTE_UMBEL to its path on the host"
            ),
            host,
        }),
        Some(2) if stderr.contains("remote-exec") && stderr.contains("unrecognized") => {
            Some(Error::RemoteUmbel {
                detail: format!(
                    "its umbel is older than this one ({}) and cannot take forwarded verbs; install the same version there",
                    env!("CARGO_PKG_VERSION")
                ),
                host,
            })
        }
        _ => None,
    }
}

fn is_host_key(stderr: &str) -> bool {
    [
        "Host key verification failed",
        "HOST IDENTIFICATION HAS CHANGED",
        "host key for",
    ]
    .iter()
    .any(|needle| stderr.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn host_is_dropped_from_the_forwarded_arguments_but_not_after_the_separator() {
        let typed = strings(&[
            "spawn",
            "--host",
            "box",
            "--name",
            "w",
            "--host=b2",
            "--",
            "--host",
            "x",
        ]);
        assert_eq!(
            forwarded_argv(&typed),
            strings(&["spawn", "--name", "w", "--", "--host", "x"])
        );
    }

    #[test]
    fn spawn_arguments_survive_the_trip_through_the_command_line() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(subcommand)]
            verb: Verb,
        }
        #[derive(clap::Subcommand)]
        enum Verb {
            Spawn {
                #[arg(long)]
                json: bool,
                #[command(flatten)]
                args: SpawnArgs,
            },
        }
        let args: SpawnArgs = serde_json::from_value(serde_json::json!({
            "name": "w", "provider": "codex", "cwd": "/srv/p", "model": "m",
            "env": { "A": "1=2", "TOKEN": { "fromEnv": "MY_TOKEN" } },
            "onPermission": "deny", "allowedTools": ["Bash", "Read"], "maxTurns": 3,
            "addDir": ["/a"], "continue": true, "cliArgs": ["--weird", "--host"],
            "host": "box", "systemPrompt": "--not-a-flag"
        }))
        .unwrap();
        let (argv, by_name) = spawn_argv(&args);
        assert!(!argv.iter().any(|a| a.contains("box")), "{argv:?}");
        assert_eq!(by_name, [("TOKEN".to_string(), "MY_TOKEN".to_string())]);
        let parsed = Cli::try_parse_from(std::iter::once("umbel".to_string()).chain(argv));
        let Verb::Spawn { json, args: back } = parsed.unwrap().verb;
        assert!(json);
        let expected = SpawnArgs {
            host: None,
            env: vec![
                EnvSpec::parse("A=1=2").unwrap(),
                EnvSpec::parse("TOKEN").unwrap(),
            ],
            ..args
        };
        assert_eq!(format!("{back:?}"), format!("{expected:?}"));
    }

    #[test]
    fn wait_arguments_carry_the_parsed_bounds_back_as_text() {
        let until = Until {
            timeout: std::time::Duration::from_millis(1500),
            idle: Some(std::time::Duration::from_secs(2)),
            file: None,
            pattern: Some("LGTM|NACK".into()),
        };
        assert_eq!(
            wait_argv("w", Some(4), &until),
            strings(&[
                "wait",
                "w",
                "--json",
                "--since=4",
                "--timeout=1500ms",
                "--idle-timeout=2000ms",
                "--pattern=LGTM|NACK",
            ])
        );
        let back = crate::core::duration::parse_duration("1500ms", "--timeout").unwrap();
        assert_eq!(back, until.timeout);
    }

    #[test]
    fn hosts_that_ssh_would_misread_are_refused() {
        for bad in ["", "-oProxyCommand=x", "a b", "a\nb"] {
            assert_eq!(check_host(bad).unwrap_err().exit_code(), 2, "{bad:?}");
        }
        for good in ["box", "me@box.example", "[::1]", "alias_1"] {
            check_host(good).unwrap();
        }
    }

    #[test]
    fn ssh_failures_become_typed_errors_and_the_hosts_own_exit_codes_pass() {
        let key = classify("b", Some(255), "Host key verification failed.\n").unwrap();
        assert_eq!((key.code(), key.exit_code()), ("host_key", 255));
        let gone = classify(
            "b",
            Some(255),
            "ssh: connect to host b port 22: Connection refused\n",
        )
        .unwrap();
        assert_eq!(gone.code(), "host_unreachable");
        assert!(gone.to_string().contains("Connection refused"), "{gone}");
        let missing = classify("b", Some(127), "bash: line 1: umbel: command not found\n").unwrap();
        assert_eq!(missing.code(), "remote_umbel");
        assert!(missing.to_string().contains("UMBEL_REMOTE_UMBEL"));
        let old = classify(
            "b",
            Some(2),
            "error: unrecognized subcommand 'remote-exec'\n",
        )
        .unwrap();
        assert!(old.to_string().contains("older"), "{old}");
        for code in [0, 1, 2, 124, 125, 126, 130] {
            assert!(
                classify("b", Some(code), "umbel: busy\n").is_none(),
                "{code}"
            );
        }
    }
}
