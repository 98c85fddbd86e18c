//! The TOML subset fake-codex reads from `config.toml` and `-c` overrides.
//!
//! Tables (`[a."b c"]`, `[[a]]`), dotted and quoted keys, basic/literal
//! strings (also multi-line), integers, floats, booleans, dates (kept as
//! text), arrays and inline tables. Every value is kept with its full key
//! path, so the fake can look up `projects."<cwd>".trust_level` or
//! `hooks.state."<key>".trusted_hash` however it was written. Errors name the
//! line and column. [`set_value`] computes the smallest edit that sets one key.

use serde_json::Value;

use parser::Parser;

#[path = "toml_parser.rs"]
mod parser;

/// One `key = value` (inline tables are flattened into one entry per leaf).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Table path plus key path.
    pub path: Vec<String>,
    /// The value.
    pub value: Value,
    /// The key exactly as written (for rewriting the line).
    pub key_text: String,
    /// First and last line of the statement (0-based).
    pub lines: (usize, usize),
    /// True when the entry comes from inside an inline table.
    pub inline: bool,
}

/// A `[table]` or `[[array]]` header.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// Its key path.
    pub path: Vec<String>,
    /// Its line (0-based).
    pub line: usize,
    /// True for `[[…]]`.
    pub array: bool,
}

/// A parsed document.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doc {
    /// Every value, in file order.
    pub entries: Vec<Entry>,
    /// Every table header, in file order.
    pub headers: Vec<Header>,
}

impl Doc {
    /// The value at `path` (the last one when a key repeats).
    pub fn get(&self, path: &[&str]) -> Option<&Value> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.path.iter().map(String::as_str).eq(path.iter().copied()))
            .map(|e| &e.value)
    }

    /// The string at `path`.
    pub fn str(&self, path: &[&str]) -> Option<&str> {
        self.get(path).and_then(Value::as_str)
    }
}

/// Parses a whole document.
pub fn parse(text: &str) -> Result<Doc, String> {
    let mut p = Parser::new(text);
    let mut doc = Doc::default();
    let mut table: Vec<String> = Vec::new();
    loop {
        p.ws();
        match p.peek() {
            None => break,
            Some('\n') => p.i += 1,
            Some('\r') if p.peek_at(1) == Some('\n') => p.i += 2,
            Some('#') => p.end_of_line()?,
            Some('[') => {
                let line = p.line();
                let array = p.peek_at(1) == Some('[');
                p.i += if array { 2 } else { 1 };
                p.ws();
                let (path, _) = p.key()?;
                p.ws();
                p.expect(']')?;
                if array {
                    p.expect(']')?;
                }
                p.end_of_line()?;
                table = path.clone();
                if array {
                    let n = doc
                        .headers
                        .iter()
                        .filter(|h| h.array && h.path == path)
                        .count();
                    table.push(n.to_string());
                }
                doc.headers.push(Header { path, line, array });
            }
            Some(_) => {
                let first = p.line();
                let (key, key_text) = p.key()?;
                p.ws();
                p.expect('=')?;
                p.ws();
                let value = p.value()?;
                let last = p.line();
                p.end_of_line()?;
                let mut path = table.clone();
                path.extend(key);
                flatten(
                    &mut doc.entries,
                    path,
                    value,
                    &key_text,
                    (first, last),
                    false,
                );
            }
        }
    }
    Ok(doc)
}

/// Parses one value (`-c key=value` overrides).
pub fn parse_value(text: &str) -> Result<Value, String> {
    let mut p = Parser::new(text.trim());
    let v = p.value()?;
    p.ws();
    match p.peek() {
        None => Ok(v),
        Some(_) => Err(p.err("unexpected text after the value")),
    }
}

fn flatten(
    out: &mut Vec<Entry>,
    path: Vec<String>,
    value: Value,
    key_text: &str,
    lines: (usize, usize),
    inline: bool,
) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let mut p = path.clone();
                p.push(k);
                flatten(out, p, v, key_text, lines, true);
            }
        }
        value => out.push(Entry {
            path,
            value,
            key_text: key_text.to_string(),
            lines,
            inline,
        }),
    }
}

/// A key segment as TOML: bare when possible, else a basic string.
pub fn quote_key(s: &str) -> String {
    let bare = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { s.to_string() } else { quote_str(s) }
}

/// A basic string with the escapes TOML needs.
pub fn quote_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How to set one key.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Text to append at the end of the file.
    Append(String),
    /// The whole new file (an existing line changed or a line was inserted).
    Rewrite(String),
}

/// The edit that makes `table.key = value_toml` true in `text`: replace the
/// existing statement, insert under an existing `[table]` header, or append a
/// new table.
pub fn set_value(text: &str, doc: &Doc, table: &[String], key: &str, value_toml: &str) -> Edit {
    let mut full = table.to_vec();
    full.push(key.to_string());
    let lines: Vec<&str> = text.lines().collect();
    let rebuild = |before: &[&str], new: &str, after: &[&str]| {
        let mut all: Vec<&str> = before.to_vec();
        all.push(new);
        all.extend_from_slice(after);
        all.join("\n") + "\n"
    };
    if let Some(e) = doc
        .entries
        .iter()
        .rev()
        .find(|e| e.path == full && !e.inline)
        && e.lines.1 < lines.len()
    {
        let line = format!("{} = {value_toml}", e.key_text);
        return Edit::Rewrite(rebuild(&lines[..e.lines.0], &line, &lines[e.lines.1 + 1..]));
    }
    if let Some(h) = doc
        .headers
        .iter()
        .rev()
        .find(|h| !h.array && h.path == table)
        && h.line < lines.len()
    {
        let line = format!("{} = {value_toml}", quote_key(key));
        return Edit::Rewrite(rebuild(&lines[..=h.line], &line, &lines[h.line + 1..]));
    }
    let header: Vec<String> = table.iter().map(|s| quote_key(s)).collect();
    let sep = if text.is_empty() {
        ""
    } else if text.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    Edit::Append(format!(
        "{sep}[{}]\n{} = {value_toml}\n",
        header.join("."),
        quote_key(key)
    ))
}

#[cfg(test)]
#[path = "toml_tests.rs"]
mod tests;
