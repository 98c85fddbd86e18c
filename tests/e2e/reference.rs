//! The generated references: the man page renders, and docs/cli.md is what the clap
//! definitions generate today (regenerate with `just docs`).

use crate::harness::*;

#[test]
fn docs_cli_md_is_up_to_date() {
    let sb = Sandbox::new();
    let out = sb.run(&["man", "--markdown"]);
    assert_success(&out, "man --markdown");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == stdout(&out),
        "docs/cli.md is out of date with the CLI definitions: run `just docs` and commit it"
    );
}

#[test]
fn the_man_page_renders_without_a_state_root() {
    let mut sb = Sandbox::new();
    sb.var("UMBEL_STATE", "/proc/no-state-here");
    let out = sb.run(&["man"]);
    assert_success(&out, "man");
    let roff = stdout(&out);
    assert!(roff.contains(".TH umbel 1"), "{roff}");
    assert!(roff.contains("doctor"), "the verbs are listed:\n{roff}");

    let dir = sb.root.join("man");
    assert_success(
        &sb.run(&["man", "--out-dir", dir.to_str().unwrap()]),
        "man --out-dir",
    );
    for page in ["umbel.1", "umbel-spawn.1", "umbel-wait.1", "umbel-doctor.1"] {
        assert!(dir.join(page).exists(), "{page} missing");
    }
}
