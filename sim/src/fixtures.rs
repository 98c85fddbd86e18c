//! Test-only access to the real CLIs' recorded samples in `sim/tests/data`
//! (screens, hook payloads, transcripts), and the field-set check the
//! fixture tests compare our records with; and the command-line parsers
//! run on test argv.

use std::fmt::Debug;

use serde_json::Value;

use crate::engine::entry::Action;

/// The text of `tests/data/<name>`.
pub fn text(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A recorded screen: its rows, without the final newline.
pub fn screen(name: &str) -> Vec<String> {
    text(name)
        .trim_end_matches('\n')
        .split('\n')
        .map(str::to_string)
        .collect()
}

/// A recording of an older release (the repository's `tests/data/<cli>/<version>/`, one copy
/// for umbel's tests and the fakes'): `<cli>-<version>-<name>`, rows without the final newline.
pub fn release_screen(cli: &str, version: &str, name: &str) -> Vec<String> {
    repo_screen(&format!("{cli}/{version}/{cli}-{version}-{name}"))
}

/// A recorded screen in the repository's `tests/data/` (`path` below it), rows without the
/// final newline.
pub fn repo_screen(path: &str) -> Vec<String> {
    let path = format!("{}/../tests/data/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .trim_end_matches('\n')
        .split('\n')
        .map(str::to_string)
        .collect()
}

/// A recorded JSONL file: one value per non-empty line.
pub fn jsonl(name: &str) -> Vec<Value> {
    text(name)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
        .collect()
}

/// Every key of `want` is in `got`; objects recurse; arrays compare their first elements.
pub fn assert_fields(want: &Value, got: &Value, at: &str) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                let gv = g.get(k).unwrap_or_else(|| {
                    panic!(
                        "{at}: missing field `{k}` (have {:?})",
                        g.keys().collect::<Vec<_>>()
                    )
                });
                assert_fields(wv, gv, &format!("{at}.{k}"));
            }
        }
        (Value::Array(w), Value::Array(g)) if w.first().is_some_and(Value::is_object) => {
            let first = g
                .first()
                .unwrap_or_else(|| panic!("{at}: empty array, fixture has objects"));
            assert_fields(&w[0], first, &format!("{at}[0]"));
        }
        (Value::Object(_), other) => panic!("{at}: expected an object, got {other}"),
        _ => {}
    }
}

/// A parser's answer for `list` (argv without the program name).
pub fn parse<O, E>(
    parse: fn(&[String]) -> Result<Action<O>, E>,
    list: &[&str],
) -> Result<Action<O>, E> {
    parse(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

/// The options a parser gives for `list`, which must ask for a run.
pub fn options<O: Debug, E: Debug>(
    parse: fn(&[String]) -> Result<Action<O>, E>,
    list: &[&str],
) -> O {
    match self::parse(parse, list) {
        Ok(Action::Run(o)) => o,
        other => panic!("{list:?}: {other:?}"),
    }
}

/// `version` and `-v`-style flags ask for the version, `help` flags for `page`.
pub fn assert_help_and_version<O: Debug + PartialEq, E: Debug>(
    parse: fn(&[String]) -> Result<Action<O>, E>,
    version: &[&str],
    help: &[&str],
    page: &'static str,
) {
    for flag in version {
        assert_eq!(
            self::parse(parse, &[flag]).unwrap(),
            Action::Version,
            "{flag}"
        );
    }
    for flag in help {
        assert_eq!(
            self::parse(parse, &[flag]).unwrap(),
            Action::Print(page),
            "{flag}"
        );
    }
}
