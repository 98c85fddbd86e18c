//! Guardrails on a remote worker's turn: enforced by the umbel on its host, so they travel as
//! the flags of the host's `send`/`wait`. The schema travels as its content (inline JSON): a
//! path given here (relative to `dir`, the workflow file's folder or this process's) means
//! nothing on the host. The `accept` check runs on the host, in the worker's folder there: its
//! program is looked up there, not here.

use super::super::guard::schema_document;
use crate::core::args::GuardArgs;
use crate::core::errors::Result;
use serde_json::{Value, json};
use std::path::Path;

/// The flags (`--flag=value`: a value may start with `-`) that give the host's umbel `guard`; none when it asks for nothing. What can be
/// checked here is (the schema compiles, the command splits, the numbers are in range), so a
/// bad guardrail is refused before anything is sent, as for a local worker.
pub fn flags(guard: &GuardArgs, dir: &Path) -> Result<Vec<String>> {
    if guard.validated()?.is_none() {
        return Ok(Vec::new());
    }
    let mut flags = Vec::new();
    if let Some(given) = &guard.schema {
        flags.push(schema_flag(given, dir)?);
    }
    if let Some(command) = &guard.accept {
        flags.push(format!("--accept={command}"));
        if guard.accept_shell {
            flags.push("--accept-shell".into());
        }
    }
    if let Some(n) = guard.max_attempts {
        flags.push(format!("--max-attempts={n}"));
    }
    if let Some(timeout) = &guard.check_timeout {
        flags.push(format!("--check-timeout={timeout}"));
    }
    Ok(flags)
}

/// `--schema=CONTENT` for the schema `given` (a file relative to `dir`, or inline already),
/// checked to compile.
pub fn schema_flag(given: &Path, dir: &Path) -> Result<String> {
    let (_, document) = schema_document(&dir.join(given), given)?;
    Ok(format!("--schema={}", inline(document)))
}

/// A schema document as an object (the inline form starts with `{`): `true` accepts anything,
/// as `{}` does, `false` nothing, as `{"not": {}}` does.
fn inline(document: Value) -> Value {
    match document {
        Value::Bool(true) => json!({}),
        Value::Bool(false) => json!({ "not": {} }),
        other => other,
    }
}

#[cfg(all(test, feature = "schema"))]
mod tests {
    use super::*;
    use crate::core::guard::CheckCommand;

    #[test]
    fn a_schema_file_travels_as_its_content_and_the_check_as_one_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.json"), r#"{"type": "object"}"#).unwrap();
        let guard = GuardArgs {
            schema: Some("s.json".into()),
            accept: Some(CheckCommand::Argv(vec![
                "grep".into(),
                "-q".into(),
                "a b".into(),
            ])),
            max_attempts: Some(2),
            ..GuardArgs::default()
        };
        let got = flags(&guard, dir.path()).unwrap();
        assert_eq!(
            got,
            [
                r#"--schema={"type":"object"}"#,
                "--accept=grep -q 'a b'",
                "--max-attempts=2"
            ]
        );
    }

    #[test]
    fn bad_guardrails_are_refused_here_and_none_give_no_flags() {
        let dir = tempfile::tempdir().unwrap();
        let missing = GuardArgs {
            schema: Some("missing.json".into()),
            ..GuardArgs::default()
        };
        assert!(
            flags(&missing, dir.path())
                .unwrap_err()
                .to_string()
                .contains("missing.json")
        );
        let alone = GuardArgs {
            max_attempts: Some(2),
            ..GuardArgs::default()
        };
        assert!(flags(&alone, dir.path()).is_err());
        assert!(flags(&GuardArgs::default(), dir.path()).unwrap().is_empty());
        let boolean = GuardArgs {
            schema: Some("false.json".into()),
            ..GuardArgs::default()
        };
        std::fs::write(dir.path().join("false.json"), "false").unwrap();
        assert_eq!(
            flags(&boolean, dir.path()).unwrap(),
            [r#"--schema={"not":{}}"#]
        );
    }
}
