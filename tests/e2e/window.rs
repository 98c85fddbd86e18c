//! The supported window of CLI releases: umbel learns a CLI's release once per binary (its npm
//! `package.json`, else `--version`), refuses one older than the window before anything starts,
//! and says where each stands (`doctor`, `releases`).

use crate::harness::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// An executable script at `path` that counts its `--version` calls in `<path>.calls`, answers
/// them with `version_line` (when given), and otherwise runs the fake `fake`.
fn wrapper(path: &Path, fake_name: &str, version_line: Option<&str>) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let calls = format!("{}.calls", path.display());
    let answer = match version_line {
        Some(line) => format!("echo '{line}'; exit 0"),
        None => String::new(),
    };
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo x >> '{calls}'; {answer}\nfi\nexec '{}' \"$@\"\n",
        fake(fake_name).display()
    );
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}

/// How often the wrapper at `path` was asked for its version.
fn version_calls(path: &Path) -> usize {
    std::fs::read_to_string(format!("{}.calls", path.display()))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// A codex installed by npm at `release`: `node_modules/@openai/codex/bin/codex.js` under the
/// sandbox root, its package.json saying so; the launcher runs the fake.
fn npm_codex(sb: &Sandbox, release: &str) -> PathBuf {
    let package = sb.root.join("npm/node_modules/@openai/codex");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(
        package.join("package.json"),
        format!(
            r#"{{"name":"@openai/codex","version":"{release}","bin":{{"codex":"bin/codex.js"}}}}"#
        ),
    )
    .unwrap();
    wrapper(&package.join("bin/codex.js"), "fake-codex", None)
}

#[test]
fn a_release_older_than_the_window_is_refused_before_anything_starts() {
    let mut sb = Sandbox::new();
    let bin = npm_codex(&sb, "0.140.0");
    sb.var("UMBEL_CODEX_BIN", &bin.to_string_lossy());
    let said = "codex 0.140.0 is older than the oldest release umbel supports (0.149.0): upgrade with `npm i -g @openai/codex`";
    sb.cmd("spawn --name old --provider codex")
        .stderr_has(said)
        .status(1);
    sb.umbel(["-p", "hi", "--provider", "codex"])
        .stderr_has(said)
        .status(1);
    let listed = sb.cmd("ls --json").success().json();
    assert_eq!(listed, serde_json::json!([]), "nothing was left behind");
    assert!(!sb.state.join("sessions/old").exists());
    let doctor = sb.cmd("doctor").run();
    let line = doctor
        .stdout()
        .lines()
        .find(|l| l.contains(" codex "))
        .unwrap_or_default()
        .to_string();
    assert!(line.starts_with("warn"), "{line}");
    assert!(
        line.contains("0.140.0 is older than the oldest release umbel supports (0.149.0)")
            && line.contains("upgrade with `npm i -g @openai/codex`"),
        "{line}"
    );
    let error = sb
        .cmd("spawn --name old --provider codex --json")
        .status(1)
        .json();
    assert_eq!(error["error"]["code"], "unsupported_release");
    assert_eq!(
        version_calls(&bin),
        0,
        "the package said it: no --version run"
    );
}

#[test]
fn a_release_inside_the_window_starts_and_is_recorded() {
    let mut sb = Sandbox::new();
    let bin = npm_codex(&sb, "0.161.0");
    sb.var("UMBEL_CODEX_BIN", &bin.to_string_lossy());
    sb.spawn("w1", &["--provider", "codex"]);
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(sb.state.join("sessions/w1/meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["cliVersion"], "0.161.0");
    assert_eq!(version_calls(&bin), 0);
}

#[test]
fn a_clis_version_is_asked_once_per_binary_not_per_spawn() {
    let mut sb = Sandbox::new();
    let bin = wrapper(&sb.root.join("bin/claude"), "fake-claude", None);
    sb.var("UMBEL_CLAUDE_BIN", &bin.to_string_lossy());
    sb.spawn("w1", &[]);
    sb.spawn("w2", &[]);
    sb.cmd("doctor").run();
    assert_eq!(version_calls(&bin), 1, "learnt once, then cached");
    // Reinstalled: a new file (even one alike) is asked again.
    let text = std::fs::read(&bin).unwrap();
    std::fs::remove_file(&bin).unwrap();
    std::fs::write(&bin, text).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    sb.spawn("w3", &[]);
    assert_eq!(version_calls(&bin), 2);
}

#[test]
fn a_release_newer_than_tested_is_tried_and_doctor_says_so() {
    let mut sb = Sandbox::new();
    let bin = wrapper(&sb.root.join("bin/gemini"), "fake-gemini", Some("9.0.0"));
    sb.var("UMBEL_GEMINI_BIN", &bin.to_string_lossy());
    sb.spawn("g", &["--provider", "gemini"]);
    let doctor = sb.cmd("doctor").run();
    let line = doctor
        .stdout()
        .lines()
        .find(|l| l.contains(" gemini "))
        .unwrap_or_default()
        .to_string();
    assert!(
        line.starts_with("warn")
            && line.contains("9.0.0 is newer than the newest release umbel was tested on"),
        "{line}"
    );
}

#[test]
fn releases_lists_each_clis_window() {
    let sb = Sandbox::new();
    let text = sb.cmd("releases").success();
    let claude = text
        .stdout()
        .lines()
        .find(|l| l.starts_with("claude"))
        .unwrap_or_default()
        .to_string();
    assert!(claude.contains("2.1.246 to 2.1.332"), "{claude}");
    let json = sb.cmd("releases --json").success().json();
    let codex = &json[1];
    assert_eq!(codex["provider"], "codex");
    assert_eq!(codex["oldest"], "0.149.0");
    assert_eq!(codex["upgrade"], "npm i -g @openai/codex");
    assert!(codex["tested"].as_array().is_some_and(|t| t.len() >= 3));
}

/// A release just below `oldest` (`1.17.18` → `1.17.17`, `0.23.0` → `0.22.99`).
fn just_older(oldest: &str) -> String {
    let parts: Vec<u32> = oldest.split('.').filter_map(|p| p.parse().ok()).collect();
    match parts[..] {
        [major, minor, patch] if patch > 0 => format!("{major}.{minor}.{}", patch - 1),
        [major, minor, _] if minor > 0 => format!("{major}.{}.99", minor - 1),
        [major, _, _] => format!("{}.99.99", major - 1),
        _ => panic!("`{oldest}` is not major.minor.patch"),
    }
}

/// Every CLI's window holds: it is proven on several releases, and each one's npm package at the
/// release just below its oldest is refused by `spawn` and `-p` before anything starts, with that
/// CLI's upgrade command.
#[test]
fn every_cli_older_than_its_window_is_refused() {
    let windows = Sandbox::new().cmd("releases --json").success().json();
    let windows = windows.as_array().expect("a list of windows");
    for provider in ["claude", "codex", "gemini", "qwen", "opencode"] {
        assert!(
            windows.iter().any(|w| w["provider"] == provider),
            "{provider} has a window"
        );
    }
    for window in windows {
        let provider = window["provider"].as_str().expect("provider");
        let package = window["package"].as_str().expect("package");
        let oldest = window["oldest"].as_str().expect("oldest");
        let old = just_older(oldest);
        let tested = window["tested"].as_array().map_or(0, Vec::len);
        assert!(
            tested >= 2,
            "{provider} is proven on several releases: {window}"
        );
        let mut sb = Sandbox::new();
        let dir = sb.root.join("npm/node_modules").join(package);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("package.json"),
            format!(r#"{{"name":"{package}","version":"{old}"}}"#),
        )
        .unwrap();
        // Never started: a start would say so.
        let bin = dir.join("bin").join(provider);
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::write(&bin, "#!/bin/sh\necho started >&2\nexit 9\n").unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        sb.var(
            &format!("UMBEL_{}_BIN", provider.to_uppercase()),
            &bin.to_string_lossy(),
        );
        let said = format!(
            "{provider} {old} is older than the oldest release umbel supports ({oldest}): upgrade with `npm i -g {package}`"
        );
        sb.umbel(["spawn", "--name", "old", "--provider", provider])
            .stderr_has(said.clone())
            .status(1);
        sb.umbel(["-p", "hi", "--provider", provider])
            .stderr_has(said)
            .status(1);
        assert!(!sb.state.join("sessions/old").exists(), "{provider}");
    }
}
