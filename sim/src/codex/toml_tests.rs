//! The config.toml subset: lookups however a key was written, errors with
//! positions, and the edits that set one key.

use super::*;

const SAMPLE: &str = r#"# codex config
model = "gpt-fake-1"
approval_policy = 'on-request'
notify = ["/bin/true", "a b"]   # argv
[features]
hooks = true
limit = 1_000
ratio = 0.5
when = 2026-12-02T19:52:00Z

[projects."/home/u/proj"]
trust_level = "trusted"

[projects.'/home/u/other one']
trust_level = "untrusted"

[hooks.state."/h/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:abc"

[model_providers.fake]
name = "Fake"
env = { KEY = "v", nested.deep = 2 }
instructions = """
line one
line \
   two"""

[[profiles]]
name = "a"
[[profiles]]
name = "b"
"#;

#[test]
fn values_are_found_by_their_full_path() {
    let doc = parse(SAMPLE).unwrap();
    assert_eq!(doc.str(&["model"]), Some("gpt-fake-1"));
    assert_eq!(doc.str(&["approval_policy"]), Some("on-request"));
    assert_eq!(
        doc.str(&["projects", "/home/u/proj", "trust_level"]),
        Some("trusted")
    );
    assert_eq!(
        doc.str(&["projects", "/home/u/other one", "trust_level"]),
        Some("untrusted")
    );
    assert_eq!(
        doc.str(&[
            "hooks",
            "state",
            "/h/.codex/hooks.json:stop:0:0",
            "trusted_hash"
        ]),
        Some("sha256:abc")
    );
    assert_eq!(doc.get(&["features", "limit"]), Some(&Value::from(1000)));
    assert_eq!(doc.get(&["features", "ratio"]), Some(&Value::from(0.5)));
    assert_eq!(doc.str(&["features", "when"]), Some("2026-12-02T19:52:00Z"));
    assert_eq!(
        doc.str(&["model_providers", "fake", "env", "KEY"]),
        Some("v")
    );
    assert_eq!(
        doc.get(&["model_providers", "fake", "env", "nested", "deep"]),
        Some(&Value::from(2))
    );
    assert_eq!(
        doc.str(&["model_providers", "fake", "instructions"]),
        Some("line one\nline two")
    );
    assert_eq!(doc.str(&["profiles", "1", "name"]), Some("b"));
    assert_eq!(doc.get(&["notify"]).unwrap()[1], "a b");
}

#[test]
fn dotted_keys_and_inline_tables_count_too() {
    let doc =
        parse("projects.\"/p\".trust_level = \"trusted\"\nx = { a = { b = 'c' } }\n").unwrap();
    assert_eq!(doc.str(&["projects", "/p", "trust_level"]), Some("trusted"));
    assert_eq!(doc.str(&["x", "a", "b"]), Some("c"));
}

#[test]
fn escapes_and_crlf() {
    let doc = parse("a = \"q\\\"\\u00e9\\t\"\r\nb = 'raw\\n'\r\n").unwrap();
    assert_eq!(doc.str(&["a"]), Some("q\"é\t"));
    assert_eq!(doc.str(&["b"]), Some("raw\\n"));
}

#[test]
fn errors_name_line_and_column() {
    for (text, want) in [
        ("a = \n", "line 1, column 5: expected a value"),
        (
            "ok = 1\nb = \"open\n",
            "line 2, column 10: unterminated string",
        ),
        ("[t\nx = 1\n", "line 1, column 3: expected `]`"),
        ("a = 1 b = 2\n", "line 1, column 7: expected a line break"),
        ("a = nope\n", "line 1, column 5: invalid value `nope`"),
        ("= 3\n", "line 1, column 1: expected a key"),
        ("a = [1, 2\n", "expected `,` or `]`"),
        ("a = \"\\q\"\n", "invalid escape `\\q`"),
    ] {
        let err = parse(text).unwrap_err();
        assert!(err.contains(want), "{text:?}: {err}");
        assert!(err.starts_with("TOML parse error at line"), "{err}");
    }
}

#[test]
fn single_values_for_overrides() {
    assert_eq!(parse_value("\"o3\"").unwrap(), Value::from("o3"));
    assert_eq!(parse_value("true").unwrap(), Value::from(true));
    assert!(parse_value("o3").is_err(), "bare words are not TOML");
    assert!(parse_value("\"a\" x").is_err());
}

#[test]
fn quoting_keys_and_strings() {
    assert_eq!(quote_key("projects"), "projects");
    assert_eq!(quote_key("/a b/c"), "\"/a b/c\"");
    assert_eq!(quote_str("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
}

fn edit(text: &str, table: &[&str], key: &str, value: &str) -> Edit {
    let table: Vec<String> = table.iter().map(|s| s.to_string()).collect();
    set_value(text, &parse(text).unwrap(), &table, key, value)
}

#[test]
fn a_new_table_is_appended() {
    assert_eq!(
        edit("", &["projects", "/p q"], "trust_level", "\"trusted\""),
        Edit::Append("[projects.\"/p q\"]\ntrust_level = \"trusted\"\n".into())
    );
    assert_eq!(
        edit(
            "model = \"m\"\n",
            &["projects", "/p"],
            "trust_level",
            "\"trusted\""
        ),
        Edit::Append("\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n".into())
    );
    assert_eq!(
        edit("model = \"m\"", &["a"], "b", "1"),
        Edit::Append("\n\n[a]\nb = 1\n".into())
    );
}

#[test]
fn an_existing_key_or_table_is_changed_in_place() {
    let text = "[projects.\"/p\"]\ntrust_level = \"untrusted\"\n[x]\ny = 1\n";
    let Edit::Rewrite(new) = edit(text, &["projects", "/p"], "trust_level", "\"trusted\"") else {
        panic!("expected a rewrite");
    };
    assert_eq!(
        new,
        "[projects.\"/p\"]\ntrust_level = \"trusted\"\n[x]\ny = 1\n"
    );
    let Edit::Rewrite(new) = edit(text, &["x"], "z", "2") else {
        panic!("expected a rewrite");
    };
    assert_eq!(
        new,
        "[projects.\"/p\"]\ntrust_level = \"untrusted\"\n[x]\nz = 2\ny = 1\n"
    );
    assert_eq!(parse(&new).unwrap().get(&["x", "z"]), Some(&Value::from(2)));
}
