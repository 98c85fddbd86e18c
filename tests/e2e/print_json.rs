//! Comparing print-mode JSON by its keys: `umbel -p --output-format json|stream-json` must hold
//! every key the provider's own print mode prints on the same scenario (recorded samples in
//! tests/data, or the real CLI in the offline tier: `tiers::print_json_keys_*`).

use serde_json::Value;
use std::collections::BTreeSet;

/// A recorded print-mode sample from tests/data, one JSON document a line (or one pretty one).
pub fn sample(path: &str) -> Vec<Value> {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path);
    let text = std::fs::read_to_string(&file).expect("read sample");
    parse_documents(&text)
}

/// Every JSON document in `text` (JSONL or pretty-printed) that starts a line, skipping lines
/// that are not JSON (the CLIs' own warnings and stack traces on stderr). An array of objects
/// (`qwen -p -o json`'s messages) counts as its elements.
pub fn parse_documents(text: &str) -> Vec<Value> {
    let mut documents = Vec::new();
    let mut rest = text;
    let line_start = |r: &str| match r.starts_with(['{', '[']) {
        true => Some(0),
        false => [r.find("\n{"), r.find("\n[")]
            .into_iter()
            .flatten()
            .min()
            .map(|at| at + 1),
    };
    while let Some(at) = line_start(rest) {
        let mut stream = serde_json::Deserializer::from_str(&rest[at..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Array(items))) if items.iter().all(Value::is_object) => {
                documents.extend(items);
                rest = &rest[at + stream.byte_offset()..];
            }
            Some(Ok(value)) if value.is_object() => {
                documents.push(value);
                rest = &rest[at + stream.byte_offset()..];
            }
            _ => rest = &rest[at + 1..],
        }
    }
    documents
}

/// The key paths of a document: `usage.input_tokens`, `modelUsage.*.costUSD` (maps keyed by a
/// model, tool, subagent type, gemini role — which roles appear depends on its routing — or qwen
/// request source — its background memory agent, off in umbel's workers, is one — are `*`), `item.type`; array elements are `[]`.
pub fn key_paths(value: &Value) -> BTreeSet<String> {
    let mut paths = BTreeSet::new();
    walk(value, "", &mut paths);
    paths
}

const NAME_KEYED: &[&str] = &[
    "modelUsage",
    "models",
    "byName",
    "by_type",
    "roles",
    "bySource",
];

fn walk(value: &Value, prefix: &str, paths: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            let named = NAME_KEYED.iter().any(|k| prefix.ends_with(k));
            for (key, child) in map {
                let key = if named { "*" } else { key.as_str() };
                let path = if prefix.is_empty() {
                    key.to_string()
                } else {
                    format!("{prefix}.{key}")
                };
                paths.insert(path.clone());
                walk(child, &path, paths);
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, &format!("{prefix}[]"), paths);
            }
        }
        _ => {}
    }
}

/// What kind of document it is: its `type` and its item's type (codex, stream-json).
pub fn kind(value: &Value) -> String {
    let t = value["type"].as_str().unwrap_or("");
    match value.pointer("/item/type").and_then(Value::as_str) {
        Some(item) => format!("{t}/{item}"),
        None => t.to_string(),
    }
}

/// Asserts that for each of `theirs` (the real print mode's documents) a document of ours of
/// the same kind holds all its keys. Codex's warning items (`item.completed` of type `error`,
/// e.g. unknown model metadata) are the CLI's own start-up notes and not compared. Nor is the
/// `modelUsage` of a claude result for a request that failed with no output: claude 2.1.246's
/// print mode counts a side request of its own there (a Haiku call the interactive session
/// never makes or records), where 2.1.290 and newer leave `{}`.
pub fn assert_keys_include(ours: &[Value], theirs: &[Value], what: &str) {
    for their in theirs {
        let kind = kind(their);
        if kind == "item.completed/error" {
            continue;
        }
        let mut wanted = key_paths(their);
        if their["is_error"] == true && their["usage"]["output_tokens"] == 0 {
            wanted.retain(|k| !k.starts_with("modelUsage."));
        }
        let best = ours
            .iter()
            .filter(|o| self::kind(o) == kind)
            .map(|o| {
                wanted
                    .difference(&key_paths(o))
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .min_by_key(Vec::len);
        match best {
            None => panic!("{what}: umbel printed no `{kind}` document; ours: {ours:#?}"),
            Some(missing) => assert!(
                missing.is_empty(),
                "{what}: umbel's `{kind}` lacks {missing:?}"
            ),
        }
    }
}
