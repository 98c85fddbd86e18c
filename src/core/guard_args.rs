//! A turn's guardrails as given (`--accept`, `--schema`, …; MCP's and YAML's `guard`), and
//! what of them can be checked without files or programs, shared by every place that takes them.

use super::duration::{DEFAULT_CHECK, parse_or};
use super::errors::{Error, Result};
use super::guard::{CheckCommand, DEFAULT_MAX_ATTEMPTS};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// Guardrails for a turn: checks the answer must pass, enforced by umbel after the turn ends. A
/// failed check is sent back to the worker as feedback and the turn retried, up to
/// `maxAttempts` answers in all; then the outcome is `rejected` (exit 121). See
/// docs/guardrails.md.
#[derive(Debug, Clone, Default, PartialEq, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[command(next_help_heading = "Guardrails (docs/guardrails.md)")]
pub struct GuardArgs {
    /// Accept the answer only if this command exits 0. Split like a shell would split it and
    /// run without one; the answer on its stdin; UMBEL_WORKER, UMBEL_CWD, UMBEL_TRANSCRIPT,
    /// UMBEL_ATTEMPT in its environment; its output is the feedback when it rejects.
    /// In JSON and YAML also an argv list.
    #[arg(long, value_name = "CMD")]
    #[serde(default)]
    pub accept: Option<CheckCommand>,
    /// Run the `--accept` command line through `sh -c` (pipes, `&&`, globs).
    #[arg(long, requires = "accept")]
    #[serde(default)]
    pub accept_shell: bool,
    /// The answer must be a JSON value (a fenced ```json block counts) valid against this JSON
    /// Schema file (or the schema itself, inline JSON starting with `{`); checked before
    /// `--accept`, which then gets the clean JSON.
    // Without the `schema` feature (no JSON Schema validator built in) neither a flag nor a
    // JSON/YAML key: clap and serde skip it, so it stays `None`.
    #[cfg_attr(feature = "schema", arg(long, value_name = "FILE"))]
    #[cfg_attr(not(feature = "schema"), arg(skip))]
    #[cfg_attr(feature = "schema", serde(default))]
    #[cfg_attr(not(feature = "schema"), serde(skip))]
    pub schema: Option<PathBuf>,
    /// How many answers to try in all before the outcome is `rejected` (default 3).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub max_attempts: Option<u32>,
    /// How long one run of the `--accept` command may take (default 60s).
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub check_timeout: Option<String>,
}

impl GuardArgs {
    /// Whether any check is asked for.
    pub fn is_set(&self) -> bool {
        self.accept.is_some() || self.schema.is_some()
    }

    /// Everything about the guardrails that needs no file and no program — flags without a
    /// check, the attempts' range, the check command's words, its timeout — checked once for
    /// every place that takes them (here, or forwarded to a worker's host). `None` when no
    /// check is asked for.
    pub fn validated(&self) -> Result<Option<Validated>> {
        if !self.is_set() {
            if self.accept_shell || self.max_attempts.is_some() || self.check_timeout.is_some() {
                return Err(Error::usage(
                    "`--accept-shell`, `--max-attempts` and `--check-timeout` need `--accept` or `--schema`",
                ));
            }
            return Ok(None);
        }
        let max_attempts = self.max_attempts.unwrap_or(DEFAULT_MAX_ATTEMPTS);
        if !(1..=100).contains(&max_attempts) {
            return Err(Error::usage(format!(
                "`--max-attempts {max_attempts}` is out of range: 1 to 100 answers"
            )));
        }
        let accept = match &self.accept {
            None => None,
            Some(command) => {
                let shown = command.to_string();
                let argv = command
                    .argv(self.accept_shell)
                    .map_err(|why| Error::usage(format!("`--accept {shown}`: {why}")))?;
                Some((shown, argv))
            }
        };
        let check_timeout = parse_or(
            self.check_timeout.as_deref(),
            "--check-timeout",
            DEFAULT_CHECK,
        )?;
        Ok(Some(Validated {
            max_attempts,
            accept,
            check_timeout,
        }))
    }
}

/// [`GuardArgs`] checked as far as it can be without files and programs.
#[derive(Debug, Clone, PartialEq)]
pub struct Validated {
    pub max_attempts: u32,
    /// The check command as given, and its words.
    pub accept: Option<(String, Vec<String>)>,
    pub check_timeout: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(json: serde_json::Value) -> GuardArgs {
        serde_json::from_value(json).expect("guard args")
    }

    /// Without the `schema` feature `schema` is no key: refused as unknown, never ignored.
    #[cfg(not(feature = "schema"))]
    #[test]
    fn without_the_schema_feature_a_schema_key_is_refused() {
        let given = serde_json::json!({ "schema": "s.json" });
        let error = serde_json::from_value::<GuardArgs>(given).expect_err("refused");
        assert!(
            error.to_string().contains("unknown field `schema`"),
            "{error}"
        );
    }

    /// What can be refused without files and programs is refused with the flag it is about.
    #[test]
    fn validated_refuses_what_needs_no_file_and_defaults_the_rest() {
        for (given, says) in [
            (
                serde_json::json!({ "maxAttempts": 2 }),
                "need `--accept` or `--schema`",
            ),
            (
                serde_json::json!({ "accept": "true", "maxAttempts": 0 }),
                "out of range",
            ),
            (
                serde_json::json!({ "accept": "grep 'unclosed" }),
                "`--accept grep 'unclosed`",
            ),
            (
                serde_json::json!({ "accept": "true", "checkTimeout": "soon" }),
                "--check-timeout",
            ),
        ] {
            let error = guard(given.clone())
                .validated()
                .expect_err(&given.to_string());
            assert!(error.to_string().contains(says), "{given}: {error}");
        }
        assert_eq!(
            guard(serde_json::json!({})).validated().expect("none"),
            None
        );
        let valid = guard(serde_json::json!({ "accept": "grep -q DONE" }))
            .validated()
            .expect("valid")
            .expect("a check");
        assert_eq!(valid.max_attempts, DEFAULT_MAX_ATTEMPTS);
        assert_eq!(valid.check_timeout, DEFAULT_CHECK);
        assert_eq!(
            valid.accept,
            Some((
                "grep -q DONE".into(),
                vec!["grep".into(), "-q".into(), "DONE".into()]
            ))
        );
    }
}
