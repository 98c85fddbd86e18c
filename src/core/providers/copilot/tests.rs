//! Copilot provider tests on the real 1.0.102 (and 1.0.89) screens, hook payloads and session
//! logs (`tests/data/copilot/`).

use super::*;
use crate::core::test_data::{
    assert_hook_classes, assert_pending, assert_screens, classified_hooks, fixture, last_turn_upto,
    launch_input,
};

const LOG: &str = fixture!("copilot/1.0.102/copilot-1.0.102-events.jsonl");
const OLDER_LOG: &str = fixture!("copilot/1.0.89/copilot-1.0.89-events.jsonl");
/// A tool `--deny-tool=shell` refused (1.0.102): its permission hook fired all the same.
const DENY_RULE_HOOKS: &str =
    fixture!("copilot/1.0.102/copilot-1.0.102-deny-rule-hook-payloads.jsonl");

/// The recorded hooks in the shape the shared helpers read (`{"event", "stdin"}`).
fn hooks(version: &str) -> String {
    let text = match version {
        "1.0.89" => fixture!("copilot/1.0.89/copilot-1.0.89-hook-payloads.jsonl"),
        _ => fixture!("copilot/1.0.102/copilot-1.0.102-hook-payloads.jsonl"),
    };
    text.replace("\"payload\":", "\"stdin\":")
}

fn turn_upto(n: usize) -> TranscriptTurn {
    last_turn_upto(&Copilot, LOG, n)
}

#[test]
fn the_log_gives_each_turns_prompt_answer_and_end() {
    assert!(!turn_upto(9).ended, "the turn started, no answer yet");
    let plain = turn_upto(12);
    assert_eq!(plain.prompt.as_deref(), Some("Say hello"));
    assert_eq!(plain.answer.as_deref(), Some("Hello there."));
    assert!(plain.ended && !plain.is_error);
    assert_eq!(plain.output_tokens, Some(17));
    assert!(
        !turn_upto(11).ended,
        "the answer is written before the turn's end"
    );
    // A tool round ends a model turn and starts the next: not the end of the person's turn.
    let mid = turn_upto(39);
    assert!(!mid.ended && mid.answer.is_none(), "{mid:?}");
    assert!(!turn_upto(40).ended);
    let tool = turn_upto(43);
    assert_eq!(tool.answer.as_deref(), Some("It printed hi."));
    assert!(tool.ended);
    assert_eq!(tool.output_tokens, Some(34), "both requests of the turn");
}

#[test]
fn an_abort_or_an_api_error_ends_the_turn_as_a_failure() {
    let interrupted = turn_upto(20);
    assert_eq!(interrupted.prompt.as_deref(), Some("answer slowly"));
    assert!(interrupted.interrupted() && interrupted.answer.is_none());
    let refused = turn_upto(62);
    assert_eq!(refused.prompt.as_deref(), Some("tool again"));
    assert!(
        refused.interrupted(),
        "a refused permission aborts the turn"
    );
    assert!(!turn_upto(60).ended, "still at its dialog");
    let failed = turn_upto(68);
    assert!(failed.ended && failed.is_error);
    assert_eq!(failed.error_reason, Some("api-error"));
    assert_eq!(failed.answer.as_deref(), Some("400 fake bad request"));
    let older = last_turn_upto(&Copilot, OLDER_LOG, OLDER_LOG.lines().count());
    assert_eq!(older.error_reason, Some("api-error"), "1.0.89 alike");
}

#[test]
fn a_turns_id_is_its_submit_hooks_timestamp_in_the_log() {
    let submits: Vec<Value> = classified_hooks(&Copilot, &hooks("1.0.102"))
        .into_iter()
        .filter(|(_, _, class)| *class == EventClass::Submitted)
        .map(|(_, payload, _)| payload)
        .collect();
    assert_eq!(submits.len(), 5);
    for (cut, submit) in [(12, &submits[0]), (43, &submits[2]), (68, &submits[4])] {
        let want = Copilot.submit_turn_id(submit);
        assert!(want.is_some());
        assert_eq!(turn_upto(cut).turn_id, want, "turn up to line {cut}");
    }
    assert_ne!(turn_upto(12).turn_id, turn_upto(68).turn_id);
    // 1.0.89 fires the submit hook before `SessionStart`: the first turn's id is found past it.
    let older: Vec<Value> = classified_hooks(&Copilot, &hooks("1.0.89"))
        .into_iter()
        .filter(|(_, _, class)| *class == EventClass::Submitted)
        .map(|(_, payload, _)| payload)
        .collect();
    let first = last_turn_upto(&Copilot, OLDER_LOG, 11);
    assert!(first.ended);
    assert_eq!(first.turn_id, Copilot.submit_turn_id(&older[0]));
}

/// The log's `hook.start` record is stamped when it is written, which can be a millisecond past
/// the hook's own time (seen on the real 1.0.102: `read` found no finished turn 1 run in 5):
/// the turn's id is the hook input's time, the instant the payload carries.
#[test]
fn a_turns_id_holds_when_the_hook_record_is_stamped_a_millisecond_later() {
    let submit = classified_hooks(&Copilot, &hooks("1.0.102"))
        .into_iter()
        .find(|(_, _, class)| *class == EventClass::Submitted)
        .map(|(_, payload, _)| payload)
        .expect("a submit hook");
    let stamp = str_field(&submit, "timestamp")
        .expect("its time")
        .to_string();
    let later = stamp.replace(".952Z", ".953Z");
    assert_ne!(later, stamp, "the recorded first submit is at .952");
    let log: String = LOG
        .lines()
        .take(12)
        .map(|line| match line.contains("\"userPromptSubmitted\"") {
            true => line.replace(
                &format!("\"timestamp\":\"{stamp}\""),
                &format!("\"timestamp\":\"{later}\""),
            ),
            false => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(log.contains(&later));
    let turn = last_turn_upto(&Copilot, &log, 12);
    assert!(turn.ended);
    assert_eq!(turn.turn_id, Copilot.submit_turn_id(&submit));
}

#[test]
fn hook_payloads_classify() {
    for version in ["1.0.102", "1.0.89"] {
        let hooks = assert_hook_classes(
            &Copilot,
            &hooks(version),
            &[
                ("SessionStart", EventClass::Progress),
                ("UserPromptSubmit", EventClass::Submitted),
                ("PreToolUse", EventClass::Progress),
                ("PostToolUse", EventClass::Progress),
            ],
        );
        let stop = hooks.iter().find(|(e, ..)| e == "Stop").expect("a Stop");
        assert_eq!(stop.2, EventClass::TurnEnded);
        assert!(str_field(&stop.1, "transcript_path").is_some());
        // The permission hook runs before copilot's own rules decide: no wait yet.
        let asked = hooks.iter().find(|(e, ..)| e == "PermissionRequest");
        match asked.map(|(_, _, class)| class) {
            Some(EventClass::PermissionCheck { tool: Some(tool) }) => {
                assert_eq!(tool["name"], "bash");
                assert_eq!(tool["input"]["command"], "echo hi > out.txt");
            }
            other => panic!("{version}: {other:?}"),
        }
        let notice = hooks.iter().find(|(e, ..)| e == "Notification");
        assert!(matches!(
            notice.map(|(_, _, c)| c),
            Some(EventClass::NeedsInput {
                reason: "permission",
                ..
            })
        ));
    }
}

#[test]
fn startup_screens() {
    let screen = |name: &str| match name {
        "trust" => fixture!("copilot/1.0.102/copilot-1.0.102-trust-dialog.txt"),
        "idle" => fixture!("copilot/1.0.102/copilot-1.0.102-idle.txt"),
        // In true colour the input line is `┃` in a box of half blocks.
        "box-idle" => fixture!("copilot/1.0.102/copilot-1.0.102-box-idle.txt"),
        "busy" => fixture!("copilot/1.0.102/copilot-1.0.102-busy.txt"),
        "armed" => fixture!("copilot/1.0.102/copilot-1.0.102-esc-armed.txt"),
        "sign-in" => fixture!("copilot/1.0.102/copilot-1.0.102-sign-in.txt"),
        "api-error" => fixture!("copilot/1.0.102/copilot-1.0.102-api-error.txt"),
        "old-trust" => fixture!("copilot/1.0.89/copilot-1.0.89-trust-dialog.txt"),
        "old-idle" => fixture!("copilot/1.0.89/copilot-1.0.89-idle.txt"),
        "old-busy" => fixture!("copilot/1.0.89/copilot-1.0.89-busy.txt"),
        _ => fixture!("copilot/1.0.102/copilot-1.0.102-permission.txt"),
    };
    let trust = StartupScreen::Dialog {
        what: "folder trust",
        keys: &["Enter"],
    };
    assert_screens(
        &Copilot,
        &[
            (screen("trust"), trust.clone()),
            (screen("old-trust"), trust),
            (screen("idle"), StartupScreen::Idle),
            (screen("box-idle"), StartupScreen::Idle),
            (screen("old-idle"), StartupScreen::Idle),
            (screen("api-error"), StartupScreen::Idle),
            (screen("busy"), StartupScreen::Other),
            (screen("old-busy"), StartupScreen::Other),
            (
                screen("sign-in"),
                StartupScreen::SignIn("Please use /login to sign in to use Copilot".into()),
            ),
            (
                screen("permission"),
                StartupScreen::Person("Do you want to run this command?".into()),
            ),
        ],
    );
    assert!(APPROVAL.shown_on(screen("permission")));
    assert!(!APPROVAL.shown_on(screen("trust")));
    assert_eq!(Copilot.busy_marker(), Some("Working"));
    let restored = fixture!("copilot/1.0.102/copilot-1.0.102-esc-before-text.txt");
    assert!(Copilot.prompt_restored(restored), "Esc Esc before any text");
    for kept in ["idle", "busy", "armed", "api-error"] {
        assert!(!Copilot.prompt_restored(screen(kept)), "{kept}");
    }
    assert!(screen("armed").contains("esc again to interrupt"));
}

#[test]
fn the_input_line_holds_what_was_typed() {
    assert_pending(
        &Copilot,
        &[
            (fixture!("copilot/1.0.102/copilot-1.0.102-typed.txt"), true),
            (fixture!("copilot/1.0.102/copilot-1.0.102-idle.txt"), false),
            (
                fixture!("copilot/1.0.102/copilot-1.0.102-answered.txt"),
                false,
            ),
            (
                fixture!("copilot/1.0.102/copilot-1.0.102-box-typed.txt"),
                true,
            ),
            (
                fixture!("copilot/1.0.102/copilot-1.0.102-box-idle.txt"),
                false,
            ),
        ],
    );
    let typed = fixture!("copilot/1.0.102/copilot-1.0.102-typed.txt");
    assert_eq!(
        Copilot.input_line_at(typed).map(|(_, text)| text),
        Some("❯ Say hello".to_string())
    );
}

#[test]
fn launch_writes_settings_with_hooks_in_its_own_home() {
    let env = crate::core::test_data::env(&[("HOME", "/h")]);
    let user = vec![(
        PathBuf::from("/h/.copilot/settings.json"),
        r#"{"theme": "dark", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}"#
            .to_string(),
    )];
    let input = LaunchInput {
        env: &env,
        user_files: &user,
        model: Some("gpt-fake"),
        ..launch_input("/s/sessions/w1")
    };
    let spec = Copilot.launch(&input).unwrap();
    assert_eq!(
        spec.args,
        [
            "--session-id",
            "11111111-2222-4333-8444-555555555555",
            "--model",
            "gpt-fake"
        ]
    );
    let home = "/s/sessions/w1/copilot-home";
    assert_eq!(spec.env, [("COPILOT_HOME".to_string(), home.to_string())]);
    let (path, text) = &spec.files[0];
    assert_eq!(path, &PathBuf::from(format!("{home}/settings.json")));
    let settings: Value = serde_json::from_str(text).unwrap();
    assert_eq!(settings["theme"], "dark");
    let stop = settings["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "the user's hook and umbel's");
    assert_eq!(stop[1]["hooks"][0]["command"], "sh e Stop");
    for event in ["UserPromptSubmit", "PermissionRequest", "Notification"] {
        assert!(settings["hooks"][event].is_array(), "{event}");
    }
    assert!(
        settings["hooks"].get("SessionEnd").is_none(),
        "1.0.89's SessionEnd on a resume names a session of another id"
    );
    assert!(
        settings["hooks"]["Stop"][1].get("matcher").is_none(),
        "an empty matcher never fires for tools"
    );
    assert_eq!(
        spec.transcript_path,
        Some(PathBuf::from(format!(
            "{home}/session-state/11111111-2222-4333-8444-555555555555/events.jsonl"
        )))
    );
    assert!(spec.links.contains(&(
        PathBuf::from(format!("{home}/config.json")),
        PathBuf::from("/h/.copilot/config.json")
    )));
}

#[test]
fn permissions_and_resume_on_the_command_line() {
    let allow = LaunchInput {
        on_permission: OnPermission::Allow,
        ..launch_input("/s/w")
    };
    assert!(
        Copilot
            .launch(&allow)
            .unwrap()
            .args
            .contains(&"--allow-all".to_string())
    );
    let deny = LaunchInput {
        on_permission: OnPermission::Deny,
        ..launch_input("/s/w")
    };
    let args = Copilot.launch(&deny).unwrap().args;
    assert!(args.ends_with(&[
        "--deny-tool=shell".to_string(),
        "--deny-tool=write".to_string()
    ]));
    let launched = Copilot.launch(&launch_input("/s/w")).unwrap().args;
    assert_eq!(
        Copilot.resume_args(&launched, "abc"),
        ["--resume=abc".to_string()]
    );
}

#[test]
fn stats_and_actions_of_a_tool_turn() {
    let records: Vec<Value> = LOG
        .lines()
        .take(43)
        .skip(22)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let stats = Copilot.turn_stats(&records);
    assert_eq!(stats.models.len(), 1);
    assert_eq!(stats.models[0].0, "gpt-fake");
    assert_eq!(stats.models[0].1.output, 34);
    assert_eq!(stats.tools.len(), 1);
    assert_eq!(stats.tools[0].name, "bash");
    assert_eq!(stats.tools[0].ok, Some(true));
    assert_eq!(stats.tools[0].exit_code, Some(0));
    let actions = Copilot.turn_actions(&records);
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].status, tool_action::ActionStatus::Ok);
    let pending = Copilot.turn_actions(&records[..6]);
    assert_eq!(pending[0].status, tool_action::ActionStatus::Pending);
}

#[test]
fn sign_in_is_byok_a_token_or_a_login() {
    let byok = crate::core::test_data::env(&[("COPILOT_PROVIDER_BASE_URL", "http://x/v1")]);
    assert!(matches!(Copilot.sign_in(&byok, &[]), SignIn::Ready(_)));
    let token = crate::core::test_data::env(&[("GH_TOKEN", "t")]);
    assert!(matches!(Copilot.sign_in(&token, &[]), SignIn::Ready(_)));
    let login = vec![(
        PathBuf::from("/h/.copilot/config.json"),
        "// managed\n{\"lastLoggedInUser\": {\"login\": \"u\"}}".to_string(),
    )];
    assert!(matches!(Copilot.sign_in(&[], &login), SignIn::Ready(_)));
    assert!(matches!(Copilot.sign_in(&[], &[]), SignIn::Missing { .. }));
}

#[test]
fn every_record_the_readers_use_passes_the_token_filter() {
    for kind in [
        "user.message",
        "assistant.message",
        "tool.execution_complete",
        "session.usage_record",
        "assistant.turn_end",
        "abort",
        "session.error",
        "hook.start",
    ] {
        let token = format!("\"{kind}\"");
        assert!(Copilot.record_tokens().contains(&token.as_str()), "{kind}");
    }
}

/// The recorded hooks as the event log holds them, classified, one per line.
fn logged(hooks: &str) -> Vec<crate::core::wait::ClassifiedEvent> {
    let hooks = hooks.replace("\"payload\":", "\"stdin\":");
    classified_hooks(&Copilot, &hooks)
        .into_iter()
        .enumerate()
        .map(|(i, (event, _, class))| crate::core::test_data::event(i, &event, class))
        .collect()
}

#[test]
fn a_tool_its_deny_rules_refuse_is_never_a_wait_for_a_person() {
    let events = logged(DENY_RULE_HOOKS);
    let kinds: Vec<&str> = events.iter().map(|e| e.record.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "Stop"
        ]
    );
    let alive = crate::core::wait::Liveness::Alive;
    for upto in 1..=events.len() {
        let seen = &events[..upto];
        assert_eq!(crate::core::approvals::pending(seen), None, "after {upto}");
        let outcome = crate::core::wait::decide(seen, 0, &alive, None);
        let kind = outcome.map(|o| o.outcome);
        let want = (upto == events.len()).then_some(crate::core::outcome::OutcomeKind::Stop);
        assert_eq!(kind, want, "after {upto} hooks");
    }
}

#[test]
fn a_dialogs_notice_asks_about_the_tool_its_permission_hook_named() {
    let events = logged(&hooks("1.0.102").replace("\"stdin\":", "\"payload\":"));
    let notice = events
        .iter()
        .position(|e| e.record.kind == "Notification")
        .expect("a Notification");
    assert_eq!(crate::core::approvals::pending(&events[..notice]), None);
    let asked = crate::core::approvals::pending(&events[..=notice]).expect("asked");
    assert_eq!((asked.reason, asked.index), ("permission", notice));
    assert_eq!(asked.tool_name(), Some("bash"));
    assert_eq!(
        asked.tool_input().map(|i| &i["command"]),
        Some(&json!("echo hi > out.txt"))
    );
}

/// The `permissionRequest` hook in copilot's own shape a launch adds: the decision of
/// `--on-permission` from the first prompt (the flags apply later: issue 42), none for `stop`.
#[test]
fn a_permission_decision_hook_answers_for_allow_and_deny_only() {
    let decision_hooks = |on: OnPermission| {
        let input = LaunchInput {
            on_permission: on,
            ..launch_input("/s/w")
        };
        let spec = Copilot.launch(&input).unwrap();
        let settings: Value = serde_json::from_str(&spec.files[0].1).unwrap();
        settings["hooks"]["permissionRequest"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    assert!(decision_hooks(OnPermission::Stop).is_empty());
    let allow = decision_hooks(OnPermission::Allow);
    assert_eq!(allow.len(), 1);
    assert_eq!(allow[0]["type"], "command");
    assert_eq!(allow[0]["timeoutSec"], 30);
    let command = allow[0]["bash"].as_str().unwrap();
    assert!(command.ends_with(r#"'{"behavior":"allow"}'"#), "{command}");
    let deny = decision_hooks(OnPermission::Deny);
    let command = deny[0]["bash"].as_str().unwrap();
    for tool in ["bash", "edit", "create"] {
        assert!(
            command.contains(&format!(r#"*'"toolName":"{tool}"'*"#)),
            "{command}"
        );
    }
    assert!(command.contains(r#""behavior":"deny""#), "{command}");
    assert!(!command.contains(r#""toolName":"view""#), "{command}");
}

/// Ready at its idle status line, not while it still loads under a drawn input line (recorded
/// under umbel on 1.0.102: `umbel mode` right after such a spawn found no mode yet).
#[test]
fn its_idle_status_line_is_ready_its_loading_one_is_not() {
    for idle in [
        fixture!("copilot/1.0.102/copilot-1.0.102-idle.txt"),
        fixture!("copilot/1.0.102/copilot-1.0.102-box-idle.txt"),
        fixture!("copilot/1.0.89/copilot-1.0.89-idle.txt"),
    ] {
        assert_eq!(Copilot.startup_screen(idle), StartupScreen::Idle);
        assert!(Copilot.ready_on_screen(idle), "{idle}");
    }
    let loading = fixture!("copilot/1.0.102/copilot-1.0.102-loading.txt");
    assert_eq!(Copilot.startup_screen(loading), StartupScreen::Idle);
    assert!(!Copilot.ready_on_screen(loading));
}
