//! Claude provider tests on the real 2.1.332 screens, hook payloads and transcripts.

use super::*;
use crate::core::test_data::{
    CLAUDE_SESSION as SESSION1, assert_hook_classes, assert_pending, assert_screens, assert_turn,
    fixture, last_turn_upto, launch_input,
};

fn last_turn_of(text: &str) -> TranscriptTurn {
    let mut lines = text.lines().rev().map(str::to_string);
    Claude.last_turn(&mut lines)
}

/// The last turn of the transcript as it stood right after line `n` (1-based) was written.
fn turn_upto(n: usize) -> TranscriptTurn {
    last_turn_upto(&Claude, SESSION1, n)
}

#[test]
fn a_turn_without_turn_duration_is_not_ended_yet() {
    let turn = turn_upto(24);
    assert!(turn.answer.is_some());
    assert!(!turn.ended);
    // Before the assistant line landed (Stop can fire first), there is no answer yet.
    let turn = turn_upto(23);
    assert_turn(&turn, "Say hello", None);
}

#[test]
fn the_answer_after_a_tool_is_the_final_message_only() {
    let turn = turn_upto(53);
    assert_turn(
        &turn,
        "Please RUN_TOOL again",
        Some("The command printed hello-from-tool. FINAL_AFTER_TOOL"),
    );
    assert!(turn.ended);
    // Mid-tool (text + tool_use written, no result yet): the text so far, not ended.
    let turn = turn_upto(47);
    assert_eq!(turn.answer.as_deref(), Some("I will run a command."));
    assert!(!turn.ended);
}

#[test]
fn a_synthetic_api_error_ends_the_turn_as_an_error() {
    let turn = last_turn_of(SESSION1);
    assert_turn(
        &turn,
        "Trigger RATE429 please",
        Some("API Error: 400 fake bad request for probing"),
    );
    assert!(turn.ended && turn.is_error);
    assert_eq!(turn.error_reason, Some("api-error"));
}

#[test]
fn local_commands_after_clear_are_not_prompts() {
    let turn = last_turn_of(fixture!(
        "claude/claude-2.1.332-transcript-after-clear.jsonl"
    ));
    assert!(
        turn.prompt
            .as_deref()
            .unwrap()
            .starts_with("line 1 of pasted text")
    );
    assert!(
        turn.answer
            .as_deref()
            .unwrap()
            .contains("FINAL_ANSWER_TEXT")
    );
    assert!(turn.ended);
}

#[test]
fn older_2_1_197_connection_error_transcript_parses() {
    let turn = last_turn_of(fixture!(
        "claude/claude-2.1.197-transcript-connection-error.jsonl"
    ));
    assert!(turn.is_error, "{turn:?}");
    assert!(turn.answer.unwrap().contains("Unable to connect"));
}

#[test]
fn reading_stops_at_the_opening_prompt() {
    let mut read = 0;
    let mut lines = SESSION1.lines().rev().map(|l| {
        read += 1;
        l.to_string()
    });
    let turn = Claude.last_turn(&mut lines);
    drop(lines);
    assert!(turn.prompt.is_some());
    assert_eq!(
        read,
        SESSION1.lines().count() - 71,
        "read only the last turn's lines"
    );
}

#[test]
fn hook_payloads_classify_as_the_engine_expects() {
    let hooks = assert_hook_classes(
        &Claude,
        fixture!("claude/claude-2.1.332-hook-payloads.jsonl"),
        &[
            ("SessionStart", EventClass::Started),
            ("UserPromptSubmit", EventClass::Submitted),
            ("Stop", EventClass::TurnEnded),
            (
                "StopFailure",
                EventClass::TurnFailed {
                    reason: "api-error",
                },
            ),
        ],
    );
    for (_, _, class) in hooks
        .iter()
        .filter(|(event, ..)| event == "PermissionRequest")
    {
        match class {
            EventClass::NeedsInput {
                reason: "permission",
                tool: Some(tool),
            } => {
                assert_eq!(tool["name"], "Bash");
                assert!(tool["input"]["command"].is_string());
            }
            other => panic!("PermissionRequest → {other:?}"),
        }
    }
}

#[test]
fn startup_screens_from_the_real_cli() {
    let trust = fixture!("claude/claude-2.1.332-trust-dialog.txt");
    let moved = trust
        .replace("❯ No, exit", "  No, exit")
        .replace("  Yes, I trust this folder", "❯ Yes, I trust this folder");
    let old_trust = fixture!("claude/2.1.246/claude-2.1.246-trust-dialog.txt");
    let old_moved = old_trust
        .replace("❯ 1. Yes", "  1. Yes")
        .replace("  2. No, exit", "❯ 2. No, exit");
    let trust_dialog = |keys| StartupScreen::Dialog {
        what: "workspace trust",
        keys,
    };
    let api_key = StartupScreen::Consent {
        what: "custom API key",
        env: "ANTHROPIC_API_KEY",
        keys: &["Up"],
    };
    assert_screens(
        &Claude,
        &[
            (trust, trust_dialog(&["Down"])),
            (
                fixture!("claude/claude-2.1.332-trust-dialog-with-user-hooks.txt"),
                trust_dialog(&["Down"]),
            ),
            (&moved, trust_dialog(&["Enter"])),
            // The oldest supported release numbers its options, "Yes" first and highlighted.
            (old_trust, trust_dialog(&["Enter"])),
            (&old_moved, trust_dialog(&["Up"])),
            // Taken (`✔`) and still drawn while the CLI goes on: pressing again would answer
            // whatever comes next.
            (
                fixture!("claude/2.1.246/claude-2.1.246-trust-dialog-accepted.txt"),
                StartupScreen::Other,
            ),
            (
                fixture!("claude/claude-2.1.332-api-key-approval.txt"),
                api_key.clone(),
            ),
            (
                fixture!("claude/claude-2.1.332-api-key-approval-env.txt"),
                api_key,
            ),
            (
                fixture!("claude/claude-2.1.332-idle-prompt-auto-mode.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("claude/claude-2.1.332-turn-complete.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("claude/claude-2.1.332-busy-streaming.txt"),
                StartupScreen::Other,
            ),
            // A dialog umbel has no answer for is a person's (hooks report permission prompts
            // first).
            (
                fixture!("claude/claude-2.1.332-permission-prompt-bash.txt"),
                StartupScreen::Person("Bash command".into()),
            ),
            // A crashed CLI's last screen: prompt echoes at column 0 and no input line is no
            // dialog.
            (
                "\n❯ boom\n\n● Response to: boom\nfake-claude: simulated crash (exit status 7)\n",
                StartupScreen::Other,
            ),
        ],
    );
    assert!(matches!(
        Claude.startup_screen(fixture!("claude/claude-2.1.332-onboarding-theme.txt")),
        StartupScreen::SignIn(l) if l.contains("Choose the text style")
    ));
}

/// The dialogs the real claude showed under `--unattended`, an unapproved API key and a user
/// whose settings say `defaultMode: "manual"`, and its refusal to run bypass mode as root.
#[test]
fn mode_and_key_dialogs_from_the_real_cli() {
    let screen = |s: &str| Claude.startup_screen(s);
    let warning = fixture!("claude/claude-2.1.332-bypass-warning.txt");
    assert_eq!(
        screen(warning),
        StartupScreen::Dialog {
            what: "bypass permissions warning",
            keys: &["Down"]
        },
        "the cursor starts on `No, exit`, which is not the trust dialog's"
    );
    let accepted = warning
        .replace("❯ No, exit", "  No, exit")
        .replace("  Yes, I accept", "❯ Yes, I accept");
    assert_eq!(
        screen(&accepted),
        StartupScreen::Dialog {
            what: "bypass permissions warning",
            keys: &["Enter"]
        }
    );
    let yes = fixture!("claude/claude-2.1.332-api-key-approval-env.txt")
        .replace("    Yes", "  ❯ Yes")
        .replace("❯ No (recommended)", "  No (recommended)");
    assert_eq!(
        screen(&yes),
        StartupScreen::Consent {
            what: "custom API key",
            env: "ANTHROPIC_API_KEY",
            keys: &["Enter"]
        }
    );
    assert_eq!(
        screen(fixture!("claude/claude-2.1.332-auto-mode-optin.txt")),
        StartupScreen::Person("Make auto mode your default permission mode?".into()),
        "never answered: Enter would switch the user's default to auto"
    );
    for idle in [
        fixture!("claude/claude-2.1.332-idle-manual-mode.txt"),
        fixture!("claude/claude-2.1.332-idle-bypass-mode.txt"),
    ] {
        assert_eq!(screen(idle), StartupScreen::Idle, "{idle}");
    }
    let screen = fixture!("claude/claude-2.1.332-bypass-root-refused.txt");
    let refusal = Claude
        .refusal(screen, &[])
        .expect("the root refusal is explained");
    assert!(refusal.contains("IS_SANDBOX=1"), "{refusal}");
    assert!(refusal.contains("non-root"), "{refusal}");
    assert_eq!(Claude.refusal(warning, &[]), None);
    // A container's `IS_SANDBOX=yes` is named, with the only value claude takes.
    let yes = [("IS_SANDBOX".to_string(), "yes".to_string())];
    let refusal = Claude.refusal(screen, &yes).expect("explained");
    assert!(
        refusal.contains("IS_SANDBOX is `yes` here, but claude accepts only `IS_SANDBOX=1`"),
        "{refusal}"
    );
}

/// Esc before any answer: claude drops the turn without a record and puts the prompt back.
#[test]
fn a_prompt_put_back_after_esc_is_seen_on_screen() {
    assert!(Claude.prompt_restored(fixture!("claude/claude-2.1.332-after-esc-interrupt.txt")));
    assert!(!Claude.prompt_restored(fixture!("claude/claude-2.1.332-busy-streaming.txt")));
    assert!(!Claude.prompt_restored(fixture!("claude/claude-2.1.332-turn-complete.txt")));
}

/// `--unattended` skips the bypass warning; otherwise the user's own default mode is repeated in
/// umbel's settings (which keeps the auto-mode opt-in closed).
#[test]
fn settings_carry_the_mode_that_keeps_dialogs_closed() {
    let env = vec![("CLAUDE_CONFIG_DIR".to_string(), "/cfg".to_string())];
    let user = vec![(
        PathBuf::from("/cfg/settings.json"),
        r#"{"permissions":{"defaultMode":"manual"},"env":{"X":"1"}}"#.to_string(),
    )];
    assert_eq!(
        Claude.user_files(&env),
        [PathBuf::from("/cfg/settings.json")]
    );
    let settings = |on_permission: OnPermission, user_files: &[(PathBuf, String)]| -> Value {
        let spec = Claude
            .launch(&LaunchInput {
                on_permission,
                cwd: Path::new("/p"),
                env: &env,
                user_files,
                ..launch_input("/s/sessions/w1")
            })
            .unwrap();
        serde_json::from_str(&spec.files[0].1).unwrap()
    };
    let manual = settings(OnPermission::Stop, &user);
    assert_eq!(manual["permissions"]["defaultMode"], "manual");
    assert!(manual.get("env").is_none(), "only the mode is repeated");
    assert!(
        settings(OnPermission::Stop, &[])
            .get("permissions")
            .is_none()
    );
    // `deny` is claude's don't-ask mode: what needs approval is refused and the turn goes on,
    // as `claude -p` does; it wins over the user's own mode.
    let deny = settings(OnPermission::Deny, &user);
    assert_eq!(deny["permissions"]["defaultMode"], "dontAsk");
    assert!(deny.get("skipDangerousModePermissionPrompt").is_none());
    let bypass = settings(OnPermission::Allow, &user);
    assert_eq!(bypass["permissions"]["defaultMode"], "bypassPermissions");
    assert_eq!(bypass["skipDangerousModePermissionPrompt"], true);
}

#[test]
fn unsubmitted_input_on_the_input_line() {
    assert_pending(
        &Claude,
        &[
            (fixture!("claude/claude-2.1.332-paste-30-lines.txt"), true),
            (
                fixture!("claude/claude-2.1.332-paste-1500-chars-one-line.txt"),
                true,
            ),
            (
                fixture!("claude/claude-2.1.332-turn-complete-after-tool.txt"),
                false,
            ),
            (fixture!("claude/claude-2.1.332-busy-streaming.txt"), false),
        ],
    );
}

#[test]
fn launch_puts_hooks_in_a_settings_file_and_predicts_the_transcript() {
    let env = vec![("CLAUDE_CONFIG_DIR".to_string(), "/cfg".to_string())];
    let input = LaunchInput {
        hook_command: "sh '/s/hooks/event.sh' '/s/sessions/w1/events'",
        model: Some("opus"),
        on_permission: OnPermission::Allow,
        cwd: Path::new("/tmp/probework/proj"),
        env: &env,
        ..launch_input("/s/sessions/w1")
    };
    let spec = Claude.launch(&input).unwrap();
    assert_eq!(
        spec.args,
        [
            "--session-id",
            "11111111-2222-4333-8444-555555555555",
            "--settings",
            "/s/sessions/w1/claude-settings.json",
            "--model",
            "opus"
        ]
    );
    assert_eq!(
        spec.transcript_path.unwrap(),
        Path::new("/cfg/projects/-tmp-probework-proj/11111111-2222-4333-8444-555555555555.jsonl")
    );
    let settings: Value = serde_json::from_str(&spec.files[0].1).unwrap();
    assert_eq!(
        settings["hooks"]["Stop"][0]["hooks"][0]["command"],
        "sh '/s/hooks/event.sh' '/s/sessions/w1/events' Stop"
    );
    assert_eq!(settings["permissions"]["defaultMode"], "bypassPermissions");
}

#[test]
fn an_auth_token_drops_the_api_key() {
    let mut env = vec![
        ("ANTHROPIC_API_KEY".to_string(), "k".to_string()),
        ("ANTHROPIC_AUTH_TOKEN".to_string(), "t".to_string()),
    ];
    Claude.reconcile_env(&mut env);
    assert_eq!(env.len(), 1);
    assert_eq!(env[0].0, "ANTHROPIC_AUTH_TOKEN");
}

#[test]
fn output_tokens_sum_each_message_once_across_a_tool_turn() {
    // Lines 43–54: prompt, a tool call (two records of one message, 30 tokens), the tool
    // result, then the answer (12 tokens).
    assert_eq!(turn_upto(54).output_tokens, Some(42));
    assert_eq!(turn_upto(27).output_tokens, Some(12));
    // The prompt is in, no model output yet.
    assert_eq!(turn_upto(43).output_tokens, None);
}

#[test]
fn onboarding_is_the_flag_in_the_state_file_beside_or_in_the_config_dir() {
    assert!(onboarded(
        r#"{"hasCompletedOnboarding":true,"theme":"dark"}"#
    ));
    assert!(!onboarded(r#"{"hasCompletedOnboarding":"yes"}"#));
    assert!(!onboarded(r#"{"theme":"dark"}"#));
    assert!(!onboarded("not json"));
    let home = [("HOME".to_string(), "/h".to_string())];
    assert_eq!(state_file(&home), Some(PathBuf::from("/h/.claude.json")));
    let moved = [
        ("HOME".to_string(), "/h".to_string()),
        ("CLAUDE_CONFIG_DIR".to_string(), "/c".to_string()),
    ];
    assert_eq!(state_file(&moved), Some(PathBuf::from("/c/.claude.json")));
    let file = (PathBuf::from("/h/.claude.json"), "{}".to_string());
    let SignIn::Missing { detail, .. } = Claude.sign_in(&home, &[file]) else {
        panic!("not onboarded")
    };
    assert!(detail.contains("hasCompletedOnboarding"), "{detail}");
    let SignIn::Missing { fix, .. } = Claude.sign_in(&home, &[]) else {
        panic!("no state file")
    };
    assert!(
        fix.contains(r#"echo '{"hasCompletedOnboarding":true}' > /h/.claude.json"#),
        "{fix}"
    );
}
