//! Ordered JSON objects for records and payloads.
//!
//! The real CLIs write object keys in insertion order (JavaScript and serde structs both do).
//! serde_json's `preserve_order` (on for the whole workspace) keeps that order, so an [`Obj`] is
//! a `serde_json::Map` with a builder and one-line serialization, and the [`obj!`](crate::obj)
//! macro builds one with its keys exactly in the order they are written.

use serde::Serialize;
use serde_json::{Map, Value};

/// Any JSON value (objects inside it keep their key order).
pub type J = Value;

/// An object that serializes its keys in insertion order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Obj(pub Map<String, Value>);

impl Obj {
    /// An empty object.
    pub fn new() -> Self {
        Self(Map::new())
    }

    /// Sets `key: value`: appended, or replaced in place when the key is already there.
    pub fn set(&mut self, key: &str, value: impl Serialize) -> &mut Self {
        self.0.insert(key.to_string(), to_json(value));
        self
    }

    /// Builder form of [`Obj::set`].
    pub fn with(mut self, key: &str, value: impl Serialize) -> Self {
        self.set(key, value);
        self
    }

    /// The string at `key` (empty when absent or not a string).
    pub fn str(&self, key: &str) -> String {
        self.0
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }

    /// Serializes to one compact JSON line (no trailing newline).
    pub fn to_line(&self) -> String {
        // Serializing plain data into a String cannot fail.
        serde_json::to_string(&self.0).unwrap_or_default()
    }

    /// The object as a `serde_json::Value` (key order kept).
    pub fn to_value(&self) -> Value {
        Value::Object(self.0.clone())
    }
}

impl From<Obj> for Value {
    fn from(o: Obj) -> Self {
        Value::Object(o.0)
    }
}

/// Any serializable value as JSON (`null` for the impossible failure: the sim's values are
/// strings, numbers, maps and lists).
pub fn to_json(value: impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// JSON `null`.
pub fn null() -> J {
    Value::Null
}

/// An empty JSON array.
pub fn empty_array() -> J {
    Value::Array(Vec::new())
}

/// Builds an ordered [`Obj`]: `obj! { "a" => 1u64, "b" => obj! { "c" => "d" } }`.
#[macro_export]
macro_rules! obj {
    () => { $crate::json::Obj::new() };
    ($($key:expr => $value:expr),+ $(,)?) => {{
        let mut o = $crate::json::Obj::new();
        $( o.set($key, $value); )+
        o
    }};
}

/// Where a `value` that is inline JSON (starting with `{`) or a file path
/// (`--settings`, `UMBEL_SIM_SCENARIO`) has its text.
pub enum Source {
    /// The value itself.
    Inline,
    /// The file the value names.
    File,
}

/// The text of `value`: itself when it starts with `{`, else the file it names.
pub fn inline_or_file(value: &str) -> std::io::Result<(String, Source)> {
    if value.trim_start().starts_with('{') {
        return Ok((value.to_string(), Source::Inline));
    }
    std::fs::read_to_string(value).map(|text| (text, Source::File))
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_keep_insertion_order_at_every_level() {
        let o = obj! {
            "zeta" => 1u64,
            "alpha" => obj! { "y" => "v", "b" => true },
            "list" => vec![obj! { "k2" => 2u64, "k1" => 1u64 }],
            "none" => Option::<String>::None,
        };
        assert_eq!(
            o.to_line(),
            r#"{"zeta":1,"alpha":{"y":"v","b":true},"list":[{"k2":2,"k1":1}],"none":null}"#
        );
    }

    #[test]
    fn setting_an_existing_key_replaces_it_in_place() {
        let mut o = obj! { "a" => 1u64, "b" => 2u64 };
        o.set("a", 3u64);
        assert_eq!(o.to_line(), r#"{"a":3,"b":2}"#);
    }
}
