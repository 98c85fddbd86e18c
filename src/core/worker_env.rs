//! The worker's environment, composed without I/O. A worker inherits only an allowlist (locale,
//! terminal, home, path, proxies, temp dirs) plus the configuration variables its provider names
//! one by one; everything else must be passed explicitly with `--env K=V`, or by name with
//! `--env NAME` so a secret never lands on an argv, in meta.json or in a log.
//!
//! The result travels to the pane as `export K='v'` lines through a tmux buffer (see
//! `hooks/launch.sh`), never on a command line.

use super::errors::{Error, Result};

/// The login basics every process umbel starts (a worker, a tmux client) sees when set: who
/// and where the user is, their path, language, temporary folder and terminal colours.
pub const LOGIN: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TMPDIR",
    "COLORTERM",
];

/// Names every worker inherits from umbel's environment when set, besides [`LOGIN`].
pub const ALLOWLIST: &[&str] = &[
    "TZ",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
];

/// Prefixes every worker inherits (locale categories only).
pub const ALLOWED_PREFIXES: &[&str] = &["LC_"];

/// One `--env` request: a literal value, or a variable taken by name from umbel's environment.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EnvSpec {
    /// `--env K=V`
    Literal { name: String, value: String },
    /// `--env NAME` (`source` = `name`), or `K: {fromEnv: SOURCE}` in a YAML or JSON map: the
    /// value comes from umbel's own environment.
    FromEnv { name: String, source: String },
}

impl EnvSpec {
    /// Parses `K=V` (split at the first `=`) or a bare `NAME`.
    pub fn parse(raw: &str) -> Result<Self> {
        let (name, value) = match raw.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (raw, None),
        };
        validate_name(name, raw)?;
        refuse_reserved(name, raw)?;
        Ok(match value {
            Some(v) => EnvSpec::Literal {
                name: name.to_string(),
                value: v.to_string(),
            },
            None => EnvSpec::FromEnv {
                name: name.to_string(),
                source: name.to_string(),
            },
        })
    }

    /// `K: {fromEnv: SOURCE}`: the worker's `K` takes the value of umbel's `SOURCE`.
    pub fn from_env(name: &str, source: &str) -> Result<Self> {
        validate_name(name, name)?;
        refuse_reserved(name, name)?;
        validate_name(source, source)?;
        Ok(EnvSpec::FromEnv {
            name: name.to_string(),
            source: source.to_string(),
        })
    }

    /// The variable this spec sets.
    pub fn name(&self) -> &str {
        match self {
            EnvSpec::Literal { name, .. } | EnvSpec::FromEnv { name, .. } => name,
        }
    }
}

impl std::str::FromStr for EnvSpec {
    type Err = Error;

    fn from_str(raw: &str) -> Result<Self> {
        EnvSpec::parse(raw)
    }
}

/// The prefix of the variables `hooks/launch.sh` keeps for itself (where the worker's events
/// go, its exit record): a worker may not set them.
pub const RESERVED_PREFIX: &str = "__umbel_";

fn refuse_reserved(name: &str, raw: &str) -> Result<()> {
    if name.starts_with(RESERVED_PREFIX) {
        return Err(Error::usage(format!(
            "`--env {raw}`: names starting with `{RESERVED_PREFIX}` are reserved for umbel's own launch script; choose another name"
        )));
    }
    Ok(())
}

fn validate_name(name: &str, raw: &str) -> Result<()> {
    let mut chars = name.chars();
    let ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "`--env {raw}`: `{name}` is not a valid variable name (letters, digits and `_`, not starting with a digit)"
        )))
    }
}

/// The most one environment variable may take, `NAME=value` and its final NUL together: the
/// kernel refuses to start a program given a longer one (Linux's `MAX_ARG_STRLEN`, 32 pages), so
/// the CLI would fail to start with nothing but "exited with status 126".
pub const MAX_VARIABLE_BYTES: usize = 131_072;

/// Why `name=value` cannot be given to a program, when it is longer than
/// [`MAX_VARIABLE_BYTES`].
pub fn too_long(name: &str, value: &str) -> Option<String> {
    let bytes = name.len() + 1 + value.len() + 1;
    (bytes > MAX_VARIABLE_BYTES).then(|| {
        format!(
            "its value is {} bytes, and one environment variable may take at most {MAX_VARIABLE_BYTES} bytes (128 KiB, with its name, `=` and the final NUL: the kernel's limit, MAX_ARG_STRLEN), or the CLI cannot start; pass that much in a file instead",
            value.len()
        )
    })
}

/// What a provider contributes to its workers' environment.
#[derive(Debug, Clone, Copy)]
pub struct ProviderEnv {
    /// Configuration variables inherited by exact name.
    pub inherit: &'static [&'static str],
    /// Variables always set for this provider's workers.
    pub fixed: &'static [(&'static str, &'static str)],
}

/// Composes the worker's environment, lowest precedence first: allowlist, provider names,
/// provider fixed values, explicit `--env`, then umbel's own reserved variables.
pub fn compose(
    parent: &[(String, String)],
    provider: ProviderEnv,
    requested: &[EnvSpec],
    reserved: &[(String, String)],
) -> Result<Vec<(String, String)>> {
    let lookup = |name: &str| {
        parent
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut out: Vec<(String, String)> = Vec::new();
    let set = |out: &mut Vec<(String, String)>, k: &str, v: String| {
        out.retain(|(name, _)| name != k);
        out.push((k.to_string(), v));
    };
    for (k, v) in parent {
        let allowed = LOGIN.contains(&k.as_str())
            || ALLOWLIST.contains(&k.as_str())
            || ALLOWED_PREFIXES.iter().any(|p| k.starts_with(p))
            || provider.inherit.contains(&k.as_str());
        if allowed {
            set(&mut out, k, v.clone());
        }
    }
    for (k, v) in provider.fixed {
        set(&mut out, k, (*v).to_string());
    }
    for spec in requested {
        let value = match spec {
            EnvSpec::Literal { value, .. } => value.clone(),
            EnvSpec::FromEnv { source, .. } => lookup(source).ok_or_else(|| Error::EnvUnset {
                name: source.clone(),
            })?,
        };
        if value.contains('\0') {
            return Err(Error::usage(format!(
                "`--env {}`: the value holds a NUL byte, which no environment can carry",
                spec.name()
            )));
        }
        if let Some(message) = too_long(spec.name(), &value) {
            return Err(Error::usage(format!("`--env {}`: {message}", spec.name())));
        }
        set(&mut out, spec.name(), value);
    }
    for (k, v) in reserved {
        set(&mut out, k, v.clone());
    }
    Ok(out)
}

/// Renders the environment as `export K='v'` lines for `hooks/launch.sh`.
pub fn export_script(env: &[(String, String)]) -> String {
    let mut out = String::new();
    for (k, v) in env {
        out.push_str("export ");
        out.push_str(k);
        out.push('=');
        out.push_str(&shell_quote(v));
        out.push('\n');
    }
    out
}

/// Quotes `value` for a POSIX shell: single quotes, with `'` written as `'\''`.
pub fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: ProviderEnv = ProviderEnv {
        inherit: &["ANTHROPIC_API_KEY", "CLAUDE_CONFIG_DIR"],
        fixed: &[("DISABLE_AUTOUPDATER", "1")],
    };

    use crate::core::test_data::env;

    #[test]
    fn parses_literal_and_by_name_specs() {
        assert_eq!(
            EnvSpec::parse("K=a=b").unwrap(),
            EnvSpec::Literal {
                name: "K".into(),
                value: "a=b".into()
            }
        );
        assert_eq!(
            EnvSpec::parse("SECRET").unwrap(),
            EnvSpec::FromEnv {
                name: "SECRET".into(),
                source: "SECRET".into()
            }
        );
        assert_eq!(
            EnvSpec::parse("K=").unwrap(),
            EnvSpec::Literal {
                name: "K".into(),
                value: String::new()
            }
        );
        for bad in ["=v", "", "1X=v", "A-B=v", "A B"] {
            assert_eq!(EnvSpec::parse(bad).unwrap_err().exit_code(), 2, "{bad:?}");
        }
    }

    #[test]
    fn inherits_only_the_allowlist_and_named_provider_variables() {
        let parent = env(&[
            ("PATH", "/bin"),
            ("LC_ALL", "C"),
            ("ANTHROPIC_API_KEY", "k"),
            ("CLAUDECODE", "1"),
            ("CLAUDE_CODE_ENTRYPOINT", "cli"),
            ("CLAUDE_CODE_CHILD_SESSION", "1"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("SHELL", "/bin/bash"),
            ("BASH_ENV", "x"),
        ]);
        let out = compose(&parent, CLAUDE, &[], &[]).unwrap();
        let names: Vec<&str> = out.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            ["PATH", "LC_ALL", "ANTHROPIC_API_KEY", "DISABLE_AUTOUPDATER"]
        );
    }

    #[test]
    fn explicit_env_wins_and_reserved_wins_over_everything() {
        let parent = env(&[("PATH", "/bin"), ("TOKEN", "s3cret")]);
        let requested = [
            EnvSpec::parse("PATH=/custom").unwrap(),
            EnvSpec::parse("TOKEN").unwrap(),
            EnvSpec::parse("UMBEL_STATE=/evil").unwrap(),
        ];
        let reserved = env(&[("UMBEL_STATE", "/state")]);
        let out = compose(&parent, CLAUDE, &requested, &reserved).unwrap();
        let get = |k: &str| out.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("PATH"), Some("/custom"));
        assert_eq!(get("TOKEN"), Some("s3cret"));
        assert_eq!(get("UMBEL_STATE"), Some("/state"));
    }

    #[test]
    fn a_name_that_is_not_set_is_a_typed_error() {
        let err = compose(&[], CLAUDE, &[EnvSpec::parse("NOPE").unwrap()], &[]).unwrap_err();
        assert!(matches!(err, Error::EnvUnset { ref name } if name == "NOPE"));
    }

    /// The kernel's limit on one variable (`NAME=value` and a NUL in 128 KiB): at it the CLI
    /// starts, past it spawn refuses, naming the variable and the limit.
    #[test]
    fn a_value_past_one_variables_limit_is_refused() {
        let fits = "x".repeat(MAX_VARIABLE_BYTES - "BIG=".len() - 1);
        let specs = [EnvSpec::parse(&format!("BIG={fits}")).unwrap()];
        assert!(compose(&[], CLAUDE, &specs, &[]).is_ok());
        let specs = [EnvSpec::parse(&format!("BIG={fits}x")).unwrap()];
        let err = compose(&[], CLAUDE, &specs, &[]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let said = err.to_string();
        assert!(
            said.contains("`--env BIG`") && said.contains("131072 bytes"),
            "{said}"
        );
        // By name too: the value is umbel's own.
        let parent = env(&[("BIGGER", &format!("{fits}xx"))]);
        let err = compose(&parent, CLAUDE, &[EnvSpec::parse("BIGGER").unwrap()], &[]);
        assert!(err.unwrap_err().to_string().contains("`--env BIGGER`"));
    }

    #[test]
    fn the_launch_scripts_own_variables_are_reserved() {
        let err = EnvSpec::parse("__umbel_events=/tmp/x").unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(
            err.to_string().contains("`--env __umbel_events=/tmp/x`"),
            "{err}"
        );
        assert!(EnvSpec::parse("__umbel_buf").is_err());
        assert!(EnvSpec::from_env("__umbel_path", "HOME").is_err());
        assert!(EnvSpec::from_env("K", "__umbel_x").is_ok());
        assert!(EnvSpec::parse("_umbel_events=x").is_ok());
    }

    #[test]
    fn export_script_round_trips_quotes_and_newlines() {
        let s = export_script(&env(&[("A", "it's\nmulti"), ("B", "")]));
        assert_eq!(s, "export A='it'\\''s\nmulti'\nexport B=''\n");
    }
}
