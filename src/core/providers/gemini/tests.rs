//! Gemini provider tests on the real 0.61.0 screens, hook payloads and chat file.

use super::*;
use crate::core::test_data::{
    GEMINI_CHAT as CHAT, assert_pending, assert_screens, classified_hooks, fixture, last_turn_upto,
    launch_input,
};

fn turn_upto(n: usize) -> TranscriptTurn {
    last_turn_upto(&Gemini, CHAT, n)
}

#[test]
fn a_prompt_without_an_answer_is_not_ended() {
    assert!(!turn_upto(4).ended, "prompt written, no answer yet");
}

#[test]
fn a_tool_turn_skips_the_empty_rewritten_record_and_the_tool_result() {
    let mid = turn_upto(12);
    assert_eq!(mid.prompt.as_deref(), Some("Please RUN_TOOL now"));
    assert_eq!(mid.answer, None, "the tool call record has empty content");
    let done = turn_upto(15);
    assert_eq!(
        done.answer.as_deref(),
        Some("The command printed hello-from-tool. FINAL_AFTER_TOOL")
    );
}

#[test]
fn errors_and_cancels_end_the_turn_as_failures() {
    let error = turn_upto(22);
    assert_eq!(error.prompt.as_deref(), Some("Please BADREQ now"));
    assert!(error.is_error && error.ended);
    assert_eq!(error.error_reason, Some("api-error"));
    assert!(error.answer.unwrap().contains("fake bad request"));
    let cancelled = turn_upto(27);
    assert_eq!(cancelled.prompt.as_deref(), Some("Please RATE429 now"));
    assert_eq!(cancelled.error_reason, Some("interrupted"));
}

#[test]
fn a_later_record_with_the_same_id_replaces_the_earlier() {
    let lines = [
        r#"{"id":"u1","type":"user","content":[{"text":"q"}]}"#,
        r#"{"id":"g1","type":"gemini","content":"final"}"#,
        r#"{"id":"g1","type":"gemini","content":""}"#,
    ];
    let mut it = lines.iter().rev().map(|l| l.to_string());
    assert_eq!(
        Gemini.last_turn(&mut it).answer,
        None,
        "the newest version (empty) wins"
    );
}

#[test]
fn hook_payloads_classify() {
    let hooks = classified_hooks(
        &Gemini,
        fixture!("gemini/gemini-0.61.0-hook-payloads.jsonl"),
    );
    for (event, payload, class) in hooks {
        match event.as_str() {
            "BeforeAgent" => assert_eq!(class, EventClass::Submitted),
            "AfterAgent" if payload["prompt_response"] == NO_RESPONSE => {
                assert_eq!(
                    class,
                    EventClass::TurnFailed {
                        reason: "api-error"
                    }
                );
                assert_eq!(Gemini.answer_from_payload(&payload), None);
            }
            "AfterAgent" => {
                assert_eq!(class, EventClass::TurnEnded);
                assert!(Gemini.answer_from_payload(&payload).is_some());
            }
            "Notification" => assert!(matches!(
                class,
                EventClass::NeedsInput {
                    reason: "permission",
                    tool: Some(_)
                }
            )),
            "SessionStart" => assert_eq!(class, EventClass::Started),
            _ => {}
        }
    }
}

#[test]
fn startup_screens() {
    let trust = fixture!("gemini/gemini-0.61.0-startup-trust-dialog.txt");
    let idle = fixture!("gemini/gemini-0.61.0-idle-prompt.txt");
    // The answered dialog left above the restarted CLI's screen is not answered again.
    let restarting = format!("{trust}\n Gemini CLI is restarting to apply the trust changes...\n");
    let restarted = format!("{restarting}{idle}");
    assert_screens(
        &Gemini,
        &[
            (
                trust,
                StartupScreen::Dialog {
                    what: "folder trust",
                    keys: &["Enter"],
                },
            ),
            (&restarted, StartupScreen::Idle),
            (&restarting, StartupScreen::Other),
            (idle, StartupScreen::Idle),
            (
                fixture!("gemini/gemini-0.61.0-turn-complete.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("gemini/gemini-0.61.0-busy-thinking.txt"),
                StartupScreen::Other,
            ),
        ],
    );
    assert!(matches!(
        Gemini.startup_screen(fixture!("gemini/gemini-0.61.0-auth-dialog.txt")),
        StartupScreen::SignIn(_)
    ));
}

/// Every approval mode's idle screen, with and without true colour (`COLORTERM=truecolor` draws
/// the frame as `▄▄▄`/`▀▀▀` and yolo marks the composer ` *`), is ready; yolo's busy screen is not.
#[test]
fn idle_in_every_mode_and_frame() {
    for screen in [
        fixture!("gemini/gemini-0.61.0-idle-yolo.txt"),
        fixture!("gemini/gemini-0.61.0-idle-truecolor-yolo.txt"),
        fixture!("gemini/gemini-0.61.0-idle-truecolor-auto_edit.txt"),
        fixture!("gemini/gemini-0.61.0-idle-auto_edit.txt"),
        fixture!("gemini/gemini-0.61.0-idle-plan.txt"),
    ] {
        assert_eq!(
            Gemini.startup_screen(screen),
            StartupScreen::Idle,
            "{screen}"
        );
        assert!(!Gemini.pending_input(screen), "{screen}");
    }
    assert_eq!(
        Gemini.startup_screen(fixture!("gemini/gemini-0.61.0-busy-yolo.txt")),
        StartupScreen::Other
    );
    let typed = fixture!("gemini/gemini-0.61.0-idle-truecolor-yolo.txt").replace(
        " *   Type your message or @path/to/file",
        " *   half a prompt",
    );
    assert!(Gemini.pending_input(&typed));
}

#[test]
fn pending_input() {
    assert_pending(
        &Gemini,
        &[
            (fixture!("gemini/gemini-0.61.0-paste-30-lines.txt"), true),
            (fixture!("gemini/gemini-0.61.0-idle-prompt.txt"), false),
            (fixture!("gemini/gemini-0.61.0-busy-thinking.txt"), false),
        ],
    );
}

/// Directories added with `--add-dir` are trusted in umbel's copy of trustedFolders.json (else
/// gemini asks about them at startup, a question umbel reports and never answers).
#[test]
fn added_directories_are_trusted_and_the_question_about_them_is_a_person_s() {
    let env = vec![("HOME".to_string(), "/home/u".to_string())];
    let flags = [crate::core::providers::flags::Given {
        flag: crate::core::providers::flags::Flag::AddDir,
        values: vec!["/srv/a".into()],
    }];
    let spec = Gemini
        .launch(&LaunchInput {
            flags: &flags,
            env: &env,
            ..launch_input("/s/sessions/g1")
        })
        .unwrap();
    let trusted: Value = serde_json::from_str(&spec.files[1].1).unwrap();
    assert_eq!(trusted["/srv/a"], "TRUST_FOLDER");
    assert_eq!(trusted["/work/proj"], "TRUST_FOLDER");
    assert!(contains(&spec.args, &["--include-directories", "/srv/a"]));
    match Gemini.startup_screen(fixture!(
        "gemini/gemini-0.61.0-include-directories-trust.txt"
    )) {
        StartupScreen::Person(q) => assert!(q.contains("folders being added"), "{q}"),
        other => panic!("{other:?}"),
    }
}

fn contains(args: &[String], want: &[&str]) -> bool {
    args.windows(want.len()).any(|w| w == want)
}

/// `deny` leaves out the tools `gemini -p` leaves out without `--yolo` (observed in the tool list
/// 0.61.0 sent the model), keeping the user's own exclusions.
#[test]
fn deny_excludes_the_tools_headless_mode_does_not_offer() {
    let user = vec![(
        PathBuf::from("/home/u/.gemini/settings.json"),
        r#"{"tools":{"exclude":["mine"],"core":["x"]}}"#.to_string(),
    )];
    let settings = |on_permission, user_files: &[(PathBuf, String)]| -> Value {
        let env = vec![("HOME".to_string(), "/home/u".to_string())];
        let spec = Gemini
            .launch(&LaunchInput {
                on_permission,
                env: &env,
                user_files,
                ..launch_input("/s/sessions/g1")
            })
            .unwrap();
        assert!(!spec.args.contains(&"yolo".to_string()));
        serde_json::from_str(&spec.files[0].1).unwrap()
    };
    let deny = settings(OnPermission::Deny, &user);
    let excluded: Vec<&str> = deny["tools"]["exclude"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(excluded[0], "mine");
    for tool in ["run_shell_command", "write_file", "replace", "web_fetch"] {
        assert!(excluded.contains(&tool), "{tool} in {excluded:?}");
    }
    assert_eq!(deny["tools"]["core"][0], "x", "the rest of `tools` is kept");
    assert!(settings(OnPermission::Stop, &[]).get("tools").is_none());
}

#[test]
fn launch_builds_a_private_gemini_home_keeping_user_settings() {
    let env = vec![("HOME".to_string(), "/home/u".to_string())];
    let user = vec![
        (
            PathBuf::from("/home/u/.gemini/settings.json"),
            r#"{"security":{"auth":{"selectedType":"gemini-api-key"}},"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"mine"}]}]}}"#.to_string(),
        ),
        (PathBuf::from("/home/u/.gemini/trustedFolders.json"), r#"{"/other":"TRUST_FOLDER"}"#.to_string()),
    ];
    let input = LaunchInput {
        hook_command: "sh '/s/hooks/event.sh' '/s/sessions/g1/events'",
        on_permission: OnPermission::Allow,
        env: &env,
        user_files: &user,
        ..launch_input("/s/sessions/g1")
    };
    let spec = Gemini.launch(&input).unwrap();
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
            "GEMINI_CLI_HOME".to_string(),
            "/s/sessions/g1/gemini-home".to_string()
        )]
    );
    let settings: Value = serde_json::from_str(&spec.files[0].1).unwrap();
    assert_eq!(
        settings["security"]["auth"]["selectedType"],
        "gemini-api-key"
    );
    let after = settings["hooks"]["AfterAgent"].as_array().unwrap();
    assert_eq!(after.len(), 2, "the user's hook is kept, umbel's added");
    assert_eq!(
        after[1]["hooks"][0]["timeout"], 30_000,
        "gemini timeouts are milliseconds"
    );
    let trusted: Value = serde_json::from_str(&spec.files[1].1).unwrap();
    assert_eq!(trusted["/work/proj"], "TRUST_FOLDER");
    assert_eq!(trusted["/other"], "TRUST_FOLDER");
    assert!(
        spec.links
            .iter()
            .any(|(l, t)| l.ends_with(".gemini/oauth_creds.json")
                && t == Path::new("/home/u/.gemini/oauth_creds.json"))
    );
}

#[test]
fn output_tokens_come_from_the_gemini_record_counted_once() {
    assert_eq!(turn_upto(5).output_tokens, Some(9));
    assert_eq!(
        turn_upto(11).output_tokens,
        Some(9),
        "a rewritten record counts once"
    );
    assert_eq!(
        turn_upto(19).output_tokens,
        None,
        "an error turn has no usage"
    );
}

/// The worker's settings.json and trustedFolders.json, as launch builds them from the user's
/// `user_files`.
fn worker_files(user_files: &[(PathBuf, String)]) -> crate::core::errors::Result<(Value, Value)> {
    let env = vec![("HOME".to_string(), "/home/u".to_string())];
    let spec = Gemini.launch(&LaunchInput {
        env: &env,
        user_files,
        ..launch_input("/s/sessions/g1")
    })?;
    let json = |i: usize| serde_json::from_str(&spec.files[i].1).unwrap();
    Ok((json(0), json(1)))
}

/// gemini reads its settings and trusted folders through strip-json-comments (0.61.0's
/// `_doLoadSettings`, `parseTrustedFoldersJson`): a commented file is the user's file, kept.
#[test]
fn commented_user_files_are_read_as_gemini_reads_them() {
    let user = vec![
        (
            PathBuf::from("/home/u/.gemini/settings.json"),
            "{\n  // how I sign in\n  \"security\": {\"auth\": {\"selectedType\": \"oauth-personal\"}},\n  /* a URL in a string is not a comment: */ \"x\": \"http://a//b\"\n}\n".to_string(),
        ),
        (
            PathBuf::from("/home/u/.gemini/trustedFolders.json"),
            "{\n  // mine\n  \"/other\": \"TRUST_FOLDER\"\n}".to_string(),
        ),
    ];
    let (settings, trusted) = worker_files(&user).unwrap();
    assert_eq!(
        settings["security"]["auth"]["selectedType"],
        "oauth-personal"
    );
    assert_eq!(settings["x"], "http://a//b");
    assert_eq!(trusted["/other"], "TRUST_FOLDER");
}

/// A file gemini itself would refuse is said, with its place, before anything starts, instead
/// of the worker silently running without the user's settings (signed out, other model).
#[test]
fn an_unreadable_user_file_is_a_typed_error_at_its_line_and_column() {
    for (file, text, line, column) in [
        ("settings.json", "{\n  \"a\": 1,\n  \"b\" 2\n}", 3, 7),
        ("trustedFolders.json", "[\"not an object\"]", 1, 1),
    ] {
        let path = PathBuf::from(format!("/home/u/.gemini/{file}"));
        let error = worker_files(&[(path.clone(), text.to_string())]).unwrap_err();
        match error {
            crate::core::errors::Error::UserConfig {
                provider,
                file: said,
                line: l,
                column: c,
                ..
            } => {
                assert_eq!(
                    (provider, said, l, c),
                    ("gemini", path, line, column),
                    "{file}"
                );
            }
            other => panic!("{file}: {other:?}"),
        }
    }
}

/// A choice no rule knows (here gemini's own tool confirmation, read without its hook) is a
/// person's to answer, with its question.
#[test]
fn an_unknown_choice_is_a_person_s_with_its_question() {
    let person = |q: &str| StartupScreen::Person(q.to_string());
    assert_screens(
        &Gemini,
        &[
            (
                fixture!("gemini/gemini-0.61.0-permission-prompt-shell.txt"),
                person("Allow execution of [Shell]?"),
            ),
            (
                fixture!("gemini/gemini-0.61.0-shell-confirm-default.txt"),
                person("Allow execution of [Shell]?"),
            ),
            (
                fixture!("gemini/gemini-0.61.0-shell-confirm-auto_edit.txt"),
                person("Allow execution of [Shell]?"),
            ),
            (
                fixture!("gemini/gemini-0.61.0-idle-truecolor-yolo.txt"),
                StartupScreen::Idle,
            ),
            (
                fixture!("gemini/gemini-0.61.0-turn-complete-after-tool.txt"),
                StartupScreen::Idle,
            ),
        ],
    );
}

#[test]
fn gemini_is_signed_in_by_a_key_a_chosen_auth_type_or_saved_google_credentials() {
    #[derive(Debug, PartialEq)]
    enum Level {
        Ok,
        Warn,
    }
    let home = vec![("HOME".to_string(), "/h".to_string())];
    let level =
        |env: &[(String, String)], files: &[(PathBuf, String)]| match Gemini.sign_in(env, files) {
            SignIn::Ready(_) => Level::Ok,
            SignIn::Missing { .. } => Level::Warn,
        };
    assert_eq!(level(&home, &[]), Level::Warn);
    let mut keyed = home.clone();
    keyed.push(("GOOGLE_API_KEY".into(), "k".into()));
    assert_eq!(level(&keyed, &[]), Level::Ok);
    let file = |name: &str, text: &str| (PathBuf::from("/h/.gemini").join(name), text.to_string());
    let api = r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}} // chosen"#;
    assert_eq!(level(&home, &[file("settings.json", api)]), Level::Ok);
    let google = r#"{"security": {"auth": {"selectedType": "oauth-personal"}}}"#;
    assert_eq!(level(&home, &[file("settings.json", google)]), Level::Warn);
    let signed_in = [
        file("settings.json", google),
        file("oauth_creds.json", "{}"),
    ];
    assert_eq!(level(&home, &signed_in), Level::Ok);
    assert_eq!(
        level(&home, &[file(".env", "GEMINI_API_KEY=k\n")]),
        Level::Ok
    );
}

/// gemini 0.61.0, Esc while an answer streams: `AfterAgent` carries the partial text as if it
/// were the answer, and only the chat's `Request cancelled.` (no `gemini` record) tells.
#[test]
fn esc_mid_stream_looks_finished_to_the_hook_and_interrupted_to_the_chat() {
    let payload: Value = serde_json::from_str(include_str!(
        "../../../../tests/data/gemini/gemini-0.61.0-esc-mid-stream-after-agent.json"
    ))
    .unwrap();
    assert_eq!(
        Gemini.classify("AfterAgent", Some(&payload)),
        EventClass::TurnEnded
    );
    assert_eq!(
        Gemini.answer_from_payload(&payload).as_deref(),
        Some("Thinking slowly... ")
    );
    assert!(Gemini.end_hook_hides_cancel());
    let chat =
        include_str!("../../../../tests/data/gemini/gemini-0.61.0-esc-mid-stream-chat.jsonl");
    let turn = Gemini.last_turn(&mut chat.lines().rev().map(str::to_string));
    assert_eq!(turn.prompt.as_deref(), Some("long task"));
    assert!(turn.interrupted(), "{turn:?}");
    assert_eq!(turn.answer, None);
}

/// The input area starts at the input line and keeps what is under it; an Enter gemini took as
/// a newline adds a line to it, and the status line above it is not part of it.
#[test]
fn the_input_area_is_the_input_line_down() {
    let pasted = fixture!("gemini/gemini-0.61.0-paste-3-lines.txt");
    let area = Gemini.input_area(pasted).unwrap();
    assert!(area.starts_with(" > first line"), "{area}");
    assert!(!area.contains("for shortcuts"), "{area}");
    let newline = pasted.replacen(" > first line\n", " > first line\n   \n", 1);
    let grown = Gemini.input_area(&newline).unwrap();
    assert_eq!(grown.lines().count(), area.lines().count() + 1);
}
