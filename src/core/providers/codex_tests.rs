//! Codex provider tests on the real 0.171.0 screens, hook payloads and rollout.

use super::*;
use crate::core::test_data::{last_turn_upto, provider_data};

macro_rules! data {
    ($file:literal) => {
        provider_data!("codex", $file)
    };
}

const ROLLOUT: &str = data!("codex-0.171.0-rollout-tui-session.jsonl");

fn turn_upto(n: usize) -> TranscriptTurn {
    last_turn_upto(&Codex, ROLLOUT, n)
}

#[test]
fn a_completed_turn_reads_task_complete() {
    let turn = turn_upto(14);
    assert_eq!(
        turn.answer.as_deref(),
        Some("Hello from the fake OpenAI server. FINAL_ANSWER_TEXT")
    );
    assert_eq!(turn.prompt.as_deref(), Some("Say hello"));
    assert!(turn.ended && !turn.is_error);
    assert_eq!(
        turn.turn_id.as_deref(),
        Some("01a23854-3aab-71d3-afa3-8c41997a1282")
    );
}

#[test]
fn a_tool_turn_answers_with_the_final_message() {
    let turn = turn_upto(29);
    assert_eq!(
        turn.answer.as_deref(),
        Some("The command printed hello-from-tool. FINAL_AFTER_TOOL")
    );
    assert_eq!(turn.prompt.as_deref(), Some("Please RUN_TOOL now"));
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
    for line in data!("codex-0.171.0-hook-payloads.jsonl").lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let payload = &record["stdin"];
        let class = Codex.classify(record["event"].as_str().unwrap(), Some(payload));
        match record["event"].as_str().unwrap() {
            "UserPromptSubmit" => assert_eq!(class, EventClass::Submitted),
            "Stop" => {
                assert_eq!(class, EventClass::TurnEnded);
                assert!(Codex.answer_from_payload(payload).is_some());
            }
            "Interrupt" => assert_eq!(
                class,
                EventClass::TurnFailed {
                    reason: "interrupted"
                }
            ),
            "PermissionRequest" => assert!(matches!(
                class,
                EventClass::NeedsInput {
                    reason: "permission",
                    tool: Some(_)
                }
            )),
            _ => {}
        }
    }
}

#[test]
fn startup_screens() {
    let s = |t: &str| Codex.startup_screen(t);
    assert_eq!(
        s(data!("codex-0.171.0-trust-dialog.txt")),
        StartupScreen::Dialog {
            what: "folder trust",
            keys: &["Enter"]
        }
    );
    assert_eq!(
        s(data!("codex-0.171.0-hooks-need-review.txt")),
        StartupScreen::Dialog {
            what: "hook review",
            keys: &["Down"]
        }
    );
    let moved = data!("codex-0.171.0-hooks-need-review.txt")
        .replace("› 1. Review hooks", "  1. Review hooks")
        .replace("  2. Trust all and continue", "› 2. Trust all and continue");
    assert_eq!(
        s(&moved),
        StartupScreen::Dialog {
            what: "hook review",
            keys: &["Enter"]
        }
    );
    assert!(matches!(
        s(data!("codex-0.171.0-startup-login.txt")),
        StartupScreen::SignIn(_)
    ));
    assert_eq!(
        s(data!("codex-0.171.0-idle-prompt.txt")),
        StartupScreen::Idle
    );
    assert_eq!(
        s(data!("codex-0.171.0-turn-complete.txt")),
        StartupScreen::Idle
    );
    assert_eq!(
        s(data!("codex-0.171.0-busy-working.txt")),
        StartupScreen::Other
    );
}

#[test]
fn pending_input_is_the_composer_holding_text() {
    assert!(Codex.pending_input(data!("codex-0.171.0-paste-30-lines.txt")));
    assert!(!Codex.pending_input(data!("codex-0.171.0-idle-prompt.txt")));
    assert!(!Codex.pending_input(data!("codex-0.171.0-busy-working.txt")));
}

/// `deny` launches the TUI with `codex exec`'s own defaults: approval `never` (an escalation is
/// rejected and the turn goes on) in a read-only sandbox.
#[test]
fn deny_is_exec_s_approval_never_in_a_read_only_sandbox() {
    let args = |on_permission| {
        Codex
            .launch(&LaunchInput {
                session_dir: Path::new("/s/sessions/c1"),
                hook_command: "sh e",
                session_id: "ignored",
                model: None,
                on_permission,
                flags: &[],
                cli_args: &[],
                cwd: Path::new("/work/proj"),
                env: &[],
                user_files: &[],
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

#[test]
fn launch_builds_a_private_codex_home() {
    let env = vec![("HOME".to_string(), "/home/u".to_string())];
    let user = vec![(
        PathBuf::from("/home/u/.codex/config.toml"),
        "model = \"gpt-x\"".to_string(),
    )];
    let input = LaunchInput {
        session_dir: Path::new("/s/sessions/c1"),
        hook_command: "sh '/s/hooks/event.sh' '/s/sessions/c1/events'",
        session_id: "ignored",
        model: Some("gpt-5"),
        on_permission: OnPermission::Allow,
        flags: &[],
        cli_args: &[],
        cwd: Path::new("/work/proj"),
        env: &env,
        user_files: &user,
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
    assert!(Codex.ready_on_screen(data!("codex-0.171.0-idle-prompt.txt")));
    assert!(Codex.ready_on_screen(data!("codex-0.171.0-turn-complete.txt")));
    // As the real 0.171.0 first draws it (seen by hand, before its session is configured): the
    // composer with only its shortcuts hint under it.
    let early = "  >_ OpenAI Codex (v0.171.0)\n     /tmp/p\n\n› Ask Codex to do anything\n\n  ? for shortcuts";
    assert!(!Codex.ready_on_screen(early));
    assert!(!Codex.ready_on_screen(data!("codex-0.171.0-trust-dialog.txt")));
}
