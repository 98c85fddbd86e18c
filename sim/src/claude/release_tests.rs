//! fake-claude at older releases against their recordings (`tests/data/claude/<version>/`,
//! 120 columns).

use super::*;
use crate::claude::screens::trust_dialog;
use crate::fixtures::release_screen;

fn recorded(version: &str, name: &str) -> Vec<String> {
    release_screen("claude", version, name)
}

fn release(version: &str) -> Release {
    at(Version::parse(version).unwrap())
}

#[test]
fn the_trust_dialog_of_each_release_matches_its_capture() {
    for version in ["2.1.246", "2.1.247", "2.1.248", "2.1.290"] {
        let cwd = match version {
            "2.1.247" | "2.1.248" => format!("/tmp/rec/bis-{version}/proj"),
            _ => format!("/tmp/rec/claude-{version}/proj"),
        };
        let want = recorded(version, "trust-dialog.txt");
        assert_eq!(
            trust_dialog(release(version), 120, &cwd, 0),
            want,
            "{version}"
        );
    }
}

#[test]
fn yes_comes_first_and_numbered_until_2_1_248() {
    let old = trust_dialog(release("2.1.247"), 120, "/p", 1);
    assert!(old.contains(&" ❯ 2. No, exit".to_string()), "{old:#?}");
    assert!(release("2.1.246") != release("2.1.248"));
    assert!(!release("2.1.247").has(Claude::TrustNoFirst));
    assert!(release("2.1.248").has(Claude::TrustNoFirst));
    assert!(current().has(Claude::TrustNoFirst), "the pinned release");
}

#[test]
fn a_taken_yes_is_marked_as_recorded() {
    let want =
        crate::fixtures::repo_screen("claude/2.1.246/claude-2.1.246-trust-dialog-accepted.txt");
    let got = crate::claude::screens::trust_taken(
        release("2.1.246"),
        120,
        "/tmp/rec/claude-2.1.246/proj",
    );
    assert_eq!(got, want);
}

#[test]
fn the_version_line_is_the_recorded_one() {
    let want = recorded("2.1.246", "version.txt");
    assert_eq!(vec![version_line(release("2.1.246"))], want);
    assert_eq!(version_line(at(PINNED)), "2.1.332 (Claude Code)");
}
