//! The worker's codex config.toml on hostile user files: each result must parse, trust the
//! working directory exactly once and keep every comment the user wrote.

use super::*;
use std::path::Path;

const FILE: &str = "/home/u/.codex/config.toml";
const CWD: &str = "/work/proj";

fn edit(user: &str) -> String {
    worker_config(Some((Path::new(FILE), user)), Path::new(CWD)).unwrap()
}

/// Parses `out` and returns the project's trust level.
fn trust(out: &str) -> String {
    let doc: toml_edit::DocumentMut = out.parse().unwrap_or_else(|e| panic!("{e}\n{out}"));
    doc["projects"][CWD]["trust_level"]
        .as_str()
        .unwrap_or_else(|| panic!("no trust_level:\n{out}"))
        .to_string()
}

/// `user` edited, its project trusted, and parsed again.
fn trusted(user: &str) -> (String, toml_edit::DocumentMut) {
    let out = edit(user);
    assert_eq!(trust(&out), "trusted");
    let doc = out.parse().unwrap();
    (out, doc)
}

fn assert_keeps(out: &str, texts: &[&str]) {
    for text in texts {
        assert!(out.contains(text), "lost {text:?}:\n{out}");
    }
}

#[test]
fn without_a_user_file_only_the_trust_is_written() {
    let out = worker_config(None, Path::new(CWD)).unwrap();
    assert_eq!(
        out,
        "[projects.\"/work/proj\"]\ntrust_level = \"trusted\"\n"
    );
}

#[test]
fn single_quoted_keys_are_the_same_table_not_a_second_one() {
    let user =
        "'model' = 'gpt-x' # mine\n\n[projects.'/work/proj']\ntrust_level = 'untrusted' # no\n";
    let out = edit(user);
    assert_eq!(trust(&out), "trusted");
    assert_eq!(out.matches("[projects.").count(), 1, "{out}");
    assert_keeps(
        &out,
        &[
            "'model' = 'gpt-x' # mine",
            "[projects.'/work/proj']",
            "\"trusted\" # no\n",
        ],
    );
}

#[test]
fn an_inline_projects_table_gets_the_project_inline() {
    let user = "# projects\nprojects = { \"/other\" = { trust_level = \"trusted\" } } # inline\n";
    let (out, doc) = trusted(user);
    assert_eq!(
        doc["projects"]["/other"]["trust_level"].as_str(),
        Some("trusted")
    );
    assert!(
        !out.contains("[projects"),
        "no table header after an inline table:\n{out}"
    );
    assert_keeps(&out, &["# projects\n", "# inline"]);
}

#[test]
fn dotted_project_keys_stay_dotted() {
    let user = "model = \"m\"\nprojects.\"/other\".trust_level = \"trusted\"\n[tui]\nx = 1\n";
    let (out, doc) = trusted(user);
    assert_eq!(doc["tui"]["x"].as_integer(), Some(1));
    assert!(!out.contains("[projects"), "{out}");
}

#[test]
fn a_commented_header_and_a_trailing_comment_are_kept() {
    let user = "[projects.\"/work/proj\"] # my project\ntrust_level = \"trusted\"\n# the end";
    let out = edit(user);
    assert_eq!(trust(&out), "trusted");
    assert_eq!(out.matches("[projects.").count(), 1, "{out}");
    assert_keeps(&out, &["# my project", "# the end"]);

    let out = edit("model = \"gpt-x\" # last line, no newline");
    assert_eq!(trust(&out), "trusted");
    assert_keeps(&out, &["model = \"gpt-x\" # last line, no newline"]);
}

#[test]
fn the_users_hooks_tables_are_kept() {
    let user = "[hooks.state.\"/home/u/.codex/hooks.json:stop:0:0\"]\n\
                trusted_hash = \"sha256:ab\" # trusted by /hooks\n\n\
                [[hooks.Stop]]\nhooks = [{ type = \"command\", command = \"notify-send done\" }]\n";
    let (out, doc) = trusted(user);
    assert_eq!(
        doc["hooks"]["state"]["/home/u/.codex/hooks.json:stop:0:0"]["trusted_hash"].as_str(),
        Some("sha256:ab")
    );
    assert_keeps(&out, &["# trusted by /hooks", "notify-send done"]);
}

#[test]
fn crlf_stays_crlf() {
    let out = edit("# c\r\nmodel = \"gpt-x\"\r\n[tui]\r\nx = 1\r\n");
    assert_eq!(trust(&out), "trusted");
    assert!(!out.replace("\r\n", "").contains('\n'), "{out:?}");
    assert_keeps(&out, &["# c\r\n", "model = \"gpt-x\"\r\n"]);
}

#[test]
fn a_byte_order_mark_is_dropped() {
    let out = edit("\u{feff}model = \"gpt-x\" # bom\n");
    assert_eq!(trust(&out), "trusted");
    assert!(out.starts_with("model = \"gpt-x\" # bom\n"), "{out:?}");
}

#[test]
fn an_invalid_file_is_a_typed_error_naming_file_line_and_column() {
    let err = worker_config(
        Some((
            Path::new(FILE),
            "model = \"x\"\n[projects\ntrust_level = 1\n",
        )),
        Path::new(CWD),
    )
    .unwrap_err();
    let Error::UserConfig {
        file, line, column, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!((file.as_path(), *line, *column), (Path::new(FILE), 2, 10));
    assert!(
        err.to_string().starts_with(&format!("{FILE}:2:10: ")),
        "{err}"
    );
    assert!(err.to_string().contains("fix it"), "{err}");
    assert_eq!(err.code(), "user_config");
}

#[test]
fn projects_that_is_not_a_table_is_refused_where_it_is() {
    let err = worker_config(
        Some((Path::new(FILE), "a = 1\nprojects = 5\n")),
        Path::new(CWD),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{FILE}:2:12: `projects` must be a table")),
        "{err}"
    );

    let user = "[projects]\n\"/work/proj\" = \"trusted\"\n";
    let err = worker_config(Some((Path::new(FILE), user)), Path::new(CWD)).unwrap_err();
    assert!(err.to_string().starts_with(&format!("{FILE}:2:")), "{err}");
}

#[test]
fn hooks_turned_off_by_the_user_are_turned_back_on() {
    let out = edit("[features]\nhooks = false # I do not want hooks\ncodex_hooks = false\nx = 1\n");
    assert_keeps(&out, &["hooks = true # I do not want hooks\n"]);
    let doc: toml_edit::DocumentMut = out.parse().unwrap();
    assert_eq!(doc["features"]["hooks"].as_bool(), Some(true), "{out}");
    assert_eq!(
        doc["features"]["codex_hooks"].as_bool(),
        Some(true),
        "{out}"
    );
    assert_eq!(doc["features"]["x"].as_integer(), Some(1));

    let out = edit("features = { hooks = false }\n");
    assert_eq!(trust(&out), "trusted");
    assert!(out.contains("features = { hooks = true }"), "{out}");

    let out = edit("[features]\nx = 1\n");
    assert!(
        !out.contains("hooks"),
        "absent switches stay absent:\n{out}"
    );
}
