//! sim's module graph has no circles: every `use crate::…` / `use super::…`
//! (and inline `crate::…` path) in `sim/src` is an edge from the file's module
//! to the module it names, and the graph must be acyclic. Test modules
//! (`tests`, `*_tests`, `test_support`, `testvt`, `fixtures`) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// `a::b` for `src/a/b.rs` and `src/a/b/mod.rs`; `` for `lib.rs`; `None` for binaries.
fn module_of(rel: &Path) -> Option<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    Some(parts.join("::"))
}

fn is_test(module: &str) -> bool {
    let last = module.rsplit("::").next().unwrap_or("");
    last == "tests"
        || last.ends_with("_tests")
        || ["test_support", "testvt", "fixtures"].contains(&last)
}

fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && let Some(module) = module_of(path.strip_prefix(root).unwrap())
            && !is_test(&module)
        {
            out.insert(module, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The code of a file without comments and without its `#[cfg(test)] mod tests { … }` tail.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a file names: `crate::a::b`, `super::c`, and each item of `crate::{a, b}`.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (i, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[i..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '{'))
            .unwrap_or(rest.len());
        match rest[..end].find('{') {
            Some(brace) => {
                let base: Vec<String> = rest[..brace]
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                for first in group_heads(&rest[brace + 1..]) {
                    out.push([base.as_slice(), &[first]].concat());
                }
            }
            None => out.push(rest[..end].split("::").map(str::to_string).collect()),
        }
    }
    out
}

/// The first segment of each item of a `{a, b::{c, d}, e}` group (from after its `{`).
fn group_heads(group: &str) -> Vec<String> {
    let (mut heads, mut item, mut depth) = (Vec::new(), String::new(), 0);
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => heads.push(std::mem::take(&mut item)),
            _ if depth == 0 => item.push(c),
            _ => {}
        }
    }
    heads.push(item);
    heads
        .iter()
        .map(|i| i.trim().split("::").next().unwrap_or("").to_string())
        .filter(|h| !h.is_empty())
        .collect()
}

fn graph(modules: &BTreeMap<String, String>) -> Graph {
    let mut g = Graph::new();
    for (name, text) in modules {
        let me: Vec<&str> = name.split("::").filter(|s| !s.is_empty()).collect();
        let deps = g.entry(name.clone()).or_default();
        for path in paths(&code(text)) {
            let ups = path.iter().take_while(|s| *s == "super").count();
            let (segs, rest) = match ups {
                0 => (&me[..0], &path[1..]),
                n => (&me[..me.len().saturating_sub(n)], &path[n..]),
            };
            let segs = segs.iter().map(|s| s.to_string());
            let full: Vec<String> = segs.chain(rest.iter().cloned()).collect();
            for k in (1..=full.len()).rev() {
                let key = full[..k].join("::");
                if modules.contains_key(&key) {
                    if key != *name && !name.starts_with(&format!("{key}::")) {
                        deps.insert(key);
                    }
                    break;
                }
            }
        }
    }
    g
}

/// A circle through `start`, if there is one.
fn circle(g: &Graph, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((node, path)) = stack.pop() {
        for next in g.get(&node).into_iter().flatten() {
            if next == start {
                return Some(path.clone());
            }
            if seen.insert(next.clone()) {
                let mut p = path.clone();
                p.push(next.clone());
                stack.push((next.clone(), p));
            }
        }
    }
    None
}

#[test]
fn the_module_graph_has_no_circles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeMap::new();
    walk(&root, &root, &mut modules);
    let g = graph(&modules);
    assert!(g.len() > 50, "read only {} modules", g.len());
    assert!(g["claude::tool"].contains("claude::turn"), "edges are read");
    let circles: Vec<Vec<String>> = g.keys().filter_map(|m| circle(&g, m)).collect();
    assert!(circles.is_empty(), "import circles: {circles:?}");
}

#[test]
fn a_planted_circle_is_found() {
    let mut modules = BTreeMap::new();
    modules.insert("a".to_string(), "use crate::b::X;".to_string());
    modules.insert("b".to_string(), "use crate::{a::{X, Y}, c};".to_string());
    modules.insert("c".to_string(), "fn f() { super::a::g() }".to_string());
    let g = graph(&modules);
    assert_eq!(g["b"], BTreeSet::from(["a".to_string(), "c".to_string()]));
    assert_eq!(
        circle(&g, "a"),
        Some(vec!["a".to_string(), "b".to_string()])
    );
    assert!(circle(&g, "c").is_some(), "c -> a -> b -> c");
}
