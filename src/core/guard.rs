//! Guardrails, the pure part: the `--accept` command line, pulling a JSON value out of an answer,
//! checking it against a JSON Schema, and the fixed wording of the feedback a rejected answer
//! sends back to the worker. The loop that runs checks and retries is `operations/guard`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// How many answers a guarded turn gets in all, unless `--max-attempts` says otherwise.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;
/// The most check output fed back to the worker (the end is kept: that is where tools put the
/// summary).
pub const MAX_FEEDBACK_OUTPUT: usize = 16 * 1024;

/// The `--accept` command: one string split like a shell would split it (run without a shell
/// unless asked), or — in JSON and YAML — an explicit argv list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CheckCommand {
    /// `"python3 check.py --strict"`.
    Line(String),
    /// `["python3", "check.py", "--strict"]`.
    Argv(Vec<String>),
}

impl std::str::FromStr for CheckCommand {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(CheckCommand::Line(s.to_string()))
    }
}

impl fmt::Display for CheckCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckCommand::Line(line) => f.write_str(line),
            CheckCommand::Argv(argv) => {
                let quoted = argv.iter().map(|a| shlex::try_quote(a).unwrap_or(a.into()));
                f.write_str(&quoted.collect::<Vec<_>>().join(" "))
            }
        }
    }
}

impl CheckCommand {
    /// The argv to execute; `shell` runs a command line through `sh -c`.
    pub fn argv(&self, shell: bool) -> Result<Vec<String>, String> {
        let argv = match (self, shell) {
            (CheckCommand::Line(line), true) => vec!["sh".into(), "-c".into(), line.clone()],
            (CheckCommand::Argv(_), true) => {
                return Err("a shell check must be one command line, not a list".into());
            }
            (CheckCommand::Line(line), false) => shlex::split(line)
                .ok_or_else(|| format!("cannot split `{line}`: unbalanced quotes"))?,
            (CheckCommand::Argv(argv), false) => argv.clone(),
        };
        match argv.first() {
            Some(program) if !program.is_empty() => Ok(argv),
            _ => Err("the command is empty".into()),
        }
    }
}

/// The JSON value in an answer: the whole answer, else the last fenced code block that parses.
pub fn extract_json(answer: &str) -> Result<Value, String> {
    let whole = answer.trim();
    let whole_error = match serde_json::from_str::<Value>(whole) {
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    // Newest first: an answer that corrects itself ends with the right block.
    let mut block_error = None;
    for block in fenced_blocks(answer).iter().rev() {
        match serde_json::from_str::<Value>(block) {
            Ok(value) => return Ok(value),
            Err(e) => {
                block_error.get_or_insert(e);
            }
        }
    }
    Err(match block_error {
        Some(e) => format!("the fenced block is not valid JSON: {e}"),
        None => format!("the answer is not JSON ({whole_error}) and has no fenced ```json block"),
    })
}

/// The bodies of the answer's fenced code blocks (```` ``` ```` or `~~~`, any info string).
fn fenced_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<(&str, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                let fence = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f));
                if let Some(fence) = fence {
                    open = Some((fence, Vec::new()));
                }
            }
            Some((fence, body)) => {
                if trimmed.trim_end() == *fence {
                    blocks.push(body.join("\n"));
                    open = None;
                } else {
                    body.push(line);
                }
            }
        }
    }
    blocks
}

/// A compiled JSON Schema.
#[cfg(feature = "schema")]
pub struct Schema {
    validator: jsonschema::Validator,
}

#[cfg(feature = "schema")]
impl Schema {
    /// Compiles a schema document; the error says what is wrong with it.
    pub fn compile(document: &Value) -> Result<Self, String> {
        jsonschema::validator_for(document)
            .map(|validator| Schema { validator })
            .map_err(|e| e.to_string())
    }

    /// Every violation, each located by its JSON Pointer (`/items/0/price: … is not of type …`).
    pub fn problems(&self, value: &Value) -> Vec<String> {
        self.validator
            .iter_errors(value)
            .map(|e| {
                let at = e.instance_path().to_string();
                let at = if at.is_empty() { "(root)".into() } else { at };
                format!("{at}: {e}")
            })
            .collect()
    }
}

/// No JSON Schema in a build without the `schema` feature: there is no `--schema` to give
/// (`GuardArgs` hides it), and a schema that still reaches here is refused, never ignored.
#[cfg(not(feature = "schema"))]
pub enum Schema {}

#[cfg(not(feature = "schema"))]
impl Schema {
    /// Refuses: this build cannot check a schema.
    pub fn compile(_document: &Value) -> Result<Self, String> {
        Err("this umbel was built without JSON Schema guardrails (cargo feature `schema`)".into())
    }

    /// Never called: no schema can be compiled.
    pub fn problems(&self, _value: &Value) -> Vec<String> {
        match *self {}
    }
}

/// Which check rejected (or accepted) an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    /// The answer against `--schema`.
    Schema,
    /// The `--accept` command.
    Accept,
}

impl CheckKind {
    /// The kind's name as printed (and serialised).
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::Schema => "schema",
            CheckKind::Accept => "accept",
        }
    }
}

/// What the feedback says: which attempt failed, of how many, and why.
pub struct Rejection<'a> {
    pub attempt: u32,
    pub max_attempts: u32,
    pub kind: CheckKind,
    /// The schema file or the check command, as the caller wrote it.
    pub subject: &'a str,
    /// The check's exit status (`--accept` only).
    pub status: Option<&'a str>,
    /// The check's output, or the schema problems one per line.
    pub details: &'a str,
    /// Bytes of the check's output dropped before `details` (it keeps only the end).
    pub details_dropped: u64,
}

impl Rejection<'_> {
    /// The message sent to the worker. Fixed wording (documented in docs/guardrails.md), so a
    /// worker, a test or a person can recognise it: the first line always starts with
    /// `[umbel] Your answer was rejected`.
    pub fn feedback(&self) -> String {
        let (attempt, max) = (self.attempt, self.max_attempts);
        let details = tail_after(
            self.details.trim_end(),
            MAX_FEEDBACK_OUTPUT,
            self.details_dropped,
        );
        match self.kind {
            CheckKind::Schema => format!(
                "[umbel] Your answer was rejected (attempt {attempt} of {max}): it must be a JSON \
                 value valid against the schema {}. Problems:\n{details}\n\nAnswer again with \
                 the corrected JSON only.",
                self.subject
            ),
            CheckKind::Accept => format!(
                "[umbel] Your answer was rejected (attempt {attempt} of {max}) by the check `{}` \
                 ({}). Its output:\n{}\n\nFix what it reports and answer again.",
                self.subject,
                self.status.unwrap_or("failed"),
                if details.is_empty() {
                    "(no output)"
                } else {
                    &details
                }
            ),
        }
    }
}

/// The schema problems as feedback lines: `- <problem>`.
pub fn problem_lines(problems: &[String]) -> String {
    problems
        .iter()
        .map(|p| format!("- {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// At most `max` bytes of `text`, keeping its end (on a char boundary), marked when cut.
pub fn tail(text: &str, max: usize) -> String {
    tail_after(text, max, 0)
}

/// [`tail`] of a text whose first `dropped` bytes were already cut (a stream kept by its end):
/// the count says how many were cut in all.
pub fn tail_after(text: &str, max: usize, dropped: u64) -> String {
    if text.len() <= max && dropped == 0 {
        return text.to_string();
    }
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let cut = start as u64 + dropped;
    format!("[… {cut} bytes cut …]\n{}", &text[start..])
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
