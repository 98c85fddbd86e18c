//! The house rules, checked over the sources (test code is not held to them):
//!
//! - **Side effects live in `adapters/`** (and the faces, which own the process): `std::fs`,
//!   `std::process`, `std::env`, `std::os::unix::{fs, process}` and the wall clock
//!   (`SystemTime::now`) do not appear in `core/` or `operations/`. The monotonic clock
//!   (`Instant::now`) is allowed in `operations/`, where it bounds loops and deadlines and
//!   never reaches a record; `core/` is pure and reads no clock at all.
//! - **No import circles**: the graph of `crate::`/`super::`/`self::` references between
//!   modules has no cycle. A parent depends on its children (it holds them); a child naming its
//!   parent's items (`use super::Ctx`) is scope, not a dependency.
//! - **A provider is one folder**: outside `core/providers/` no code names a provider variant.
//! - **Short functions**: none over [`MAX_FUNCTION_LINES`] lines unless a `// long: <why>`
//!   comment right above it says why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest function body allowed without a `// long:` comment.
const MAX_FUNCTION_LINES: usize = 60;

/// Names that mean a side effect, and where each is banned.
const BANNED: &[(&str, &[&str])] = &[
    ("std::fs", &["core", "operations"]),
    ("std::process", &["core", "operations"]),
    ("std::env", &["core", "operations"]),
    ("std::os::unix::fs", &["core", "operations"]),
    ("std::os::unix::process", &["core", "operations"]),
    ("TcpListener", &["core", "operations"]),
    ("TcpStream", &["core", "operations"]),
    ("UdpSocket", &["core", "operations"]),
    ("tokio::net", &["core", "operations"]),
    ("SystemTime::now", &["core", "operations"]),
    ("Instant::now", &["core"]),
];

/// One source file: its module path (`operations::send`) and its code without comments and
/// without its `#[cfg(test)]` module (`text`: the same with comments).
struct Source {
    path: PathBuf,
    module: Vec<String>,
    code: String,
    text: String,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every non-test source file under `dir`.
fn sources(dir: &Path) -> Vec<Source> {
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            // A provider folder's tests are `tests.rs`; elsewhere `<module>_tests.rs`.
            name != "tests.rs" && !name.ends_with("_tests.rs")
        })
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("read a source file");
            let module = module_of(path.strip_prefix(dir).expect("under src"));
            Source {
                code: code_of(&text, true),
                text: code_of(&text, false),
                path,
                module,
            }
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("list src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `operations/wait/mod.rs` → `[operations, wait]`; `lib.rs` and `main.rs` → `[]`.
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// The code of a file without its `#[cfg(test)]` module, and without line comments when
/// `uncommented`.
fn code_of(text: &str, uncommented: bool) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let test_only = line.trim() == "#[cfg(test)]" || line.trim().starts_with("#[cfg(all(test,");
        if test_only
            && lines
                .peek()
                .is_some_and(|next| next.starts_with("mod ") || next.starts_with("#[path"))
        {
            break;
        }
        let without_comment = match line.find("//") {
            // Not inside a string literal (an odd number of quotes before it).
            Some(at) if uncommented && line[..at].matches('"').count() % 2 == 0 => &line[..at],
            _ => line,
        };
        code.push_str(without_comment);
        code.push('\n');
    }
    code
}

/// The banned names `code` (of a file in top-level folder `layer`) uses, with their lines.
fn side_effects(layer: &str, code: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (number, line) in code.lines().enumerate() {
        for (name, layers) in BANNED {
            if layers.contains(&layer) && uses(line, name) {
                found.push((number + 1, *name));
            }
        }
    }
    found
}

/// Whether `line` names `name`, spelled out or through a grouped `use std::{fs, …}`.
fn uses(line: &str, name: &str) -> bool {
    if line.contains(name) {
        return true;
    }
    let Some((root, item)) = name.rsplit_once("::") else {
        return false;
    };
    let group = format!("{root}::{{");
    line.find(&group).is_some_and(|at| {
        let inner = &line[at + group.len()..];
        let inner = &inner[..inner.find('}').unwrap_or(inner.len())];
        inner
            .split(',')
            .any(|part| part.trim() == item || part.trim().starts_with(&format!("{item}::")))
    })
}

#[test]
fn side_effects_stay_in_adapters_and_faces() {
    let dir = src_dir();
    let mut problems = Vec::new();
    for source in sources(&dir) {
        let layer = source.module.first().map_or("", String::as_str);
        for (line, name) in side_effects(layer, &source.code) {
            problems.push(format!(
                "{}:{line}: `{name}` outside adapters/ and faces/",
                source
                    .path
                    .strip_prefix(&dir)
                    .unwrap_or(&source.path)
                    .display()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "move these behind an adapter (src/adapters/):\n{}",
        problems.join("\n")
    );
}

/// Where `code` names a provider variant (`Provider::Claude`, …): line numbers.
fn provider_variants_named(code: &str) -> Vec<usize> {
    use clap::ValueEnum;
    let variants: Vec<String> = crate::core::providers::Provider::value_variants()
        .iter()
        .map(|p| format!("Provider::{p:?}"))
        .collect();
    code.lines()
        .enumerate()
        .filter(|(_, line)| variants.iter().any(|v| line.contains(v.as_str())))
        .map(|(n, _)| n + 1)
        .collect()
}

/// A provider is one folder: outside `core/providers/` no code names a provider variant —
/// what differs between the CLIs is a method or data of `ProviderModule` (test code aside:
/// `core/test_data.rs` is compiled for the tests only).
#[test]
fn no_provider_is_named_outside_its_folder() {
    let dir = src_dir();
    let mut problems = Vec::new();
    for source in sources(&dir) {
        let path = source.path.strip_prefix(&dir).unwrap_or(&source.path);
        if path.starts_with("core/providers") || path == Path::new("core/test_data.rs") {
            continue;
        }
        for line in provider_variants_named(&source.code) {
            problems.push(format!("{}:{line}", path.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "a provider named outside core/providers/: make it a ProviderModule method or data \
         in the provider's folder:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_provider_check_finds_a_planted_match() {
    let planted = "fn f(p: Provider) -> u8 {\n    match p {\n        Provider::Codex => 1,\n        _ => 0,\n    }\n}\n";
    assert_eq!(provider_variants_named(planted), [3]);
}

#[test]
fn the_side_effect_check_finds_a_planted_write() {
    let planted = "use super::Ctx;\nfn f() {\n    std::fs::write(\"x\", b\"\").unwrap();\n}\n";
    assert_eq!(side_effects("operations", planted), [(3, "std::fs")]);
    assert_eq!(
        side_effects("core", "use std::{env, io};\nlet t = Instant::now();"),
        [(1, "std::env"), (2, "Instant::now")]
    );
    assert!(side_effects("operations", "let t = Instant::now();").is_empty());
    assert!(side_effects("adapters", planted).is_empty());
    // A comment that names one is not a use.
    assert!(side_effects("core", &code_of("// std::fs is not read here\n", true)).is_empty());
}

/// The lines of `code` that print through std's panicking macros (`eprintln!` and the like):
/// a write to a closed stderr or stdout would panic there. Faces print through `errln!`/`errp!`
/// and `output::out`.
fn panicking_prints(code: &str) -> Vec<usize> {
    code.lines()
        .enumerate()
        .filter(|(_, line)| {
            ["eprintln!", "eprint!", "println!", "print!"]
                .iter()
                .any(|m| {
                    line.match_indices(m).any(|(at, _)| {
                        at == 0
                            || !line.as_bytes()[at - 1].is_ascii_alphanumeric()
                                && line.as_bytes()[at - 1] != b'_'
                    })
                })
        })
        .map(|(number, _)| number + 1)
        .collect()
}

#[test]
fn nothing_prints_through_a_macro_that_panics_on_a_closed_stream() {
    let dir = src_dir();
    let mut problems = Vec::new();
    for source in sources(&dir) {
        for line in panicking_prints(&source.code) {
            let path = source.path.strip_prefix(&dir).unwrap_or(&source.path);
            problems.push(format!("{}:{line}", path.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "print with `errln!`/`errp!` (stderr) or `output::out` (stdout) instead:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_print_check_finds_a_planted_eprintln() {
    assert_eq!(
        panicking_prints("let x = 1;\n    eprintln!(\"umbel: {x}\");\n"),
        [2]
    );
    assert!(panicking_prints("errln!(\"umbel\");\nerrp!(\"x\");").is_empty());
}

/// The modules each module refers to through `crate::…`, `super::…` and `self::…` paths.
fn import_graph(sources: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let mut graph = BTreeMap::new();
    for source in sources {
        let from = source.module.join("::");
        let edges: &mut BTreeSet<String> = graph.entry(from).or_default();
        for path in paths(&source.code) {
            let Some(target) = resolve(&source.module, &path, &modules) else {
                continue;
            };
            // A child naming its parent's items (`use super::Ctx`) is scope, not a dependency.
            if !source.module.starts_with(&target[..]) {
                edges.insert(target.join("::"));
            }
        }
        // A parent holds its children: what they import, it depends on.
        if let Some((_, parent)) = source.module.split_last()
            && modules.contains(parent)
        {
            graph
                .entry(parent.join("::"))
                .or_default()
                .insert(source.module.join("::"));
        }
    }
    graph
}

/// Every `crate::`, `super::` and `self::` path in `code`, `use` groups expanded.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if !code.is_char_boundary(at) {
            at += 1;
            continue;
        }
        let rest = &code[at..];
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .any(|p| rest.starts_with(p))
            && (at == 0 || !is_ident(bytes[at - 1]));
        if !starts {
            at += 1;
            continue;
        }
        let (expanded, used) = expand(rest);
        found.extend(expanded);
        at += used.max(1);
    }
    found
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b':'
}

/// Expands the path at the start of `text` (`a::b::{c, d::e}`) and returns how much it took.
fn expand(text: &str) -> (Vec<Vec<String>>, usize) {
    let mut prefix: Vec<String> = Vec::new();
    let mut i = 0;
    let bytes = text.as_bytes();
    loop {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if i > start {
            prefix.push(text[start..i].to_string());
        }
        if text[i..].starts_with("::{") {
            i += 3;
            let mut all = Vec::new();
            loop {
                while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b',') {
                    i += 1;
                }
                if i >= bytes.len() || bytes[i] == b'}' {
                    return (all, i + 1);
                }
                let (inner, used) = expand(&text[i..]);
                for tail in inner {
                    let mut path = prefix.clone();
                    path.extend(tail);
                    all.push(path);
                }
                i += used.max(1);
            }
        }
        if text[i..].starts_with("::") {
            i += 2;
            continue;
        }
        // `a as b`, `*`, punctuation: the path ends here.
        return (vec![prefix], i);
    }
}

/// The module `path` (written in module `from`) lands in: the longest known module prefix.
fn resolve(
    from: &[String],
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let mut absolute: Vec<String> = match path.first()?.as_str() {
        "crate" => Vec::new(),
        "self" => from.to_vec(),
        "super" => from.to_vec(),
        _ => return None,
    };
    for segment in path {
        match segment.as_str() {
            "crate" | "self" => {}
            "super" => {
                absolute.pop();
            }
            other => absolute.push(other.to_string()),
        }
    }
    (0..=absolute.len())
        .rev()
        .map(|n| absolute[..n].to_vec())
        .find(|candidate| modules.contains(candidate))
}

/// The cycles of `graph`, each as its modules in order.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    for start in graph.keys() {
        let mut stack = vec![start.as_str()];
        walk(graph, &mut stack, &mut done, &mut found);
    }
    found
}

/// Depth first from the top of `stack`; a module met again on the stack closes a cycle.
fn walk<'a>(
    graph: &'a BTreeMap<String, BTreeSet<String>>,
    stack: &mut Vec<&'a str>,
    done: &mut BTreeSet<&'a str>,
    found: &mut Vec<Vec<String>>,
) {
    let Some(&here) = stack.last() else { return };
    if done.contains(here) {
        return;
    }
    for next in graph.get(here).into_iter().flatten() {
        if let Some(at) = stack.iter().position(|m| m == next) {
            let mut cycle: Vec<String> = stack[at..].iter().map(|m| m.to_string()).collect();
            cycle.push(next.clone());
            found.push(cycle);
        } else {
            stack.push(next);
            walk(graph, stack, done, found);
            stack.pop();
        }
    }
    done.insert(here);
}

#[test]
fn no_import_circles() {
    let graph = import_graph(&sources(&src_dir()));
    let found: Vec<String> = cycles(&graph).iter().map(|c| c.join(" → ")).collect();
    assert!(
        found.is_empty(),
        "import circles in src/:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_check_finds_a_circle() {
    let modules: Vec<Source> = [
        ("core::a", "use crate::core::b::{self, B};"),
        ("core::b", "use super::c::C;"),
        ("core::c", "fn f() { crate::core::a::g() }"),
        ("core::d", "use self::d_child::X;"),
        ("core::d::d_child", "use super::D;"),
        ("core::e", ""),
        ("core::e::x", "use crate::core::f;"),
        ("core::f", "fn g() -> crate::core::e::E {}"),
    ]
    .iter()
    .map(|(module, code)| Source {
        path: PathBuf::from(module),
        module: module.split("::").map(str::to_string).collect(),
        code: code.to_string(),
        text: code.to_string(),
    })
    .collect();
    let graph = import_graph(&modules);
    assert_eq!(graph["core::a"], BTreeSet::from(["core::b".to_string()]));
    let found = cycles(&graph);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0], ["core::a", "core::b", "core::c", "core::a"]);
    // Through a child: e holds x, x needs f, f needs e.
    assert_eq!(found[1], ["core::e", "core::e::x", "core::f", "core::e"]);
}

/// Functions longer than [`MAX_FUNCTION_LINES`] with no `// long:` comment above them.
fn long_functions(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let Some(length) = body_length(&lines[i..]) else {
            continue;
        };
        let excused = lines[..i]
            .iter()
            .rev()
            .take_while(|l| {
                let l = l.trim();
                l.starts_with("//") || l.starts_with("#[")
            })
            .any(|l| l.trim().starts_with("// long:"));
        if length > MAX_FUNCTION_LINES && !excused {
            found.push((i + 1, name, length));
        }
    }
    found
}

/// The name of the function `line` starts, if it starts one.
fn fn_name(line: &str) -> Option<String> {
    let at = line.find("fn ")?;
    let before = line[..at].trim();
    let words_ok = before.split_whitespace().all(|w| {
        w.starts_with("pub") || matches!(w, "async" | "const" | "unsafe" | "extern" | "default")
    });
    if !words_ok || line.trim_start().starts_with("//") {
        return None;
    }
    let name: String = line[at + 3..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// `line` without its string and character literals' contents (braces in them do not count).
fn without_literals(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        match (in_string, c) {
            (true, '\\') => {
                chars.next();
            }
            (_, '"') => in_string = !in_string,
            (false, '\'') if chars.peek().is_some_and(|n| *n == '{' || *n == '}') => {
                chars.next();
            }
            (true, _) => {}
            (false, c) => out.push(c),
        }
    }
    out
}

/// Lines from a function's signature to its closing brace; `None` for a declaration.
fn body_length(lines: &[&str]) -> Option<usize> {
    let mut depth = 0i32;
    let mut opened = false;
    for (n, line) in lines.iter().enumerate() {
        let code = without_literals(line);
        let code = code.split("//").next().unwrap_or("");
        for c in code.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                ';' if !opened && depth == 0 => return None,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            return Some(n + 1);
        }
    }
    None
}

#[test]
fn no_function_is_over_60_lines_without_a_reason() {
    let dir = src_dir();
    let mut found = Vec::new();
    for source in sources(&dir) {
        for (line, name, length) in long_functions(&source.text) {
            let shown = source
                .path
                .strip_prefix(&dir)
                .unwrap_or(&source.path)
                .display();
            found.push(format!("{shown}:{line}: {name} is {length} lines"));
        }
    }
    assert!(
        found.is_empty(),
        "split these into named steps, or say why above them with `// long: …`:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_length_check_counts_lines_and_takes_a_reason() {
    let body = "    x();\n".repeat(MAX_FUNCTION_LINES);
    let long = format!("pub fn long_one() {{\n{body}}}\n");
    assert_eq!(
        long_functions(&long),
        [(1, "long_one".to_string(), MAX_FUNCTION_LINES + 2)]
    );
    let excused = format!("// long: one table, read top to bottom\n{long}");
    assert!(long_functions(&excused).is_empty());
    assert!(long_functions("fn short() {\n    x();\n}\nfn decl();\n").is_empty());
}
