//! The character-level reader behind [`super::parse`]: keys, strings
//! (basic, literal, multi-line), scalars, arrays and inline tables, with
//! errors that name the line and column.

use serde_json::{Map, Number, Value};

pub(super) struct Parser {
    c: Vec<char>,
    pub(super) i: usize,
}

impl Parser {
    pub(super) fn new(text: &str) -> Self {
        Self {
            c: text.chars().collect(),
            i: 0,
        }
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.c.get(self.i).copied()
    }

    pub(super) fn peek_at(&self, n: usize) -> Option<char> {
        self.c.get(self.i + n).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        s.chars()
            .enumerate()
            .all(|(k, ch)| self.peek_at(k) == Some(ch))
    }

    pub(super) fn line(&self) -> usize {
        self.c[..self.i.min(self.c.len())]
            .iter()
            .filter(|c| **c == '\n')
            .count()
    }

    pub(super) fn err(&self, msg: &str) -> String {
        let before = &self.c[..self.i.min(self.c.len())];
        let col = before.iter().rev().take_while(|c| **c != '\n').count() + 1;
        format!(
            "TOML parse error at line {}, column {col}: {msg}",
            self.line() + 1
        )
    }

    pub(super) fn expect(&mut self, ch: char) -> Result<(), String> {
        if self.peek() == Some(ch) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected `{ch}`")))
        }
    }

    pub(super) fn ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.i += 1;
        }
    }

    /// Spaces, comments and line breaks (inside arrays and inline tables).
    fn ws_all(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\n' | '\r') => self.i += 1,
                Some('#') => {
                    while !matches!(self.peek(), None | Some('\n')) {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }

    pub(super) fn end_of_line(&mut self) -> Result<(), String> {
        self.ws();
        if self.peek() == Some('#') {
            while !matches!(self.peek(), None | Some('\n')) {
                self.i += 1;
            }
        }
        match self.peek() {
            None => Ok(()),
            Some('\n') => {
                self.i += 1;
                Ok(())
            }
            Some('\r') if self.peek_at(1) == Some('\n') => {
                self.i += 2;
                Ok(())
            }
            Some(_) => Err(self.err("expected a line break after the statement")),
        }
    }

    pub(super) fn key(&mut self) -> Result<(Vec<String>, String), String> {
        let start = self.i;
        let mut parts = vec![self.simple_key()?];
        loop {
            let save = self.i;
            self.ws();
            if self.peek() == Some('.') {
                self.i += 1;
                self.ws();
                parts.push(self.simple_key()?);
            } else {
                self.i = save;
                break;
            }
        }
        let raw: String = self.c[start..self.i].iter().collect();
        Ok((parts, raw))
    }

    fn simple_key(&mut self) -> Result<String, String> {
        match self.peek() {
            Some('"') => {
                self.i += 1;
                self.basic_string()
            }
            Some('\'') => {
                self.i += 1;
                self.literal_string()
            }
            _ => {
                let start = self.i;
                while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    self.i += 1;
                }
                if self.i == start {
                    return Err(self.err("expected a key"));
                }
                Ok(self.c[start..self.i].iter().collect())
            }
        }
    }

    pub(super) fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some('"') if self.starts_with("\"\"\"") => {
                self.i += 3;
                self.multiline('"').map(Value::String)
            }
            Some('"') => {
                self.i += 1;
                self.basic_string().map(Value::String)
            }
            Some('\'') if self.starts_with("'''") => {
                self.i += 3;
                self.multiline('\'').map(Value::String)
            }
            Some('\'') => {
                self.i += 1;
                self.literal_string().map(Value::String)
            }
            Some('[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws_all();
                    if self.peek() == Some(']') {
                        self.i += 1;
                        break;
                    }
                    items.push(self.value()?);
                    self.ws_all();
                    match self.peek() {
                        Some(',') => self.i += 1,
                        Some(']') => {
                            self.i += 1;
                            break;
                        }
                        _ => return Err(self.err("expected `,` or `]` in the array")),
                    }
                }
                Ok(Value::Array(items))
            }
            Some('{') => {
                self.i += 1;
                let mut map = Map::new();
                loop {
                    self.ws_all();
                    if self.peek() == Some('}') {
                        self.i += 1;
                        break;
                    }
                    let (key, _) = self.key()?;
                    self.ws();
                    self.expect('=')?;
                    self.ws();
                    let v = self.value()?;
                    insert_path(&mut map, &key, v);
                    self.ws_all();
                    match self.peek() {
                        Some(',') => self.i += 1,
                        Some('}') => {
                            self.i += 1;
                            break;
                        }
                        _ => return Err(self.err("expected `,` or `}` in the inline table")),
                    }
                }
                Ok(Value::Object(map))
            }
            _ => self.bare_value(),
        }
    }

    fn bare_value(&mut self) -> Result<Value, String> {
        let start = self.i;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || "+-_.:".contains(c)) {
            self.i += 1;
        }
        let tok: String = self.c[start..self.i].iter().collect();
        if tok.is_empty() {
            return Err(self.err("expected a value"));
        }
        scalar(&tok).ok_or_else(|| {
            self.i = start;
            self.err(&format!("invalid value `{tok}`"))
        })
    }

    fn escape(&mut self, out: &mut String) -> Result<(), String> {
        let Some(c) = self.peek() else {
            return Err(self.err("unterminated string"));
        };
        self.i += 1;
        let simple = match c {
            'b' => Some('\u{8}'),
            't' => Some('\t'),
            'n' => Some('\n'),
            'f' => Some('\u{c}'),
            'r' => Some('\r'),
            'e' => Some('\u{1b}'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            return Ok(());
        }
        let n = match c {
            'u' => 4,
            'U' => 8,
            _ => return Err(self.err(&format!("invalid escape `\\{c}`"))),
        };
        let hex: String = self.c[self.i..(self.i + n).min(self.c.len())]
            .iter()
            .collect();
        let ch = u32::from_str_radix(&hex, 16)
            .ok()
            .filter(|_| hex.len() == n)
            .and_then(char::from_u32)
            .ok_or_else(|| self.err("invalid unicode escape"))?;
        self.i += n;
        out.push(ch);
        Ok(())
    }

    fn basic_string(&mut self) -> Result<String, String> {
        let mut out = String::new();
        loop {
            match self.peek() {
                None | Some('\n') => return Err(self.err("unterminated string")),
                Some('"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.i += 1;
                    self.escape(&mut out)?;
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn literal_string(&mut self) -> Result<String, String> {
        let start = self.i;
        loop {
            match self.peek() {
                None | Some('\n') => return Err(self.err("unterminated string")),
                Some('\'') => {
                    let s = self.c[start..self.i].iter().collect();
                    self.i += 1;
                    return Ok(s);
                }
                Some(_) => self.i += 1,
            }
        }
    }

    /// A `"""` or `'''` string; the opening delimiter is consumed.
    fn multiline(&mut self, q: char) -> Result<String, String> {
        if self.peek() == Some('\n') {
            self.i += 1;
        } else if self.starts_with("\r\n") {
            self.i += 2;
        }
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated multi-line string")),
                Some(c) if c == q && self.peek_at(1) == Some(q) && self.peek_at(2) == Some(q) => {
                    let mut run = 0;
                    while self.peek() == Some(q) && run < 5 {
                        self.i += 1;
                        run += 1;
                    }
                    out.extend(std::iter::repeat_n(q, run - 3));
                    return Ok(out);
                }
                Some('\\') if q == '"' => {
                    self.i += 1;
                    let save = self.i;
                    self.ws();
                    if matches!(self.peek(), Some('\n' | '\r')) {
                        self.ws_all_no_comment();
                    } else {
                        self.i = save;
                        self.escape(&mut out)?;
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn ws_all_no_comment(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.i += 1;
        }
    }
}

fn insert_path(map: &mut Map<String, Value>, key: &[String], v: Value) {
    let Some((last, parents)) = key.split_last() else {
        return;
    };
    let mut cur = map;
    for k in parents {
        let slot = cur
            .entry(k.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(next) = slot else { return };
        cur = next;
    }
    cur.insert(last.clone(), v);
}

fn scalar(tok: &str) -> Option<Value> {
    match tok {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "inf" | "+inf" | "-inf" | "nan" | "+nan" | "-nan" => return Some(Value::from(tok)),
        _ => {}
    }
    let clean = tok.replace('_', "");
    let (sign, digits) = match clean.strip_prefix('-') {
        Some(rest) => (-1i64, rest),
        None => (1, clean.strip_prefix('+').unwrap_or(&clean)),
    };
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(body) = digits.strip_prefix(prefix) {
            return i64::from_str_radix(body, radix).ok().map(Value::from);
        }
    }
    if let Ok(n) = digits.parse::<i64>() {
        return Some(Value::from(sign * n));
    }
    if digits.starts_with(|c: char| c.is_ascii_digit())
        && let Ok(f) = clean.parse::<f64>()
    {
        return Number::from_f64(f).map(Value::Number);
    }
    let b = tok.as_bytes();
    let date = b.len() >= 8 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-';
    let time = b.len() >= 5 && b[..2].iter().all(u8::is_ascii_digit) && b[2] == b':';
    (date || time).then(|| Value::from(tok))
}
