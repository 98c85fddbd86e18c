//! The `env` field of `spawn` and workflow workers as data: either the CLI's list form
//! (`["K=V", "NAME"]`) or a map (`{K: V, TOKEN: {fromEnv: MY_TOKEN}}`), both read into
//! [`EnvSpec`]s. Scalars in the map (`PORT: 8080`, `DEBUG: true`) are taken as their text.

use super::worker_env::EnvSpec;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// `#[serde(deserialize_with = "…")]` for a `Vec<EnvSpec>` field.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<EnvSpec>, D::Error> {
    d.deserialize_any(EnvListVisitor)
}

struct EnvListVisitor;

impl<'de> Visitor<'de> for EnvListVisitor {
    type Value = Vec<EnvSpec>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of `K=V` / `NAME` strings, or a map of NAME: value | {fromEnv: NAME}")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(raw) = seq.next_element::<String>()? {
            out.push(EnvSpec::parse(&raw).map_err(de::Error::custom)?);
        }
        Ok(out)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            let spec = match map.next_value::<EnvValue>()? {
                EnvValue::FromEnv { from_env } => EnvSpec::from_env(&name, &from_env),
                EnvValue::Text(value) => EnvSpec::parse(&format!("{name}={value}")),
                EnvValue::Integer(n) => EnvSpec::parse(&format!("{name}={n}")),
                EnvValue::Float(n) => EnvSpec::parse(&format!("{name}={n}")),
                EnvValue::Bool(b) => EnvSpec::parse(&format!("{name}={b}")),
            };
            out.push(spec.map_err(de::Error::custom)?);
        }
        Ok(out)
    }
}

/// One value of the map form.
#[derive(Deserialize)]
#[serde(untagged, deny_unknown_fields)]
enum EnvValue {
    Text(String),
    Integer(i64),
    Float(f64),
    Bool(bool),
    FromEnv {
        #[serde(rename = "fromEnv")]
        from_env: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Holder {
        #[serde(deserialize_with = "deserialize")]
        env: Vec<EnvSpec>,
    }

    fn specs(json: &str) -> Result<Vec<EnvSpec>, serde_json::Error> {
        serde_json::from_str::<Holder>(json).map(|h| h.env)
    }

    #[test]
    fn the_list_form_is_the_cli_form() {
        let got = specs(r#"{"env": ["A=1", "TOKEN"]}"#).unwrap();
        assert_eq!(got[0], EnvSpec::parse("A=1").unwrap());
        assert_eq!(got[1], EnvSpec::parse("TOKEN").unwrap());
    }

    #[test]
    fn the_map_form_takes_text_scalars_and_from_env() {
        let got =
            specs(r#"{"env": {"A": "x=y", "PORT": 8080, "ON": true, "K": {"fromEnv": "SRC"}}}"#)
                .unwrap();
        assert_eq!(got[0], EnvSpec::parse("A=x=y").unwrap());
        assert_eq!(got[1], EnvSpec::parse("PORT=8080").unwrap());
        assert_eq!(got[2], EnvSpec::parse("ON=true").unwrap());
        assert_eq!(
            got[3],
            EnvSpec::FromEnv {
                name: "K".into(),
                source: "SRC".into()
            }
        );
    }

    #[test]
    fn bad_names_and_shapes_are_refused() {
        assert!(specs(r#"{"env": {"1X": "v"}}"#).is_err());
        assert!(specs(r#"{"env": {"K": {"fromEnv": "bad name"}}}"#).is_err());
        assert!(specs(r#"{"env": {"K": {"fromEnvv": "X"}}}"#).is_err());
        assert!(specs(r#"{"env": "A=1"}"#).is_err());
    }
}
