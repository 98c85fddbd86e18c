//! Workers on other hosts, the pure part: the local record of a remote worker, which hosts are
//! acceptable, the arguments forwarded to the host's umbel, and what an ssh failure means.

use super::errors::{Error, Result};
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
    let mut out = Vec::with_capacity(typed.len());
    let mut rest = typed.iter();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            out.push(arg.clone());
            out.extend(rest.cloned());
            break;
        }
        if arg == "--host" {
            rest.next();
        } else if !arg.starts_with("--host=") {
            out.push(arg.clone());
        }
    }
    out
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
