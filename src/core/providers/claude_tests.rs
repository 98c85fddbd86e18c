//! Claude provider tests on the real 2.1.332 screens, hook payloads and transcripts.

use super::*;
use crate::core::test_data::provider_data;

macro_rules! data {
    ($file:literal) => {
        provider_data!("claude", $file)
    };
}

const SESSION1: &str = data!("claude-2.1.332-transcript-session1.jsonl");

fn last_turn_of(text: &str) -> TranscriptTurn {
    let mut lines = text.lines().rev().map(str::to_string);
    Claude.last_turn(&mut lines)
}

/// The transcript as it stood right after line `n` (1-based) was written.
fn upto(text: &str, n: usize) -> String {
    text.lines().take(n).collect::<Vec<_>>().join("\n")
}

#[test]
fn reads_a_plain_turn_once_turn_duration_is_written() {
    let turn = last_turn_of(&upto(SESSION1, 27));
    assert_eq!(turn.prompt.as_deref(), Some("Say hello"));
    assert_eq!(
        turn.answer.as_deref(),
        Some("Hello from the fake Anthropic server. FINAL_ANSWER_TEXT")
    );
    assert!(turn.ended && !turn.is_error);
    assert_eq!(
        turn.turn_id.as_deref(),
        Some("6adfe72b-1f27-448d-8e64-e1feafd5f87c"),
        "promptId"
    );
}

#[test]
fn a_turn_without_turn_duration_is_not_ended_yet() {
    let turn = last_turn_of(&upto(SESSION1, 24));
    assert!(turn.answer.is_some());
    assert!(!turn.ended);
    // Before the assistant line landed (Stop can fire first), there is no answer yet.
    let turn = last_turn_of(&upto(SESSION1, 23));
    assert_eq!(turn.prompt.as_deref(), Some("Say hello"));
    assert_eq!(turn.answer, None);
}

#[test]
fn the_answer_after_a_tool_is_the_final_message_only() {
    let turn = last_turn_of(&upto(SESSION1, 53));
    assert_eq!(turn.prompt.as_deref(), Some("Please RUN_TOOL again"));
    assert_eq!(
        turn.answer.as_deref(),
        Some("The command printed hello-from-tool. FINAL_AFTER_TOOL")
    );
    assert!(turn.ended);
    // Mid-tool (text + tool_use written, no result yet): the text so far, not ended.
    let turn = last_turn_of(&upto(SESSION1, 47));
    assert_eq!(turn.answer.as_deref(), Some("I will run a command."));
    assert!(!turn.ended);
}

#[test]
fn a_synthetic_api_error_ends_the_turn_as_an_error() {
    let turn = last_turn_of(SESSION1);
    assert_eq!(turn.prompt.as_deref(), Some("Trigger RATE429 please"));
    assert_eq!(
        turn.answer.as_deref(),
        Some("API Error: 400 fake bad request for probing")
    );
    assert!(turn.ended && turn.is_error);
    assert_eq!(turn.error_reason, Some("api-error"));
}

#[test]
fn local_commands_after_clear_are_not_prompts() {
    let turn = last_turn_of(data!("claude-2.1.332-transcript-after-clear.jsonl"));
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
    let turn = last_turn_of(data!("claude-2.1.197-transcript-connection-error.jsonl"));
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
    for line in data!("claude-2.1.332-hook-payloads.jsonl").lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let event = record["event"].as_str().unwrap();
        let payload = &record["stdin"];
        let class = Claude.classify(event, Some(payload));
        match event {
            "UserPromptSubmit" => assert_eq!(class, EventClass::Submitted),
            "Stop" => {
                assert_eq!(class, EventClass::TurnEnded);
                assert!(Claude.answer_from_payload(payload).is_some());
            }
            "StopFailure" => assert_eq!(
                class,
                EventClass::TurnFailed {
                    reason: "api-error"
                }
            ),
            "PermissionRequest" => match class {
                EventClass::NeedsInput {
                    reason: "permission",
                    tool: Some(tool),
                } => {
                    assert_eq!(tool["name"], "Bash");
                    assert!(tool["input"]["command"].is_string());
                }
                other => panic!("PermissionRequest → {other:?}"),
            },
            "SessionStart" => assert_eq!(class, EventClass::Started),
            _ => {}
        }
    }
}

#[test]
fn startup_screens_from_the_real_cli() {
    let screen = |s: &str| Claude.startup_screen(s);
    assert_eq!(
        screen(data!("claude-2.1.332-trust-dialog.txt")),
        StartupScreen::Dialog {
            what: "workspace trust",
            keys: &["Down"]
        }
    );
    assert_eq!(
        screen(data!("claude-2.1.332-trust-dialog-with-user-hooks.txt")),
        StartupScreen::Dialog {
            what: "workspace trust",
            keys: &["Down"]
        }
    );
    let moved = data!("claude-2.1.332-trust-dialog.txt")
        .replace("❯ No, exit", "  No, exit")
        .replace("  Yes, I trust this folder", "❯ Yes, I trust this folder");
    assert_eq!(
        screen(&moved),
        StartupScreen::Dialog {
            what: "workspace trust",
            keys: &["Enter"]
        }
    );
    assert!(matches!(
        screen(data!("claude-2.1.332-onboarding-theme.txt")),
        StartupScreen::SignIn(l) if l.contains("Choose the text style")
    ));
    let api_key = StartupScreen::Consent {
        what: "custom API key",
        env: "ANTHROPIC_API_KEY",
        keys: &["Up"],
    };
    assert_eq!(
        screen(data!("claude-2.1.332-api-key-approval.txt")),
        api_key
    );
    assert_eq!(
        screen(data!("claude-2.1.332-api-key-approval-env.txt")),
        api_key
    );
    assert_eq!(
        screen(data!("claude-2.1.332-idle-prompt-auto-mode.txt")),
        StartupScreen::Idle
    );
    assert_eq!(
        screen(data!("claude-2.1.332-turn-complete.txt")),
        StartupScreen::Idle
    );
    assert_eq!(
        screen(data!("claude-2.1.332-busy-streaming.txt")),
        StartupScreen::Other
    );
    // A dialog umbel has no answer for is a person's (hooks report permission prompts first).
    assert!(matches!(
        screen(data!("claude-2.1.332-permission-prompt-bash.txt")),
        StartupScreen::Person(q) if q == "Bash command"
    ));
    // A crashed CLI's last screen: prompt echoes at column 0 and no input line is no dialog.
    assert_eq!(
        screen("\n❯ boom\n\n● Response to: boom\nfake-claude: simulated crash (exit status 7)\n"),
        StartupScreen::Other
    );
}

/// The dialogs the real claude showed under `--unattended`, an unapproved API key and a user
/// whose settings say `defaultMode: "manual"`, and its refusal to run bypass mode as root.
#[test]
fn mode_and_key_dialogs_from_the_real_cli() {
    let screen = |s: &str| Claude.startup_screen(s);
    let warning = data!("claude-2.1.332-bypass-warning.txt");
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
    let yes = data!("claude-2.1.332-api-key-approval-env.txt")
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
        screen(data!("claude-2.1.332-auto-mode-optin.txt")),
        StartupScreen::Person("Make auto mode your default permission mode?".into()),
        "never answered: Enter would switch the user's default to auto"
    );
    for idle in [
        data!("claude-2.1.332-idle-manual-mode.txt"),
        data!("claude-2.1.332-idle-bypass-mode.txt"),
    ] {
        assert_eq!(screen(idle), StartupScreen::Idle, "{idle}");
    }
    let refusal = Claude
        .refusal(data!("claude-2.1.332-bypass-root-refused.txt"))
        .expect("the root refusal is explained");
    assert!(refusal.contains("IS_SANDBOX=1"), "{refusal}");
    assert!(refusal.contains("non-root"), "{refusal}");
    assert_eq!(Claude.refusal(warning), None);
}

/// Esc before any answer: claude drops the turn without a record and puts the prompt back.
#[test]
fn a_prompt_put_back_after_esc_is_seen_on_screen() {
    assert!(Claude.prompt_restored(data!("claude-2.1.332-after-esc-interrupt.txt")));
    assert!(!Claude.prompt_restored(data!("claude-2.1.332-busy-streaming.txt")));
    assert!(!Claude.prompt_restored(data!("claude-2.1.332-turn-complete.txt")));
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
                session_dir: Path::new("/s/sessions/w1"),
                hook_command: "sh e",
                session_id: "11111111-2222-4333-8444-555555555555",
                model: None,
                on_permission,
                flags: &[],
                cli_args: &[],
                cwd: Path::new("/p"),
                env: &env,
                user_files,
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
    assert!(Claude.pending_input(data!("claude-2.1.332-paste-30-lines.txt")));
    assert!(Claude.pending_input(data!("claude-2.1.332-paste-1500-chars-one-line.txt")));
    assert!(!Claude.pending_input(data!("claude-2.1.332-turn-complete-after-tool.txt")));
    assert!(!Claude.pending_input(data!("claude-2.1.332-busy-streaming.txt")));
}

#[test]
fn launch_puts_hooks_in_a_settings_file_and_predicts_the_transcript() {
    let env = vec![("CLAUDE_CONFIG_DIR".to_string(), "/cfg".to_string())];
    let input = LaunchInput {
        session_dir: Path::new("/s/sessions/w1"),
        hook_command: "sh '/s/hooks/event.sh' '/s/sessions/w1/events'",
        session_id: "11111111-2222-4333-8444-555555555555",
        model: Some("opus"),
        on_permission: OnPermission::Allow,
        flags: &[],
        cli_args: &[],
        cwd: Path::new("/tmp/probework/proj"),
        env: &env,
        user_files: &[],
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
    assert_eq!(last_turn_of(&upto(SESSION1, 54)).output_tokens, Some(42));
    assert_eq!(last_turn_of(&upto(SESSION1, 27)).output_tokens, Some(12));
    // The prompt is in, no model output yet.
    assert_eq!(last_turn_of(&upto(SESSION1, 43)).output_tokens, None);
}
