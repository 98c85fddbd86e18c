//! Config paths, `.claude.json` handling and settings loading.

use super::*;
use std::fs;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sim-claude-config-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn cwd_encoding_matches_the_real_cli() {
    assert_eq!(encode_cwd("/tmp/probework/proj"), "-tmp-probework-proj");
    assert_eq!(encode_cwd("/home/u/my.proj_x"), "-home-u-my-proj-x");
    assert_eq!(encode_cwd("/a/é/🙂"), "-a-----"); // é is one unit, 🙂 two
    assert_eq!(
        transcript_path(Path::new("/c"), Path::new("/tmp/p"), "id"),
        PathBuf::from("/c/projects/-tmp-p/id.jsonl")
    );
}

#[test]
fn onboarding_and_trust_flags() {
    let v: Value = serde_json::from_str(
        r#"{"hasCompletedOnboarding":true,"projects":{"/w/p":{"hasTrustDialogAccepted":true}}}"#,
    )
    .unwrap();
    assert!(onboarded(&v));
    assert!(trusted(&v, Path::new("/w/p")));
    assert!(!trusted(&v, Path::new("/w/q")));
    assert!(!onboarded(&serde_json::json!({})));
}

#[test]
fn accepting_trust_keeps_other_keys() {
    let d = tmp("trust");
    let f = d.join(".claude.json");
    fs::write(&f, r#"{"hasCompletedOnboarding":true,"theme":"dark","projects":{"/w/p":{"allowedTools":["x"]},"/other":{"a":1}}}"#).unwrap();
    accept_trust(&f, Path::new("/w/p")).unwrap();
    let v = read_claude_json(&f).unwrap();
    assert!(trusted(&v, Path::new("/w/p")));
    assert_eq!(v["theme"], "dark");
    assert_eq!(v["projects"]["/w/p"]["allowedTools"][0], "x");
    assert_eq!(v["projects"]["/other"]["a"], 1);
    let leftovers: Vec<_> = fs::read_dir(&d)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name() != ".claude.json")
        .collect();
    assert!(leftovers.is_empty(), "temp file left behind");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn settings_come_from_a_path_or_inline_json_and_merge_with_user_settings() {
    let d = tmp("settings");
    fs::write(d.join("settings.json"), r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"user"}]}]},"permissions":{"defaultMode":"plan"}}"#).unwrap();
    let inline = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"arg"}]}]}}"#;
    let s = load_settings(&d, Some(inline)).unwrap();
    assert_eq!(s.hooks.commands("Stop"), vec!["user", "arg"]);
    assert_eq!(s.default_mode.as_deref(), Some("plan"));

    let file = d.join("extra.json");
    fs::write(&file, r#"{"permissions":{"defaultMode":"acceptEdits"}}"#).unwrap();
    let s = load_settings(&d, Some(file.to_str().unwrap())).unwrap();
    assert_eq!(s.default_mode.as_deref(), Some("acceptEdits"));

    assert!(
        load_settings(&d, Some("{nope"))
            .unwrap_err()
            .contains("--settings: invalid JSON")
    );
    assert!(
        load_settings(&d, Some("/no/such/file.json"))
            .unwrap_err()
            .contains("cannot read")
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn git_branch_reads_head() {
    let d = tmp("git");
    assert_eq!(git_branch(&d.join("sub")), "");
    fs::create_dir_all(d.join(".git")).unwrap();
    fs::create_dir_all(d.join("sub")).unwrap();
    fs::write(d.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    assert_eq!(git_branch(&d.join("sub")), "main");
    let _ = fs::remove_dir_all(&d);
}
