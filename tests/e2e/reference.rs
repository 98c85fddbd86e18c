//! The generated references: the man page renders, and docs/cli.md is what the clap
//! definitions generate today (regenerate with `just docs`).

use crate::harness::*;

#[test]
fn docs_cli_md_is_up_to_date() {
    let sb = Sandbox::new();
    let out = sb.umbel(["man", "--markdown"]).success();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == out.stdout(),
        "docs/cli.md is out of date with the CLI definitions: run `just docs` and commit it"
    );
}

#[test]
fn the_man_page_renders_without_a_state_root() {
    let mut sb = Sandbox::new();
    sb.var("UMBEL_STATE", "/proc/no-state-here");
    let out = sb.umbel(["man"]).success();
    let roff = out.stdout();
    assert!(roff.contains(".TH umbel 1"), "{roff}");
    assert!(roff.contains("doctor"), "the verbs are listed:\n{roff}");

    let dir = sb.root.join("man");
    sb.umbel(["man", "--out-dir", dir.to_str().unwrap()])
        .success();
    for page in ["umbel.1", "umbel-spawn.1", "umbel-wait.1", "umbel-doctor.1"] {
        assert!(dir.join(page).exists(), "{page} missing");
    }
}

/// docs/mcp.md lists every error code `Error::code()` can give (read from its source: the
/// `(code, exit, hint)` table in hints.rs).
#[test]
fn the_mcp_docs_list_every_error_code() {
    let root = env!("CARGO_MANIFEST_DIR");
    let source = std::fs::read_to_string(format!("{root}/src/core/hints.rs")).expect("hints.rs");
    let docs = std::fs::read_to_string(format!("{root}/docs/mcp.md")).expect("mcp.md");
    let body = &source[source.find("fn row(").expect("the error table")..];
    let body = &body[..body.find("\n    }\n").expect("end of row()")];
    let codes: Vec<&str> = body
        .lines()
        .filter_map(|l| l.split("=> (\"").nth(1)?.split('"').next())
        .collect();
    assert!(codes.len() > 10, "{codes:?}");
    for code in codes {
        assert!(
            docs.contains(&format!("`{code}`")),
            "docs/mcp.md lacks `{code}`"
        );
    }
}

/// The docs' blocks marked `<!-- just try --check -->` (README's print mode, getting-started's
/// walkthrough: -p on each provider, spawn/send/wait/read, ls, top --once, run
/// examples/review.yaml) run verbatim in `just try`'s sandbox on the fakes: a doc command that
/// breaks fails here.
#[test]
fn the_docs_commands_run_verbatim_in_just_try_on_the_fakes() {
    let top = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
    let out = std::process::Command::new("bash")
        .arg(top.join("scripts/try.sh"))
        .arg("--check")
        .env_clear()
        .env("PATH", path)
        .env("LANG", "C.UTF-8")
        .env("UMBEL_TRY_NO_BUILD", "1")
        .current_dir(top)
        .output()
        .expect("bash runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "just try --check failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("try --check: all 2 blocks ran"), "{stdout}");
    assert!(
        stdout.contains("Response to: Write a haiku about tmux"),
        "{stdout}"
    );
}
