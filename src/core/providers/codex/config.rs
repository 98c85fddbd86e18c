//! The worker's codex `config.toml`, built from the user's own with `toml_edit`: the user's keys,
//! formatting and comments stay as written; umbel only marks the working directory trusted
//! (`[projects."<cwd>"] trust_level = "trusted"`), so no trust dialog opens, and turns hooks
//! back on if the user's `[features]` turned them off (umbel hears the worker through them). A file that is not
//! valid TOML is refused with its line and column: codex would refuse it too, after a dialog.

use crate::core::errors::{Error, Result};
use std::ops::Range;
use std::path::Path;
use toml_edit::{Document, DocumentMut, InlineTable, Item, Table, TableLike, Value};

/// The config.toml for a worker in `cwd`: the user's `text` (read from `file`, if any) with `cwd`
/// trusted.
pub fn worker_config(user: Option<(&Path, &str)>, cwd: &Path) -> Result<String> {
    let (file, text) = match user {
        Some((file, text)) => (file, text),
        None => (Path::new("config.toml"), ""),
    };
    // The BOM is not TOML; codex reads the file the same with or without it.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let parsed = Document::parse(body).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        invalid(file, body, offset, first_line(e.message()))
    })?;
    let key = cwd.to_string_lossy().into_owned();
    // Where the user wrote them (spans exist only before the document is made editable).
    let projects_at = parsed.get("projects").and_then(Item::span);
    let project_at = parsed
        .get("projects")
        .and_then(|p| p.get(&key))
        .and_then(Item::span);
    let mut doc = parsed.into_mut();
    let projects = doc
        .entry("projects")
        .or_insert_with(|| Item::Table(implicit_table()));
    let project: Option<&mut dyn TableLike> = match projects {
        Item::Table(table) => {
            // `projects."/x".trust_level = …` at the top makes a dotted table: stay dotted.
            let dotted = table.is_dotted();
            let item = table.entry(&key).or_insert_with(|| {
                let mut child = Table::new();
                child.set_dotted(dotted);
                Item::Table(child)
            });
            item.as_table_like_mut()
        }
        Item::Value(Value::InlineTable(table)) => {
            let value = table
                .entry(&key)
                .or_insert_with(|| Value::InlineTable(InlineTable::new()));
            value.as_inline_table_mut().map(|t| t as &mut dyn TableLike)
        }
        _ => return Err(not_a_table(file, body, projects_at, "projects".into())),
    };
    let Some(project) = project else {
        let key = format!("projects.\"{key}\"");
        return Err(not_a_table(file, body, project_at, key));
    };
    set_value(project, "trust_level", "trusted".into());
    hooks_on(&mut doc);
    let out = doc.to_string();
    // Keep a CRLF file CRLF: the lines umbel adds come out with LF.
    Ok(if body.contains("\r\n") {
        out.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        out
    })
}

/// umbel's hooks are the worker's only voice: a `[features]` switch that turns hooks off
/// (`hooks`, or its deprecated alias `codex_hooks`) is turned back on in the worker's copy.
/// Absent switches stay absent (hooks are on by default).
fn hooks_on(doc: &mut DocumentMut) {
    let Some(features) = doc.get_mut("features").and_then(Item::as_table_like_mut) else {
        return;
    };
    for key in ["hooks", "codex_hooks"] {
        if features.get(key).is_some_and(|v| v.as_bool() != Some(true)) {
            set_value(features, key, true.into());
        }
    }
}

/// Sets `key`, keeping the spacing and the comment around a value that was there.
fn set_value(table: &mut dyn TableLike, key: &str, mut value: Value) {
    if let Some(old) = table.get(key).and_then(Item::as_value) {
        *value.decor_mut() = old.decor().clone();
    }
    table.insert(key, Item::Value(value));
}

fn implicit_table() -> Table {
    let mut table = Table::new();
    table.set_implicit(true);
    table
}

fn first_line(message: &str) -> String {
    message
        .lines()
        .next()
        .unwrap_or("invalid TOML")
        .trim()
        .to_string()
}

fn not_a_table(file: &Path, body: &str, span: Option<Range<usize>>, key: String) -> Error {
    invalid(
        file,
        body,
        span.map_or(0, |s| s.start),
        format!("`{key}` must be a table (codex keeps each project's trust there)"),
    )
}

/// A typed error naming the file and the 1-based line and column of byte `offset` in `body`.
fn invalid(file: &Path, body: &str, offset: usize, message: String) -> Error {
    let mut end = offset.min(body.len());
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    let before = &body[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Error::UserConfig {
        provider: "codex",
        file: file.to_path_buf(),
        line,
        column,
        message,
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
