//! Codex provider tests on the real 0.171.0 screens, hook payloads and rollout.

use super::*;
use crate::core::test_data::{
    CODEX_ROLLOUT as ROLLOUT, assert_hook_classes, assert_pending, assert_screens, assert_turn,
    fixture, last_turn_upto, launch_input,
};

fn turn_upto(n: usize) -> TranscriptTurn {
    last_turn_upto(&Codex, ROLLOUT, n)
}

#[test]
fn a_tool_turn_answers_with_the_final_message() {
    let turn = turn_upto(29);
    assert_turn(
        &turn,
        "Please RUN_TOOL now",
        Some("The command printed hello-from-tool. FINAL_AFTER_TOOL"),
    );
    // Before task_complete: not ended yet.
    assert!(!turn_upto(28).ended);
}

#[test]
fn usage_limit_and_api_error_turns_are_failures_with_reasons() {
    let limit = turn_upto(51);
    assert!(limit.ended && limit.is_error);
    assert_eq!(limit.error_reason, Some("usage-limit"));
    assert!(limit.answer.unwrap().contains("try again at 8:57 PM"));
    let bad = turn_upto(57);
    assert_eq!(bad.error_reason, Some("api-error"));
    assert!(bad.answer.unwrap().contains("fake bad request"));
}

#[test]
fn hook_payloads_classify() {
    let hooks = assert_hook_classes(
        &Codex,
        fixture!("codex/codex-0.171.0-hook-payloads.jsonl"),
        &[
            ("UserPromptSubmit", EventClass::Submitted),
            ("Stop", EventClass::TurnEnded),
            (
                "Interrupt",
                EventClass::TurnFailed {
                    reason: "interrupted",
                },
            ),
        ],
    );
    for (_, _, class) in hooks
        .iter()
        .filter(|(event, ..)| event == "PermissionRequest")
    {
        assert!(matches!(
            class,
            EventClass::NeedsInput {
                reason: "permission",
                tool: Some(_)
            }
        ));
    }
}

#[test]
fn startup_screens() {
    let review = fixture!("codex/codex-0.171.0-hooks-need-review.txt");
    let moved = review
        .replace("› 1. Review hooks", "  1. Review hooks")
        .replace("  2. Trust all and continue", "› 2. Trust all and continue");
    let dialog = |what, keys| StartupScreen::Dialog { what, keys };
    assert_screens(
        &Codex,
        &[
            (
                fixture!("codex/codex-0.171.0-trust-dialog.txt"),
                dialog("folder trust", &["Enter"]),
            ),
            (review, dialog("hook review", &["Down"])),
            (&moved, dialog("hook review", &["Enter"])),
            // Releases before 0.156.0 ask under a "Welcome to Codex" banner: no sign-in screen.
            (
                fixture!("codex/0.149.0/codex-0.149.0-trust-dialog.txt"),
                dialog("folder trust", &["Enter"]),
            ),
            (
                fixture!("codex/0.155.1/codex-0.155.1-trust-dialog.txt"),
                dialog("folder trust", &["Enter"]),
            ),
            (
                fixture!("codex/codex-0.171.0-idle-prompt.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("codex/codex-0.171.0-turn-complete.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("codex/codex-0.171.0-busy-working.txt"),
                StartupScreen::Other,
            ),
        ],
    );
    assert!(matches!(
        Codex.startup_screen(fixture!("codex/codex-0.171.0-startup-login.txt")),
        StartupScreen::SignIn(_)
    ));
}

#[test]
fn pending_input_is_the_composer_holding_text() {
    assert_pending(
        &Codex,
        &[
            (fixture!("codex/codex-0.171.0-paste-30-lines.txt"), true),
            (fixture!("codex/codex-0.171.0-idle-prompt.txt"), false),
            (fixture!("codex/codex-0.171.0-busy-working.txt"), false),
        ],
    );
}

/// `deny` launches the TUI with `codex exec`'s own defaults: approval `never` (an escalation is
/// rejected and the turn goes on) in a read-only sandbox.
#[test]
fn deny_is_exec_s_approval_never_in_a_read_only_sandbox() {
    let args = |on_permission| {
        Codex
            .launch(&LaunchInput {
                on_permission,
                ..launch_input("/s/sessions/c1")
            })
            .unwrap()
            .args
    };
    let deny = args(OnPermission::Deny);
    assert_eq!(
        deny[2..],
        ["--ask-for-approval", "never", "--sandbox", "read-only"]
    );
    assert_eq!(
        args(OnPermission::Stop).len(),
        2,
        "stop keeps codex's own approvals"
    );
}

/// `--no-daemon` appeared in a release inside the window: an older codex refuses it (clap, exit
/// 2), so it is passed only to the releases that have it — and to one whose version is unknown.
#[test]
fn no_daemon_is_passed_only_to_releases_that_have_it() {
    let args = |release: Option<&str>| {
        Codex
            .launch(&LaunchInput {
                release: release.and_then(Version::find),
                ..launch_input("/s/sessions/c1")
            })
            .unwrap()
            .args
    };
    let has = |release| args(release).iter().any(|a| a == "--no-daemon");
    assert!(!has(Some("codex-cli 0.149.0")));
    assert!(!has(Some("codex-cli 0.155.1")));
    assert!(has(Some("codex-cli 0.156.0")));
    assert!(has(Some("codex-cli 0.171.0")));
    assert!(has(None));
}

#[test]
fn launch_builds_a_private_codex_home() {
    let env = vec![("HOME".to_string(), "/home/u".to_string())];
    let user = vec![(
        PathBuf::from("/home/u/.codex/config.toml"),
        "model = \"gpt-x\"".to_string(),
    )];
    let input = LaunchInput {
        hook_command: "sh '/s/hooks/event.sh' '/s/sessions/c1/events'",
        model: Some("gpt-5"),
        on_permission: OnPermission::Allow,
        env: &env,
        user_files: &user,
        ..launch_input("/s/sessions/c1")
    };
    let spec = Codex.launch(&input).unwrap();
    assert_eq!(
        spec.args,
        [
            "--dangerously-bypass-hook-trust",
            "--no-daemon",
            "-m",
            "gpt-5",
            "--dangerously-bypass-approvals-and-sandbox"
        ]
    );
    assert_eq!(
        spec.env,
        [(
            "CODEX_HOME".to_string(),
            "/s/sessions/c1/codex-home".to_string()
        )]
    );
    let config = &spec
        .files
        .iter()
        .find(|(p, _)| p.ends_with("config.toml"))
        .unwrap()
        .1;
    assert!(config.starts_with("model = \"gpt-x\"\n"), "{config}");
    assert!(
        config.contains("[projects.\"/work/proj\"]\ntrust_level = \"trusted\"\n"),
        "{config}"
    );
    let hooks: Value = serde_json::from_str(&spec.files[0].1).unwrap();
    assert_eq!(
        hooks["hooks"]["Stop"][0]["hooks"][0]["command"],
        "sh '/s/hooks/event.sh' '/s/sessions/c1/events' Stop"
    );
    assert_eq!(
        spec.links,
        [(
            PathBuf::from("/s/sessions/c1/codex-home/auth.json"),
            PathBuf::from("/home/u/.codex/auth.json")
        )]
    );

    // A project the user already trusts is not declared twice (that would be invalid TOML).
    let user = vec![(
        PathBuf::from("/x/config.toml"),
        "[projects.\"/work/proj\"]\ntrust_level = \"trusted\"\n".to_string(),
    )];
    let spec = Codex
        .launch(&LaunchInput {
            user_files: &user,
            ..input
        })
        .unwrap();
    let config = &spec.files[1].1;
    assert_eq!(config.matches("[projects.\"/work/proj\"]").count(), 1);
}

#[test]
fn output_tokens_sum_the_turns_token_count_events() {
    assert_eq!(turn_upto(14).output_tokens, Some(17));
    assert_eq!(turn_upto(29).output_tokens, Some(34), "two model calls");
}

#[test]
fn the_status_line_under_the_composer_says_the_session_is_configured() {
    assert!(Codex.ready_on_screen(fixture!("codex/codex-0.171.0-idle-prompt.txt")));
    assert!(Codex.ready_on_screen(fixture!("codex/codex-0.171.0-turn-complete.txt")));
    // As the real 0.171.0 first draws it (seen by hand, before its session is configured): the
    // composer with only its shortcuts hint under it.
    let early = "  >_ OpenAI Codex (v0.171.0)\n     /tmp/p\n\n› Ask Codex to do anything\n\n  ? for shortcuts";
    assert!(!Codex.ready_on_screen(early));
    // A folder under the home folder, a model without a reasoning mode.
    let home =
        "› Ask Codex to do anything\n\n  gpt-5.1-codex medium · ~/work/app\n  ? for shortcuts";
    assert!(Codex.ready_on_screen(home));
    assert!(Codex.ready_on_screen(&home.replace("gpt-5.1-codex medium", "gpt-4.1")));
    assert!(!Codex.ready_on_screen(fixture!("codex/codex-0.171.0-trust-dialog.txt")));
}

/// A choice no rule knows (here codex's own approval prompt, read without its hook) is a
/// person's to answer, with its question; screens with `›` prompt echoes or a composer holding
/// numbered lines are not choices.
#[test]
fn an_unknown_choice_is_a_person_s_with_its_question() {
    let person = |q: &str| StartupScreen::Person(q.to_string());
    // The cursor on option 2, whose option 1 asks something itself: still the dialog's question.
    let moved = fixture!("codex/codex-0.171.0-approval-prompt-exec.txt")
        .replace("› 1. Yes, proceed (y)", "  1. Yes, proceed? (y)")
        .replace("  2. Yes, and don't", "› 2. Yes, and don't");
    let typed = fixture!("codex/codex-0.171.0-paste-3-lines.txt")
        .replace("› first line", "› 1. first line")
        .replace("  second line", "  2. second line");
    assert_screens(
        &Codex,
        &[
            (
                fixture!("codex/codex-0.171.0-approval-prompt-exec.txt"),
                person("Would you like to run the following command?"),
            ),
            (
                fixture!("codex/codex-0.171.0-approval-prompt-escalate.txt"),
                person("Would you like to run the following command?"),
            ),
            (
                &moved,
                person("Would you like to run the following command?"),
            ),
            (&typed, StartupScreen::Other),
            (
                fixture!("codex/codex-0.171.0-after-approval.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("codex/codex-0.171.0-approve-for-me-denied.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("codex/codex-0.171.0-startup-warning-bubblewrap.txt"),
                StartupScreen::Other,
            ),
            (
                fixture!("codex/codex-0.171.0-idle-never.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("codex/codex-0.171.0-busy-streaming-no-indicator.txt"),
                StartupScreen::Idle,
            ),
        ],
    );
}

#[test]
fn codex_is_signed_in_by_its_auth_file_a_key_or_its_own_model_provider() {
    let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let home = env(&[("HOME", "/h")]);
    let ready = |env: &[(String, String)], files: &[(PathBuf, String)]| {
        matches!(Codex.sign_in(env, files), SignIn::Ready(_))
    };
    let SignIn::Missing { detail, .. } = Codex.sign_in(&home, &[]) else {
        panic!("nothing signs it in")
    };
    assert!(detail.contains("/h/.codex/auth.json"), "{detail}");
    let auth = (PathBuf::from("/h/.codex/auth.json"), "{}".to_string());
    assert!(ready(&home, &[auth]));
    assert!(ready(&env(&[("HOME", "/h"), ("CODEX_API_KEY", "k")]), &[]));
    let custom = (
        PathBuf::from("/h/.codex/config.toml"),
        "model_provider = \"local\"\n".to_string(),
    );
    assert!(ready(&home, &[custom]));
    assert_eq!(
        Codex.sign_in_files(&env(&[("CODEX_HOME", "/c")]))[0],
        PathBuf::from("/c/auth.json")
    );
}

#[test]
fn a_fork_gets_the_parents_rollout_at_the_same_place_in_its_own_codex_home() {
    let rollout = Path::new("/s/par/codex-home/sessions/2026/12/05/rollout-x-t1.jsonl");
    assert_eq!(
        Codex.transcript_copy(rollout, Path::new("/s/par"), Path::new("/s/fk")),
        Some(PathBuf::from(
            "/s/fk/codex-home/sessions/2026/12/05/rollout-x-t1.jsonl"
        ))
    );
    // A rollout outside the parent's own home is found where it is.
    let elsewhere = Path::new("/home/u/.codex/sessions/rollout-x-t1.jsonl");
    assert_eq!(
        Codex.transcript_copy(elsewhere, Path::new("/s/par"), Path::new("/s/fk")),
        None
    );
    assert_eq!(
        Codex.fork_args(&["-m".into(), "m".into()], "t1"),
        Some(vec!["fork".into(), "-m".into(), "m".into(), "t1".into()])
    );
}

/// From 0.156.0 codex holds a prompt submitted while its session is configured ("Waiting for
/// startup", recorded on 0.156.0 and 0.171.0); 0.155.1 lost that Enter. A held prompt is still
/// on the input line, but taken: no second Enter.
#[test]
fn a_prompt_held_while_the_session_is_configured_is_taken() {
    let version = |v: &str| Version::find(v);
    assert!(!Codex.takes_prompt_while_starting(version("0.155.1")));
    assert!(Codex.takes_prompt_while_starting(version("0.156.0")));
    assert!(Codex.takes_prompt_while_starting(version("0.171.0")));
    assert!(
        Codex.takes_prompt_while_starting(None),
        "an unknown release is the newest"
    );
    for held in [
        fixture!("codex/codex-0.171.0-waiting-for-startup.txt"),
        fixture!("codex/0.156.0/codex-0.156.0-waiting-for-startup.txt"),
    ] {
        assert!(Codex.pending_input(held), "{held}");
        assert!(Codex.holds_submitted_prompt(held), "{held}");
        assert!(!Codex.ready_on_screen(held), "{held}");
    }
    for not_held in [
        fixture!("codex/codex-0.171.0-idle-prompt.txt"),
        fixture!("codex/codex-0.171.0-paste-3-lines.txt"),
        fixture!("codex/codex-0.171.0-busy-working.txt"),
    ] {
        assert!(!Codex.holds_submitted_prompt(not_held), "{not_held}");
    }
}
