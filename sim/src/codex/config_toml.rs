//! `config.toml` as the real codex handles it: read with the `toml` crate (so errors carry the
//! same messages and positions, printed in codex's own `Error loading config.toml:` form) and
//! written with `toml_edit` (so the user's formatting and comments survive a trust write).

use std::ops::Range;

use toml::{Table, Value};
use toml_edit::{DocumentMut, InlineTable, Item};

/// A parsed document.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doc(pub Table);

impl Doc {
    /// The value at `path`: table keys, or an index into an array (`profiles.1.name`).
    pub fn get(&self, path: &[&str]) -> Option<&Value> {
        let (first, rest) = path.split_first()?;
        let mut value = self.0.get(*first)?;
        for seg in rest {
            value = match value {
                Value::Table(t) => t.get(*seg)?,
                Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(value)
    }

    /// The string at `path`.
    pub fn str(&self, path: &[&str]) -> Option<&str> {
        self.get(path).and_then(Value::as_str)
    }
}

/// A syntax error, where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The parser's message (`unclosed table, expected `]``).
    pub message: String,
    /// The text of that line.
    pub source_line: String,
}

impl SyntaxError {
    fn new(text: &str, span: Option<Range<usize>>, message: &str) -> Self {
        let mut at = span.map_or(0, |s| s.start).min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        Self {
            line: text[..at].matches('\n').count() + 1,
            column: text[line_start..at].chars().count() + 1,
            message: message.trim().to_string(),
            source_line: text[line_start..line_end]
                .trim_end_matches('\r')
                .to_string(),
        }
    }

    /// The real CLI's report for a bad `config.toml` at `path`:
    /// `Error loading config.toml:`, `path:L:C: message`, then the line with a caret under C.
    pub fn report(&self, path: &std::path::Path) -> String {
        let gutter = " ".repeat(self.line.to_string().len() + 1);
        format!(
            "Error loading config.toml:\n{}:{}:{}: {}\n{gutter}|\n{} | {}\n{gutter}|{}^",
            path.display(),
            self.line,
            self.column,
            self.message,
            self.line,
            self.source_line,
            " ".repeat(self.column)
        )
    }
}

/// Parses a whole document (a leading BOM is allowed, as in the real CLI).
pub fn parse(text: &str) -> Result<Doc, SyntaxError> {
    text.parse::<Table>()
        .map(Doc)
        .map_err(|e| SyntaxError::new(text, e.span(), e.message()))
}

/// Parses one value (`-c key=value` overrides).
pub fn parse_value(text: &str) -> Result<serde_json::Value, String> {
    let value: Value = text
        .trim()
        .parse()
        .map_err(|e: toml::de::Error| e.to_string())?;
    serde_json::to_value(value).map_err(|e| e.to_string())
}

/// Sets `table.key = "value"` in `text`, keeping everything else as written; the tables on the
/// way are created (as headers, or inside an inline table when the parent is one).
pub fn set_string(text: &str, table: &[String], key: &str, value: &str) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let mut item = doc.as_item_mut();
    for seg in table {
        let inline = item.is_inline_table();
        let Some(parent) = item.as_table_like_mut() else {
            return Err(format!(
                "cannot set `{key}`: a key above `{seg}` is not a table"
            ));
        };
        item = parent.entry(seg).or_insert_with(|| {
            if inline {
                toml_edit::value(InlineTable::new())
            } else {
                let mut t = toml_edit::Table::new();
                t.set_implicit(true);
                Item::Table(t)
            }
        });
    }
    let Some(leaf) = item.as_table_like_mut() else {
        return Err(format!(
            "cannot set `{key}`: `{}` is not a table",
            table.join(".")
        ));
    };
    leaf.insert(key, toml_edit::value(value));
    Ok(doc.to_string())
}

#[cfg(test)]
#[path = "config_toml_tests.rs"]
mod tests;
