//! The shape of a workflow file, read with `serde-saphyr` into structs that refuse unknown
//! fields and keep each value's line and column for the validator's messages. A worker is the
//! same [`SpawnArgs`] `umbel spawn` takes; a step's `wait:` is the same [`WaitUntil`] as
//! `umbel wait`'s flags.

use crate::core::args::GuardArgs;
use crate::core::args::{SpawnArgs, WaitUntil};
use crate::core::errors::{Error, Result};
use serde::Deserialize;
use serde_saphyr::{Options, Spanned};
use std::collections::BTreeMap;
use std::path::Path;

/// The largest workflow file umbel reads: a pipeline description, not a data file.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// A workflow file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkflowFile {
    /// A label for people (progress display, run record).
    #[serde(default)]
    pub name: Option<String>,
    /// The workers, by key: each is what `umbel spawn` takes (minus `name`).
    pub workers: BTreeMap<String, Spanned<SpawnArgs>>,
    /// The steps: one prompt to one worker each.
    pub steps: Vec<Spanned<Step>>,
    /// Limits over all the run's steps together (`maxTokens`, `maxBudgetUsd`, `maxPrompts`):
    /// reached, the run's running turns are stopped and it fails with `budget`.
    #[serde(default)]
    pub budget: Option<crate::core::budget::Limits>,
}

/// One step: a prompt sent to a worker, waited for, its outputs kept.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Step {
    /// The step's id (`[A-Za-z0-9][A-Za-z0-9_-]*`), unique in the file.
    pub id: Spanned<String>,
    /// The key of the worker that runs it.
    pub worker: Spanned<String>,
    /// The prompt; may hold `{{ … }}` templates.
    pub prompt: Spanned<String>,
    /// Steps that must have finished first.
    #[serde(default)]
    pub needs: Vec<Spanned<String>>,
    /// When the turn counts as ended (default: the CLI's stop, at most 30m).
    #[serde(default)]
    pub wait: Option<Spanned<WaitUntil>>,
    /// Guardrails the answer must pass (`accept`, `schema`, …; paths relative to the file's
    /// folder, where the check also runs).
    #[serde(default)]
    pub guard: Option<Spanned<GuardArgs>>,
    /// Named outputs: `answer` (the turn's answer), `file:PATH` (relative to the worker's cwd)
    /// or `diff` (the worker's worktree changes, `git diff` against its base).
    #[serde(default)]
    pub outputs: BTreeMap<String, Spanned<String>>,
}

/// The most of a `file:` output umbel keeps (a remote worker's host keeps to it too).
pub const MAX_OUTPUT_FILE: u64 = 16 * 1024 * 1024;

/// Where a step output comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputSource {
    /// The answer of the step's turn.
    Answer,
    /// A file the worker wrote, relative to its cwd.
    File(String),
    /// The worker's changes in its worktree against its base, as `git diff` (the worker has
    /// `worktree:`).
    Diff,
}

impl OutputSource {
    /// Reads `answer`, `diff` or `file:PATH`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "answer" => Some(OutputSource::Answer),
            "diff" => Some(OutputSource::Diff),
            t => t
                .strip_prefix("file:")
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| OutputSource::File(p.to_string())),
        }
    }
}

/// Reads a workflow from its text. `file` only names it in errors.
pub fn parse(file: &Path, text: &str) -> Result<WorkflowFile> {
    if text.len() > MAX_FILE_BYTES {
        return Err(Error::InvalidWorkflow {
            file: file.to_path_buf(),
            problems: vec![crate::core::workflow::Problem::at(
                1,
                1,
                format!(
                    "the file is {} bytes; a workflow may be at most {MAX_FILE_BYTES} bytes",
                    text.len()
                ),
            )],
        });
    }
    let mut options = Options::default();
    // A workflow needs few aliases; a billion-laughs file must fail fast, not expand.
    options.alias_limits.max_total_replayed_events = 100_000;
    options.with_snippet = false;
    serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((0, 0));
        Error::InvalidWorkflow {
            file: file.to_path_buf(),
            problems: vec![crate::core::workflow::Problem::at(
                line,
                column,
                yaml_message(&e, text, line),
            )],
        }
    })
}

/// YAML parser terms said in the words of a workflow's author.
fn plain_words(message: &str) -> String {
    static DUPLICATE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^duplicate mapping key `(.*)` is not allowed here$")
            .expect("a valid regular expression")
    });
    if let Some(key) = DUPLICATE.captures(message).and_then(|c| c.get(1)) {
        return format!(
            "`{}` is given twice in the same map; keep one",
            key.as_str()
        );
    }
    if message.starts_with("YAML document too large or too complex") {
        return "the file expands too far: its `*aliases` repeat too many values (alias replay limit exceeded)".into();
    }
    let plain = match message {
        "duplicate mapping key not allowed here" => {
            "a key is given twice in the same map; keep one"
        }
        "expected string scalar" => "expected text here, not a list or a map",
        "expected mapping start" => "expected a map here (`key: value` lines)",
        "expected sequence start" => "expected a list here (`- item` lines)",
        "reference to unknown value" => "this `*alias` names no `&anchor` defined before it",
        "unexpected end of file" => {
            "the file ends before a workflow does (it needs `workers:` and `steps:`)"
        }
        other => other,
    };
    plain.to_string()
}

/// serde-saphyr's message without its own location prefix, plus a hint for the classic
/// mistake of an unquoted `{{` (which YAML reads as a flow mapping).
fn yaml_message(e: &serde_saphyr::Error, text: &str, line: u64) -> String {
    // The location is given in front already; drop serde-saphyr's trailing copy of it.
    static TRAILING_LOCATION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\s+at line \d+, column \d+$").expect("a valid regular expression")
    });
    // The user-facing wording: the default one is for developers ("set DuplicateKeyPolicy in
    // Options if acceptable").
    let raw = e.render_with_formatter(&serde_saphyr::UserMessageFormatter);
    let message = plain_words(&TRAILING_LOCATION.replace(raw.trim_end(), ""));
    let source_line = text
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    let unquoted_template = source_line
        .split_once(':')
        .is_some_and(|(_, value)| value.trim_start().starts_with("{{"));
    if unquoted_template {
        format!(
            "{message} (a value that starts with `{{{{` must be quoted: YAML reads `{{` as a map)"
        )
    } else {
        message
    }
}
