//! fake-codex at older releases against their recordings (`tests/data/codex/<version>/`,
//! 120 columns).

use super::*;
use crate::codex::cli::{Usage, parse_for};
use crate::codex::screens::trust_dialog;
use crate::engine::entry::Action;
use crate::fixtures::release_screen;

fn recorded(version: &str, name: &str) -> Vec<String> {
    release_screen("codex", version, name)
}

fn release(version: &str) -> Release {
    at(Version::parse(version).unwrap())
}

fn argv(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn before_0_156_0_no_daemon_is_refused_as_recorded() {
    for version in ["0.149.0", "0.155.1"] {
        let got = parse_for(release(version), &argv(&["--no-daemon"]));
        let Err(Usage(text)) = got else {
            panic!("{version}: {got:?}")
        };
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(
            lines,
            recorded(version, "no-daemon-refused.txt"),
            "{version}"
        );
    }
    let umbel = ["--dangerously-bypass-hook-trust", "--no-daemon"];
    for version in ["0.156.0", "0.171.0"] {
        match parse_for(release(version), &argv(&umbel)) {
            Ok(Action::Run(o)) => assert!(o.no_daemon, "{version}"),
            other => panic!("{version}: {other:?}"),
        }
    }
}

#[test]
fn before_0_156_0_the_trust_dialog_is_the_welcome_screen_as_recorded() {
    for version in ["0.149.0", "0.155.1"] {
        let want = recorded(version, "trust-dialog.txt");
        let from = want
            .iter()
            .position(|l| l.contains("Welcome to Codex"))
            .expect("the recording has the welcome line");
        let cwd = format!("/tmp/rec/codex-{version}/proj");
        let got = trust_dialog(release(version), &cwd, 0, 120);
        assert_eq!(got[1..], want[from..], "{version}");
    }
    let new = trust_dialog(release("0.156.0"), "/p", 0, 120);
    assert!(new.contains(&"› 1. Trust and continue".to_string()));
}

#[test]
fn the_interrupt_hook_runs_from_0_150_0() {
    assert!(!release("0.149.0").has(Codex::InterruptHook));
    assert!(release("0.150.0").has(Codex::InterruptHook));
    assert!(at(PINNED).has(Codex::InterruptHook));
}

#[test]
fn the_version_line_is_the_recorded_one() {
    for version in ["0.149.0", "0.155.1", "0.161.0"] {
        let want = recorded(version, "version.txt");
        assert_eq!(vec![version_line(release(version))], want, "{version}");
    }
}
