//! Rules that answer a worker's tool approvals by themselves (`spawn --allowed-tools RULE`,
//! `--disallowed-tools RULE`), in claude's syntax on every CLI: `Bash`, `Bash(git status)`,
//! `Bash(npm test *)` (or the older `Bash(npm test:*)`), `Edit(src/**)`, `Read(~/notes/*)`,
//! `WebFetch(domain:docs.rs)`, `mcp__server__tool`. A rule's tool is claude's name; each CLI's
//! own names for it are data in its provider ([`ToolNames`]). A refusal rule wins over an
//! allowing one; a tool no rule names waits for a person as before.
//!
//! Shell commands are matched part by part: `echo hi && rm -rf x` is allowed only if every part
//! is, and refused if any part is; a command that runs a command of its own making (`$(…)`,
//! backticks) is never allowed by a rule.

use super::errors::{Error, Result};
use globset::{GlobBuilder, GlobMatcher};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// One CLI's names for claude's tools: `(claude's name, the CLI's tools it covers)`. A tool is
/// also matched by its own name, ignoring case.
pub type ToolNames = &'static [(&'static str, &'static [&'static str])];

/// The rules a worker was spawned with, as written (kept in its folder as `rules.json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSet {
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
}

/// What the rules say about one pending tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// An allowing rule covers it (every part of a shell command): the rule, as written.
    Allow(String),
    /// A refusing rule covers it (or a part of it): the rule, as written.
    Deny(String),
    /// No rule decides: a person does.
    Ask,
}

/// Where a tool runs, to resolve the paths in its input and in `Edit(…)` rules.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
}

/// One parsed rule.
#[derive(Debug, Clone)]
struct Rule {
    raw: String,
    tool: String,
    spec: Spec,
}

/// What a rule says about the tool's input.
#[derive(Debug, Clone)]
enum Spec {
    /// Any use of the tool.
    Any,
    /// A shell command: `*` matches anything.
    Command(String),
    /// A path glob (gitignore style).
    Path(String),
    /// A web host and its subdomains.
    Domain(String),
}

/// The tools whose rule names a path.
const PATH_TOOLS: &[&str] = &["Edit", "Write", "Read", "MultiEdit", "NotebookEdit"];

impl RuleSet {
    /// Whether there are no rules.
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    /// Checks every rule, naming the first malformed one and the flag it came with.
    pub fn check(&self) -> Result<()> {
        for (flag, rules) in [
            ("--allowed-tools", &self.allow),
            ("--disallowed-tools", &self.deny),
        ] {
            for raw in rules {
                parse(raw)
                    .map_err(|why| Error::usage(format!("`{flag} {raw}` is not a rule: {why}")))?;
            }
        }
        Ok(())
    }

    /// What the rules say about `tool` (as the CLI names it) with `input`.
    pub fn verdict(&self, names: ToolNames, tool: &str, input: &Value, at: Place) -> Verdict {
        let parsed = |list: &[String]| -> Vec<Rule> {
            list.iter().filter_map(|raw| parse(raw).ok()).collect()
        };
        let (allow, deny) = (parsed(&self.allow), parsed(&self.deny));
        let known = known_as(names, tool);
        let parts = match command_of(input) {
            Some(command) if known.contains(&"Bash") => Some(split_command(command)),
            _ => None,
        };
        let covers = |rule: &Rule, part: Option<&str>| {
            known
                .iter()
                .any(|name| rule.tool.eq_ignore_ascii_case(name))
                && rule.spec.covers(part, input, at)
        };
        let each = |part: Option<&str>| deny.iter().find(|r| covers(r, part));
        let denied = match &parts {
            Some(parts) => parts.iter().find_map(|p| each(Some(p))),
            None => each(None),
        };
        if let Some(rule) = denied {
            return Verdict::Deny(rule.raw.clone());
        }
        let allowed = match &parts {
            Some(_) if command_of(input).is_some_and(makes_commands) => None,
            Some(parts) if !parts.is_empty() => {
                let found: Option<Vec<&Rule>> = parts
                    .iter()
                    .map(|p| allow.iter().find(|r| covers(r, Some(p))))
                    .collect();
                found.and_then(|rules| rules.first().copied())
            }
            Some(_) => None,
            None => allow.iter().find(|r| covers(r, None)),
        };
        allowed.map_or(Verdict::Ask, |rule| Verdict::Allow(rule.raw.clone()))
    }
}

/// Parses one rule, or says what is wrong with it.
fn parse(raw: &str) -> std::result::Result<Rule, String> {
    let text = raw.trim();
    let (tool, spec) = match text.find('(') {
        None => (text, None),
        Some(open) => {
            let Some(inner) = text[open + 1..].strip_suffix(')') else {
                return Err("it opens `(` but does not end with `)`".into());
            };
            (&text[..open], Some(inner))
        }
    };
    if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err("a rule starts with a tool's name (`Bash`, `Edit`, `WebFetch`, …)".into());
    }
    let spec = match spec.map(str::trim) {
        None => Spec::Any,
        Some("") => return Err("`()` is empty: leave the parentheses out to mean any use".into()),
        Some(inner) => spec_of(tool, inner)?,
    };
    Ok(Rule {
        raw: raw.to_string(),
        tool: tool.to_string(),
        spec,
    })
}

/// The spec of `tool(inner)`.
fn spec_of(tool: &str, inner: &str) -> std::result::Result<Spec, String> {
    if tool == "Bash" {
        // `npm test:*` is claude's older spelling of `npm test *`.
        let command = match inner.strip_suffix(":*") {
            Some(prefix) => format!("{prefix} *"),
            None => inner.to_string(),
        };
        return Ok(Spec::Command(command));
    }
    if tool == "WebFetch" {
        let domain = inner
            .strip_prefix("domain:")
            .map(str::trim)
            .filter(|d| !d.is_empty() && !d.contains('/'))
            .ok_or("a WebFetch rule names a host: `WebFetch(domain:docs.rs)`")?;
        return Ok(Spec::Domain(domain.to_ascii_lowercase()));
    }
    if PATH_TOOLS.contains(&tool) {
        GlobBuilder::new(inner)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("`{inner}` is not a path pattern: {e}"))?;
        return Ok(Spec::Path(inner.to_string()));
    }
    Err(format!(
        "umbel matches the input of Bash, WebFetch and the file tools ({}); name `{tool}` alone",
        PATH_TOOLS.join(", ")
    ))
}

impl Spec {
    /// Whether the spec covers this use: `part`, one part of a shell command, else the input.
    fn covers(&self, part: Option<&str>, input: &Value, at: Place) -> bool {
        match self {
            Spec::Any => true,
            Spec::Command(pattern) => part.is_some_and(|p| wildcard(pattern, p)),
            Spec::Path(pattern) => path_of(input).is_some_and(|p| path_matches(pattern, p, at)),
            Spec::Domain(domain) => url_of(input)
                .and_then(host_of)
                .is_some_and(|host| host == *domain || host.ends_with(&format!(".{domain}"))),
        }
    }
}

/// The names a rule may call the CLI's `tool` by: its own, and each of claude's names whose
/// row lists it (claude's `Edit` covers every tool that edits a file, `Write` only writing).
fn known_as(names: ToolNames, tool: &str) -> Vec<&str> {
    let mut known = vec![tool];
    known.extend(
        names
            .iter()
            .filter(|(_, theirs)| theirs.contains(&tool))
            .map(|(ours, _)| *ours),
    );
    known
}

/// The shell command in a tool's input (`command`; gemini's notice carries it in the same
/// field).
fn command_of(input: &Value) -> Option<&str> {
    input.get("command").and_then(Value::as_str)
}

/// The path in a file tool's input, as each CLI names the field.
fn path_of(input: &Value) -> Option<&str> {
    [
        "file_path",
        "filePath",
        "path",
        "notebook_path",
        "absolute_path",
    ]
    .iter()
    .find_map(|field| input.get(*field).and_then(Value::as_str))
}

/// The URL in a web tool's input.
fn url_of(input: &Value) -> Option<&str> {
    input.get("url").and_then(Value::as_str)
}

/// The lowercased host of `url`.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?.split(':').next()?;
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Whether a command builds a command of its own (`$(…)`, backticks), which no rule allows.
fn makes_commands(command: &str) -> bool {
    command.contains("$(") || command.contains('`')
}

/// The simple commands of a shell command line: split at `&&`, `||`, `;`, `|`, `&` and newlines
/// (outside quotes), each trimmed, empty ones dropped.
fn split_command(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some(_), _) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            (None, ';' | '\n' | '|' | '&') => {
                if matches!((c, chars.peek()), ('|' | '&', Some('|' | '&'))) {
                    chars.next();
                }
                parts.push(std::mem::take(&mut current));
            }
            (None, _) => current.push(c),
        }
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters (spaces too), as
/// claude's Bash rules do; `cmd *` also matches `cmd` alone.
fn wildcard(pattern: &str, text: &str) -> bool {
    if let Some(prefix) = pattern.strip_suffix(" *")
        && text == prefix
    {
        return true;
    }
    let pieces: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = pieces
        .split_first()
        .expect("split yields one piece at least");
    let Some(mut left) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return left.is_empty();
    };
    for piece in middle {
        match left.find(piece) {
            Some(at) => left = &left[at + piece.len()..],
            None => return false,
        }
    }
    left.ends_with(last)
}

/// Whether the tool's `path` matches a rule's path pattern: `//abs` from the root, `~/` from
/// the home folder, `/x` and plain patterns from the worker's folder (a plain pattern without
/// `/` matches at any depth, as gitignore does).
fn path_matches(pattern: &str, path: &str, at: Place) -> bool {
    let path = normal(&at.cwd.join(path));
    let (base, glob) = if let Some(abs) = pattern.strip_prefix("//") {
        (PathBuf::from("/"), abs.to_string())
    } else if let (Some(rest), Some(home)) = (pattern.strip_prefix("~/"), at.home) {
        (home.to_path_buf(), rest.to_string())
    } else if let Some(rest) = pattern.strip_prefix('/') {
        (at.cwd.to_path_buf(), rest.to_string())
    } else if pattern.contains('/') {
        (at.cwd.to_path_buf(), pattern.to_string())
    } else {
        (at.cwd.to_path_buf(), format!("**/{pattern}"))
    };
    let Ok(relative) = path.strip_prefix(normal(&base)) else {
        return false;
    };
    matcher(&glob).is_some_and(|m| m.is_match(relative))
}

fn matcher(glob: &str) -> Option<GlobMatcher> {
    let glob = GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .ok()?;
    Some(glob.compile_matcher())
}

/// `path` with `.` and `..` resolved by name (the file may not exist yet).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
