//! The command line: the contract flags, `exec`, and clap's error wording.

use super::*;
use crate::fixtures;

fn run(list: &[&str]) -> Result<Action, Usage> {
    fixtures::parse(parse, list)
}

fn opts(list: &[&str]) -> Options {
    fixtures::options(parse, list)
}

#[test]
fn the_tui_flags() {
    let o = opts(&[
        "-m",
        "gpt-fake-1",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        "--no-daemon",
        "--no-alt-screen",
        "-C",
        "/tmp",
        "-c",
        "model=\"x\"",
        "--config=a.b=1",
        "Say hello",
    ]);
    assert_eq!(o.model.as_deref(), Some("gpt-fake-1"));
    assert!(o.bypass_approvals && o.bypass_hook_trust && o.no_daemon && !o.exec);
    assert_eq!(o.cd.as_deref(), Some("/tmp"));
    assert_eq!(o.overrides, ["model=\"x\"", "a.b=1"]);
    assert_eq!(o.prompt.as_deref(), Some("Say hello"));
    assert_eq!(opts(&["-mgpt"]).model.as_deref(), Some("gpt"));
    assert_eq!(opts(&["--model=gpt"]).model.as_deref(), Some("gpt"));
}

#[test]
fn exec_and_its_flags() {
    let o = opts(&["exec", "--json", "--skip-git-repo-check", "-m", "m", "hi"]);
    assert!(o.exec && o.json && o.skip_git_repo_check);
    assert_eq!(o.prompt.as_deref(), Some("hi"));
    assert_eq!(opts(&["e", "-"]).prompt.as_deref(), Some("-"));
    assert_eq!(opts(&["exec"]).prompt, None);
    let o = opts(&[
        "--dangerously-bypass-hook-trust",
        "exec",
        "-o",
        "/tmp/x",
        "hi",
    ]);
    assert!(o.exec && o.bypass_hook_trust);
    assert_eq!(o.output_last_message.as_deref(), Some("/tmp/x"));
    assert_eq!(opts(&["--", "exec"]).prompt.as_deref(), Some("exec"));
}

#[test]
fn help_and_version() {
    fixtures::assert_help_and_version(parse, &["--version", "-V"], &["--help"], HELP);
    assert_eq!(run(&["exec", "-h"]).unwrap(), Action::Print(EXEC_HELP));
    assert!(HELP.starts_with("Codex CLI\n"));
    assert!(EXEC_HELP.starts_with("Run Codex non-interactively\n"));
}

#[test]
fn clap_style_errors() {
    let e = run(&["--frobnicate"]).unwrap_err().0;
    assert_eq!(
        e,
        "error: unexpected argument '--frobnicate' found\n\n  tip: to pass '--frobnicate' as a value, use '-- --frobnicate'\n\nUsage: codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]\n\nFor more information, try '--help'."
    );
    let e = run(&["x", "y"]).unwrap_err().0;
    assert!(
        e.starts_with("error: unexpected argument 'y' found\n\nUsage: codex [OPTIONS]"),
        "{e}"
    );
    let e = run(&["-m"]).unwrap_err().0;
    assert_eq!(
        e,
        "error: a value is required for '--model <MODEL>' but none was supplied\n\nFor more information, try '--help'."
    );
    assert!(
        run(&["-m", "--no-daemon"])
            .unwrap_err()
            .0
            .contains("a value is required")
    );
    let e = run(&["exec", "--no-daemon"]).unwrap_err().0;
    assert!(e.contains("Usage: codex exec [OPTIONS] [PROMPT]"), "{e}");
    assert!(run(&["--json"]).is_err(), "--json is an exec flag");
    let e = run(&["-s", "yolo"]).unwrap_err().0;
    assert!(
        e.contains("[possible values: read-only, workspace-write, danger-full-access]"),
        "{e}"
    );
    assert!(
        run(&["--no-daemon=1"])
            .unwrap_err()
            .0
            .contains("unexpected value '1'")
    );
    assert!(run(&["resume"]).unwrap_err().0.contains("not simulated"));
}

#[test]
fn config_overrides() {
    let list = overrides(&["model=\"o3\"".into(), "a.b = raw words".into()]).unwrap();
    assert_eq!(list[0], ("model".into(), serde_json::Value::from("o3")));
    assert_eq!(
        list[1],
        ("a.b".into(), serde_json::Value::from("raw words"))
    );
    assert!(
        overrides(&["nope".into()])
            .unwrap_err()
            .contains("missing '='")
    );
}
