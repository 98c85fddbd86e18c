//! Gemini provider tests on the real 0.61.0 screens, hook payloads and chat file.

use super::*;
use crate::core::test_data::{last_turn_upto, provider_data};

macro_rules! data {
    ($file:literal) => {
        provider_data!("gemini", $file)
    };
}

const CHAT: &str = data!("gemini-0.61.0-chat-session.jsonl");

fn turn_upto(n: usize) -> TranscriptTurn {
    last_turn_upto(&Gemini, CHAT, n)
}

#[test]
fn a_plain_turn() {
    let turn = turn_upto(6);
    assert_eq!(turn.prompt.as_deref(), Some("Say hello"));
    assert_eq!(
        turn.answer.as_deref(),
        Some("Hello from the fake Gemini server. FINAL_ANSWER_TEXT")
    );
    assert!(turn.ended && !turn.is_error);
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
    for line in data!("gemini-0.61.0-hook-payloads.jsonl").lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let payload = &record["stdin"];
        let class = Gemini.classify(record["event"].as_str().unwrap(), Some(payload));
        match record["event"].as_str().unwrap() {
            "BeforeAgent" => assert_eq!(class, EventClass::Submitted),
            "AfterAgent" if payload["prompt_response"] == NO_RESPONSE => {
                assert_eq!(
                    class,
                    EventClass::TurnFailed {
                        reason: "api-error"
                    }
                );
                assert_eq!(Gemini.answer_from_payload(payload), None);
            }
            "AfterAgent" => {
                assert_eq!(class, EventClass::TurnEnded);
                assert!(Gemini.answer_from_payload(payload).is_some());
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
    let s = |t: &str| Gemini.startup_screen(t);
    assert_eq!(
        s(data!("gemini-0.61.0-startup-trust-dialog.txt")),
        StartupScreen::Dialog {
            what: "folder trust",
            keys: &["Enter"]
        }
    );
    assert!(matches!(
        s(data!("gemini-0.61.0-auth-dialog.txt")),
        StartupScreen::SignIn(_)
    ));
    // The answered dialog left above the restarted CLI's screen is not answered again.
    let restarted = format!(
        "{}\n Gemini CLI is restarting to apply the trust changes...\n{}",
        data!("gemini-0.61.0-startup-trust-dialog.txt"),
        data!("gemini-0.61.0-idle-prompt.txt")
    );
    assert_eq!(s(&restarted), StartupScreen::Idle);
    let restarting = format!(
        "{}\n Gemini CLI is restarting to apply the trust changes...\n",
        data!("gemini-0.61.0-startup-trust-dialog.txt")
    );
    assert_eq!(s(&restarting), StartupScreen::Other);
    assert_eq!(
        s(data!("gemini-0.61.0-idle-prompt.txt")),
        StartupScreen::Idle
    );
    assert_eq!(
        s(data!("gemini-0.61.0-turn-complete.txt")),
        StartupScreen::Idle
    );
    assert_eq!(
        s(data!("gemini-0.61.0-busy-thinking.txt")),
        StartupScreen::Other
    );
}

/// Every approval mode's idle screen, with and without true colour (`COLORTERM=truecolor` draws
/// the frame as `▄▄▄`/`▀▀▀` and yolo marks the composer ` *`), is ready; yolo's busy screen is not.
#[test]
fn idle_in_every_mode_and_frame() {
    for screen in [
        data!("gemini-0.61.0-idle-yolo.txt"),
        data!("gemini-0.61.0-idle-truecolor-yolo.txt"),
        data!("gemini-0.61.0-idle-truecolor-auto_edit.txt"),
        data!("gemini-0.61.0-idle-auto_edit.txt"),
        data!("gemini-0.61.0-idle-plan.txt"),
    ] {
        assert_eq!(
            Gemini.startup_screen(screen),
            StartupScreen::Idle,
            "{screen}"
        );
        assert!(!Gemini.pending_input(screen), "{screen}");
    }
    assert_eq!(
        Gemini.startup_screen(data!("gemini-0.61.0-busy-yolo.txt")),
        StartupScreen::Other
    );
    let typed = data!("gemini-0.61.0-idle-truecolor-yolo.txt").replace(
        " *   Type your message or @path/to/file",
        " *   half a prompt",
    );
    assert!(Gemini.pending_input(&typed));
}

#[test]
fn pending_input() {
    assert!(Gemini.pending_input(data!("gemini-0.61.0-paste-30-lines.txt")));
    assert!(!Gemini.pending_input(data!("gemini-0.61.0-idle-prompt.txt")));
    assert!(!Gemini.pending_input(data!("gemini-0.61.0-busy-thinking.txt")));
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
            session_dir: Path::new("/s/sessions/g1"),
            hook_command: "sh e",
            session_id: "11111111-2222-4333-8444-555555555555",
            model: None,
            on_permission: OnPermission::Stop,
            flags: &flags,
            cli_args: &[],
            cwd: Path::new("/work/proj"),
            env: &env,
            user_files: &[],
        })
        .unwrap();
    let trusted: Value = serde_json::from_str(&spec.files[1].1).unwrap();
    assert_eq!(trusted["/srv/a"], "TRUST_FOLDER");
    assert_eq!(trusted["/work/proj"], "TRUST_FOLDER");
    assert!(contains(&spec.args, &["--include-directories", "/srv/a"]));
    match Gemini.startup_screen(data!("gemini-0.61.0-include-directories-trust.txt")) {
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
                session_dir: Path::new("/s/sessions/g1"),
                hook_command: "sh e",
                session_id: "11111111-2222-4333-8444-555555555555",
                model: None,
                on_permission,
                flags: &[],
                cli_args: &[],
                cwd: Path::new("/work/proj"),
                env: &env,
                user_files,
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
        session_dir: Path::new("/s/sessions/g1"),
        hook_command: "sh '/s/hooks/event.sh' '/s/sessions/g1/events'",
        session_id: "11111111-2222-4333-8444-555555555555",
        model: None,
        on_permission: OnPermission::Allow,
        flags: &[],
        cli_args: &[],
        cwd: Path::new("/work/proj"),
        env: &env,
        user_files: &user,
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
