//! Qwen provider tests on the real 0.24.4 screens, hook payloads and chat record.

use super::*;
use crate::core::test_data::{
    QWEN_CHAT as CHAT, assert_hook_classes, assert_screens, fixture, last_turn_upto, launch_input,
};

fn turn_upto(n: usize) -> TranscriptTurn {
    last_turn_upto(&Qwen, CHAT, n)
}

#[test]
fn turns_fold_from_the_chat_record() {
    assert!(!turn_upto(1).ended, "prompt written, no answer yet");
    let plain = turn_upto(5);
    assert_eq!(plain.prompt.as_deref(), Some("run the tool please"));
    assert_eq!(
        plain.answer.as_deref(),
        Some("Response to: run the tool please")
    );
    assert_eq!(plain.output_tokens, Some(17));
    let mid = turn_upto(12);
    assert_eq!(
        mid.answer, None,
        "a tool call and its result are not the answer"
    );
    assert_eq!(turn_upto(14).answer.as_deref(), Some("It printed hi."));
    assert_eq!(
        turn_upto(14).output_tokens,
        Some(34),
        "both responses of the turn"
    );
}

#[test]
fn an_api_error_ends_the_turn_as_a_failure() {
    let error = turn_upto(27);
    assert_eq!(error.prompt.as_deref(), Some("a bad one"));
    assert!(error.ended && error.is_error);
    assert_eq!(error.error_reason, Some("api-error"));
    assert_eq!(
        error.answer.as_deref(),
        Some("[API Error: 400 nope bad request]")
    );
}

#[test]
fn tool_actions_settle_by_their_results() {
    let records: Vec<Value> = CHAT
        .lines()
        .take(14)
        .skip(5)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let actions = Qwen.turn_actions(&records);
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].tool, "run_shell_command");
    assert_eq!(actions[0].status, tool_action::ActionStatus::Ok);
    let pending = Qwen.turn_actions(&records[..5]);
    assert_eq!(pending[0].status, tool_action::ActionStatus::Pending);
}

#[test]
fn hook_payloads_classify() {
    let hooks = assert_hook_classes(
        &Qwen,
        fixture!("qwen/qwen-0.24.4-hook-payloads.jsonl"),
        &[
            ("SessionStart", EventClass::Started),
            ("Stop", EventClass::TurnEnded),
            (
                "StopFailure",
                EventClass::TurnFailed {
                    reason: "api-error",
                },
            ),
            ("PreToolUse", EventClass::Progress),
            ("PostToolUse", EventClass::Progress),
        ],
    );
    let class = |name: &str, pick: &dyn Fn(&Value) -> bool| {
        hooks
            .iter()
            .find(|(event, payload, _)| event == name && pick(payload))
            .map(|(_, _, class)| class.clone())
            .unwrap_or_else(|| panic!("no {name} recorded"))
    };
    // The model's request after a tool's result fires UserPromptSubmit with an empty prompt.
    assert_eq!(
        class("UserPromptSubmit", &|p| p["prompt"]
            == "run the tool please"),
        EventClass::Submitted
    );
    assert_eq!(
        class("UserPromptSubmit", &|p| p["prompt"] == ""),
        EventClass::Progress
    );
    match class("PermissionRequest", &|_| true) {
        EventClass::NeedsInput {
            reason: "permission",
            tool: Some(tool),
        } => assert_eq!(tool["input"]["command"], "touch umbel-was-here"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        class("Notification", &|p| p["notification_type"] == "idle_prompt"),
        EventClass::Other
    );
}

#[test]
fn startup_screens_and_a_cancelled_turn() {
    assert_screens(
        &Qwen,
        &[
            (fixture!("qwen/qwen-0.24.4-idle.txt"), StartupScreen::Idle),
            (fixture!("qwen/qwen-0.24.4-busy.txt"), StartupScreen::Other),
            (
                fixture!("qwen/qwen-0.24.4-api-error.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("qwen/qwen-0.24.4-sign-in.txt"),
                StartupScreen::SignIn("Connect a Provider".into()),
            ),
            (
                fixture!("qwen/qwen-0.24.4-trust-dialog.txt"),
                StartupScreen::Dialog {
                    what: "folder trust",
                    keys: &["Enter"],
                },
            ),
        ],
    );
    let cancelled = fixture!("qwen/qwen-0.24.4-interrupted.txt");
    assert!(Qwen.prompt_restored(cancelled));
    // Esc before the model said anything: the turn is rewound, no `Request cancelled.` shows.
    assert!(Qwen.prompt_restored(fixture!("qwen/qwen-0.24.4-esc-before-text.txt")));
    assert!(!Qwen.prompt_restored(fixture!("qwen/qwen-0.24.4-idle.txt")));
    assert!(!Qwen.prompt_restored(fixture!("qwen/qwen-0.24.4-busy.txt")));
    assert!(!Qwen.pending_input(fixture!("qwen/qwen-0.24.4-api-error.txt")));
}

#[test]
fn a_paste_still_being_read_in_shows_under_the_input_line() {
    // 600 000 characters pasted into the real 0.24.4, 60 ms later: the input line is still
    // empty and the footer counts what has come in.
    let pasting = fixture!("qwen/qwen-0.24.4-pasting.txt");
    assert!(Qwen.paste_in_progress(pasting));
    assert!(!Qwen.pending_input(pasting));
    for done in [
        fixture!("qwen/qwen-0.24.4-idle.txt"),
        fixture!("qwen/qwen-0.24.4-busy.txt"),
    ] {
        assert!(!Qwen.paste_in_progress(done));
    }
    assert!(!super::super::gemini::Gemini.paste_in_progress(pasting));
}

#[test]
fn the_launch_gives_a_private_home_with_umbels_hooks() {
    let user = vec![(
        std::path::PathBuf::from("/home/u/.qwen/settings.json"),
        r#"{ // the user's
            "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]},
            "ui": {"theme": "dark"}}"#
            .to_string(),
    )];
    let env = vec![("HOME".to_string(), "/home/u".to_string())];
    let spec = Qwen
        .launch(&LaunchInput {
            user_files: &user,
            env: &env,
            on_permission: OnPermission::Allow,
            ..launch_input("/s/sessions/w1")
        })
        .unwrap();
    assert_eq!(
        spec.args,
        [
            "--session-id",
            "11111111-2222-4333-8444-555555555555",
            "--approval-mode",
            "yolo"
        ]
    );
    assert_eq!(
        spec.env,
        [(
            "QWEN_HOME".to_string(),
            "/s/sessions/w1/qwen-home".to_string()
        )]
    );
    let (path, text) = &spec.files[0];
    assert_eq!(path, Path::new("/s/sessions/w1/qwen-home/settings.json"));
    let settings: Value = serde_json::from_str(text).unwrap();
    let stop = settings["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "the user's hook and umbel's");
    assert_eq!(stop[1]["hooks"][0]["command"], "sh e Stop");
    assert_eq!(settings["ui"]["theme"], "dark");
    assert_eq!(settings["ui"]["enableFollowupSuggestions"], false);
    assert_eq!(settings["memory"]["enableManagedAutoMemory"], false);
    assert_eq!(
        spec.transcript_path.as_deref(),
        Some(Path::new(
            "/s/sessions/w1/qwen-home/projects/-work-proj/chats/11111111-2222-4333-8444-555555555555.jsonl"
        ))
    );
    assert!(spec.links.contains(&(
        "/s/sessions/w1/qwen-home/.env".into(),
        "/home/u/.qwen/.env".into()
    )));
}

#[test]
fn doctor_reads_the_key_or_the_chosen_provider() {
    let env = |k: &str| vec![(k.to_string(), "x".to_string())];
    assert!(matches!(
        Qwen.sign_in(&env("OPENAI_API_KEY"), &[]),
        SignIn::Ready(_)
    ));
    assert!(matches!(
        Qwen.sign_in(&env("HOME"), &[]),
        SignIn::Missing { .. }
    ));
    let settings = vec![(
        std::path::PathBuf::from("/h/.qwen/settings.json"),
        r#"{"security": {"auth": {"selectedType": "openai"}}}"#.to_string(),
    )];
    assert!(matches!(Qwen.sign_in(&[], &settings), SignIn::Ready(_)));
}

#[test]
fn a_resume_replaces_the_session_id_with_resume_and_keeps_the_other_flags() {
    let launched: Vec<String> = [
        "--session-id",
        "old",
        "-m",
        "qwen3",
        "--approval-mode",
        "yolo",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        Qwen.resume_args(&launched, "abc"),
        ["-m", "qwen3", "--approval-mode", "yolo", "--resume", "abc"]
    );
}

/// `qwen --help` at both ends of the window (tests/data/qwen/<release>/).
const HELPS: [(&str, &str); 2] = [
    ("0.23.0", fixture!("qwen/0.23.0/qwen-0.23.0-help.txt")),
    ("0.24.4", fixture!("qwen/0.24.4/qwen-0.24.4-help.txt")),
];

/// Every flag umbel passes (launch, `--unattended`, resume, and the agent-CLI flags it maps:
/// `--model`, `--permission-mode`, `--max-turns`, `--add-dir`) is offered by the oldest and the
/// newest release of the window alike (0.24.4 added subcommands and an auth type, nothing umbel
/// passes).
#[test]
fn both_ends_of_the_window_take_the_flags_umbel_passes() {
    assert_eq!(Version::of(HELPS[0].0), RELEASES.oldest);
    assert_eq!(Version::of(HELPS[1].0), RELEASES.newest_tested);
    let offered = [
        "--session-id",
        "-m, --model",
        "--approval-mode",
        "yolo",
        "--max-session-turns",
        "--include-directories",
        "-r, --resume",
    ];
    let spec = Qwen
        .launch(&LaunchInput {
            model: Some("qwen3"),
            on_permission: OnPermission::Allow,
            ..launch_input("/s/sessions/w1")
        })
        .unwrap();
    let mut args = spec.args;
    args.extend(Qwen.resume_args(&[], "abc"));
    for flag in args.iter().filter(|a| a.starts_with('-')) {
        assert!(
            offered.iter().any(|o| o.split(", ").any(|f| f == flag)),
            "{flag} is not checked against the releases' help"
        );
    }
    for (release, help) in HELPS {
        for option in offered {
            assert!(help.contains(option), "qwen {release} has no {option}");
        }
    }
}

#[test]
fn a_tool_call_cancelled_at_its_ask_ends_the_turn_interrupted() {
    // 0.24.4, Esc at the confirmation of a call it had recorded: a `cancelled` tool_result,
    // nothing after it, no hook.
    let record = fixture!("qwen/qwen-0.24.4-tool-cancelled.jsonl");
    let turn = last_turn_upto(&Qwen, record, usize::MAX);
    assert_eq!(turn.prompt.as_deref(), Some("run the tool please"));
    assert!(turn.ended && turn.is_error, "{turn:?}");
    assert_eq!(turn.error_reason, Some("interrupted"));
    // The turn is known by the id its submit hook gives it (`prompt_id`), from its telemetry:
    // a wait sees the hook-less end as its own turn's.
    let submit = serde_json::json!({"prompt_id": "8837d5bf-544f-4b5e-92f3-5addf671d52f########1"});
    assert_eq!(turn.turn_id, Qwen.submit_turn_id(&submit), "{turn:?}");
    let before_the_result = last_turn_upto(&Qwen, record, record.lines().count() - 1);
    assert!(!before_the_result.ended, "{before_the_result:?}");
}
