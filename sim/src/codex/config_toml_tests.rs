//! config.toml: lookups however a key was written, errors worded as the real codex 0.171.0
//! prints them (recorded with its `exec`), and edits that keep the user's text.

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
    assert_eq!(doc.get(&["features", "limit"]), Some(&Value::Integer(1000)));
    assert_eq!(doc.get(&["features", "ratio"]), Some(&Value::Float(0.5)));
    let when = doc.get(&["features", "when"]).and_then(Value::as_datetime);
    assert_eq!(
        when.map(ToString::to_string).as_deref(),
        Some("2026-12-02T19:52:00Z")
    );
    assert_eq!(
        doc.str(&["model_providers", "fake", "env", "KEY"]),
        Some("v")
    );
    assert_eq!(
        doc.get(&["model_providers", "fake", "env", "nested", "deep"]),
        Some(&Value::Integer(2))
    );
    assert_eq!(
        doc.str(&["model_providers", "fake", "instructions"]),
        Some("line one\nline two")
    );
    assert_eq!(doc.str(&["profiles", "1", "name"]), Some("b"));
    assert_eq!(
        doc.get(&["notify", "1"]).and_then(Value::as_str),
        Some("a b")
    );
}

#[test]
fn dotted_keys_inline_tables_crlf_and_a_bom_count_too() {
    let doc =
        parse("\u{feff}projects.\"/p\".trust_level = \"trusted\"\r\nx = { a = { b = 'c' } }\r\n")
            .unwrap();
    assert_eq!(doc.str(&["projects", "/p", "trust_level"]), Some("trusted"));
    assert_eq!(doc.str(&["x", "a", "b"]), Some("c"));
}

/// What codex 0.171.0 printed for each file (`codex exec hi` with CODEX_HOME=/h).
#[test]
fn syntax_errors_read_as_the_real_clis() {
    for (text, want) in [
        (
            "model = \"x\"\n[projects\ntrust_level = 1\n",
            "/h/config.toml:2:10: unclosed table, expected `]`\n  |\n2 | [projects\n  |          ^",
        ),
        (
            "model = \n",
            "/h/config.toml:1:9: string values must be quoted, expected literal string\n  |\n1 | model = \n  |         ^",
        ),
        (
            "a = 1\na = 2\n",
            "/h/config.toml:2:1: duplicate key\n  |\n2 | a = 2\n  | ^",
        ),
        (
            "[x]\nb = 1\n[x]\n",
            "/h/config.toml:3:2: duplicate key\n  |\n3 | [x]\n  |  ^",
        ),
        (
            "a = \"abc\n",
            "/h/config.toml:1:9: invalid basic string, expected `\"`\n  |\n1 | a = \"abc\n  |         ^",
        ),
        (
            "a = 'x'\n\tb = [1,\n 2,, ]\n",
            "/h/config.toml:3:4: extra comma in array, expected value\n  |\n3 |  2,, ]\n  |    ^",
        ),
        (
            "a = \"\u{e9}\u{e9}\" b\n",
            "/h/config.toml:1:10: unexpected key or value, expected newline, `#`\n  |\n1 | a = \"\u{e9}\u{e9}\" b\n  |          ^",
        ),
        (
            "\u{feff}model = \"x\"\nzz = \n",
            "/h/config.toml:2:6: string values must be quoted, expected literal string\n  |\n2 | zz = \n  |      ^",
        ),
    ] {
        let err = parse(text).unwrap_err();
        assert_eq!(
            err.report(std::path::Path::new("/h/config.toml")),
            format!("Error loading config.toml:\n{want}"),
            "{text:?}"
        );
    }
}

#[test]
fn single_values_for_overrides() {
    assert_eq!(
        parse_value("\"o3\"").unwrap(),
        serde_json::Value::from("o3")
    );
    assert_eq!(parse_value(" true").unwrap(), serde_json::Value::from(true));
    assert!(parse_value("o3").is_err(), "bare words are not TOML");
    assert!(parse_value("\"a\" x").is_err());
}

fn set(text: &str, table: &[&str], key: &str, value: &str) -> String {
    let table: Vec<String> = table.iter().map(|s| s.to_string()).collect();
    set_string(text, &table, key, value).unwrap()
}

#[test]
fn a_new_table_is_added_at_the_end() {
    assert_eq!(
        set("", &["projects", "/p q"], "trust_level", "trusted"),
        "[projects.\"/p q\"]\ntrust_level = \"trusted\"\n"
    );
    assert_eq!(
        set(
            "model = \"m\" # mine\n",
            &["projects", "/p"],
            "trust_level",
            "trusted"
        ),
        "model = \"m\" # mine\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n"
    );
}

#[test]
fn an_existing_key_or_table_is_changed_in_place() {
    let text = "[projects.'/p'] # mine\ntrust_level = \"untrusted\"\n[x]\ny = 1\n";
    assert_eq!(
        set(text, &["projects", "/p"], "trust_level", "trusted"),
        "[projects.'/p'] # mine\ntrust_level = \"trusted\"\n[x]\ny = 1\n"
    );
    let new = set(text, &["x"], "z", "2");
    assert_eq!(parse(&new).unwrap().str(&["x", "z"]), Some("2"));
    assert!(new.starts_with("[projects.'/p'] # mine\n"), "{new}");
    let inline = set(
        "projects = { \"/a\" = { trust_level = \"trusted\" } }\n",
        &["projects", "/p"],
        "trust_level",
        "trusted",
    );
    let doc = parse(&inline).unwrap();
    assert_eq!(doc.str(&["projects", "/a", "trust_level"]), Some("trusted"));
    assert_eq!(doc.str(&["projects", "/p", "trust_level"]), Some("trusted"));
    assert!(
        set_string(
            "projects = 5\n",
            &["projects".into(), "/p".into()],
            "k",
            "v"
        )
        .is_err()
    );
}
