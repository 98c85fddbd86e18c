//! What a new user gets for the first things they type: a mistyped verb names the verb they
//! meant, bare `umbel` prints the short help, each with exit 2 and nothing on stdout.

use crate::harness::*;

fn stderr_of(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout {:?}", out.stdout);
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_mistyped_verb_gets_did_you_mean() {
    let sb = Sandbox::new();
    let err = stderr_of(&sb, &["spwan", "w"]);
    assert!(
        err.starts_with("umbel: unknown command 'spwan'; did you mean 'spawn'?\n"),
        "{err}"
    );
    let err = stderr_of(&sb, &["stauts"]);
    assert!(
        err.starts_with("umbel: unknown command 'stauts'; did you mean 'status'?\n"),
        "{err}"
    );
    // A word near no verb lists them, and says a prompt needs -p.
    let err = stderr_of(&sb, &["summarise"]);
    assert!(err.contains("the commands are spawn, send"), "{err}");
    assert!(err.contains("a prompt needs `-p`"), "{err}");
}

#[test]
fn bare_umbel_prints_the_short_help() {
    let sb = Sandbox::new();
    let err = stderr_of(&sb, &[]);
    assert!(err.contains("Usage: umbel <COMMAND>"), "{err}");
    assert!(err.contains("\n  spawn "), "{err}");
    assert!(err.contains("`umbel --help`"), "{err}");
    assert!(
        !err.contains("--startup-timeout"),
        "short, not the full help: {err}"
    );
    assert!(
        !sb.state.join("sessions").exists(),
        "no state root is made for it"
    );
}
