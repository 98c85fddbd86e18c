//! Ordered JSON objects for records and payloads.
//!
//! The real CLIs write object keys in insertion order (JavaScript and serde
//! structs both do). `serde_json::Value` sorts keys, and turning on its
//! `preserve_order` feature would leak into every crate of the workspace, so
//! records are built with [`Obj`] and the [`obj!`](crate::obj) macro instead:
//! keys come out exactly in the order they are written.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

/// A JSON value whose objects keep their key order.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    /// Any plain value (objects inside it are serialized in serde_json's order).
    V(Value),
    /// An ordered object.
    O(Obj),
    /// An array of ordered values.
    A(Vec<J>),
}

/// An object that serializes its keys in insertion order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Obj(pub Vec<(String, J)>);

impl Obj {
    /// An empty object.
    pub fn new() -> Self {
        Self(Vec::new())
    }

    /// Appends `key: value` (a later duplicate key replaces the earlier value in place).
    pub fn set(&mut self, key: &str, value: impl Into<J>) -> &mut Self {
        let value = value.into();
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key.to_string(), value)),
        }
        self
    }

    /// Builder form of [`Obj::set`].
    pub fn with(mut self, key: &str, value: impl Into<J>) -> Self {
        self.set(key, value);
        self
    }

    /// Serializes to one compact JSON line (no trailing newline).
    pub fn to_line(&self) -> String {
        // Serializing plain data into a String cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Converts to a `serde_json::Value` (key order is lost; for tests and lookups).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for Obj {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl Serialize for J {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::V(v) => v.serialize(s),
            J::O(o) => o.serialize(s),
            J::A(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
        }
    }
}

impl From<Obj> for J {
    fn from(o: Obj) -> Self {
        J::O(o)
    }
}
impl From<Value> for J {
    fn from(v: Value) -> Self {
        J::V(v)
    }
}
impl From<&Value> for J {
    fn from(v: &Value) -> Self {
        J::V(v.clone())
    }
}
impl From<Vec<J>> for J {
    fn from(v: Vec<J>) -> Self {
        J::A(v)
    }
}
impl From<Vec<Obj>> for J {
    fn from(v: Vec<Obj>) -> Self {
        J::A(v.into_iter().map(J::O).collect())
    }
}
impl From<&str> for J {
    fn from(v: &str) -> Self {
        J::V(Value::from(v))
    }
}
impl From<String> for J {
    fn from(v: String) -> Self {
        J::V(Value::from(v))
    }
}
impl From<&String> for J {
    fn from(v: &String) -> Self {
        J::V(Value::from(v.as_str()))
    }
}
impl From<bool> for J {
    fn from(v: bool) -> Self {
        J::V(Value::from(v))
    }
}
impl From<u64> for J {
    fn from(v: u64) -> Self {
        J::V(Value::from(v))
    }
}
impl From<i64> for J {
    fn from(v: i64) -> Self {
        J::V(Value::from(v))
    }
}
impl From<u32> for J {
    fn from(v: u32) -> Self {
        J::V(Value::from(v))
    }
}
impl From<usize> for J {
    fn from(v: usize) -> Self {
        J::V(Value::from(v as u64))
    }
}
impl From<f64> for J {
    fn from(v: f64) -> Self {
        J::V(Value::from(v))
    }
}
impl<T: Into<J>> From<Option<T>> for J {
    fn from(v: Option<T>) -> Self {
        v.map_or(J::V(Value::Null), Into::into)
    }
}

/// JSON `null`.
pub fn null() -> J {
    J::V(Value::Null)
}

/// An empty JSON array.
pub fn empty_array() -> J {
    J::A(Vec::new())
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
