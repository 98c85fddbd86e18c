//! Test-only access to the real CLIs' recorded samples in `sim/tests/data`
//! (screens, hook payloads, transcripts), and the field-set check the
//! fixture tests compare our records with.

use serde_json::Value;

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
