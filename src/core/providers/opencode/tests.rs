//! OpenCode provider tests on the real 1.18.33 bus events, worker record and print output.

use super::*;
use crate::core::test_data::{assert_turn, env, fixture};
use serde_json::json;

/// The worker record of one `opencode run` turn on 1.18.33 against fake-model: the bus events
/// a probe plugin heard, kept as umbel's plugin keeps them (messages, a prompt's first version
/// only, and parts).
const RECORD: &str = crate::core::test_data::OPENCODE_RECORD;
/// The bus events of that turn as the plugin hears them (`{"type", "properties"}`).
const EVENTS: &str = fixture!("opencode/1.18.33/opencode-1.18.33-events-text-turn.jsonl");

fn events_of(kind: &str) -> Vec<Value> {
    EVENTS
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| str_field(e, "type") == Some(kind))
        .map(|e| e["properties"].clone())
        .collect()
}

fn launch(on_permission: OnPermission) -> LaunchSpec {
    let input = LaunchInput {
        on_permission,
        ..crate::core::test_data::launch_input("/s/sessions/w")
    };
    Opencode.launch(&input).unwrap()
}

fn config_of(spec: &LaunchSpec) -> Value {
    let (_, text) = spec.env.iter().find(|(k, _)| k == CONFIG_VAR).unwrap();
    serde_json::from_str(text).unwrap()
}

#[test]
fn the_recorded_bus_events_mean_submit_and_turn_end() {
    let busy = events_of("session.status");
    assert_eq!(
        Opencode.classify("SessionBusy", busy.first()),
        EventClass::Submitted
    );
    let idle = json!({"sessionID": "ses_x", "status": {"type": "idle"}});
    assert_eq!(
        Opencode.classify("SessionStatus", Some(&idle)),
        EventClass::Other
    );
    // send confirms a submit from the hook's name alone, without its payload; the TUI keeps
    // showing a first prompt until its session is made, so the earliest proof counts.
    for taken in ["SessionCreated", "PromptTaken", "SessionBusy"] {
        assert_eq!(
            Opencode.classify(taken, None),
            EventClass::Submitted,
            "{taken}"
        );
    }
    assert_eq!(Opencode.classify("SessionStatus", None), EventClass::Other);
    let ended = events_of("session.idle");
    assert_eq!(
        Opencode.classify("SessionIdle", ended.first()),
        EventClass::TurnEnded
    );
    assert_eq!(Opencode.classify("PluginStart", None), EventClass::Started);
}

#[test]
fn a_session_error_fails_the_turn_and_an_abort_is_an_interrupt() {
    let api = json!({"sessionID": "s", "error": {"name": "APIError", "data": {"message": "boom", "statusCode": 400}}});
    assert_eq!(
        Opencode.classify("SessionError", Some(&api)),
        EventClass::TurnFailed {
            reason: "api-error"
        }
    );
    let aborted = json!({"sessionID": "s", "error": {"name": "MessageAbortedError", "data": {"message": "Aborted"}}});
    // An Esc abort may end the turn with `session.idle` alone: the plugin hands the idle hook
    // the aborted message's error.
    assert_eq!(
        Opencode.classify("SessionIdle", Some(&aborted)),
        EventClass::TurnFailed {
            reason: "interrupted"
        }
    );
    assert_eq!(
        Opencode.classify("SessionError", Some(&aborted)),
        EventClass::TurnFailed {
            reason: "interrupted"
        }
    );
}

#[test]
fn a_permission_question_needs_input_and_names_the_tool() {
    // `permission.asked` as opencode 1.18 publishes it (packages/opencode/src/permission).
    let asked = json!({"id": "per_1", "sessionID": "s", "permission": "bash",
        "patterns": ["touch x"], "metadata": {"command": "touch x"}, "always": ["touch *"],
        "tool": {"messageID": "msg_1", "callID": "toolu_1"}});
    assert_eq!(
        Opencode.classify("PermissionAsked", Some(&asked)),
        EventClass::NeedsInput {
            reason: "permission",
            tool: Some(json!({"name": "bash", "input": {"command": "touch x"}})),
        }
    );
    assert_eq!(
        Opencode.classify("PermissionReplied", None),
        EventClass::Progress
    );
    // The tool's part turning `running` can be published after the permission its run asks
    // for (recorded on 1.18.33): not a sign the question was answered; its end is.
    let part =
        |status: &str| json!({"type": "tool", "callID": "toolu_1", "state": {"status": status}});
    assert_eq!(
        Opencode.classify("ToolUpdate", Some(&part("running"))),
        EventClass::Other
    );
    assert_eq!(
        Opencode.classify("ToolUpdate", Some(&part("completed"))),
        EventClass::Progress
    );
}

#[test]
fn the_recorded_turn_reads_its_prompt_answer_and_end() {
    let turn = Opencode.last_turn(&mut RECORD.lines().rev().map(str::to_string));
    assert_turn(
        &turn,
        "\"say hi four\"",
        Some("Response to: \"say hi four\""),
    );
    assert!(turn.ended, "{turn:?}");
    assert!(!turn.is_error);
    assert_eq!(turn.output_tokens, Some(12));
}

#[test]
fn a_turn_still_streaming_has_not_ended() {
    // The record up to the assistant message's first version (no `time.completed`).
    let lines: Vec<&str> = RECORD.lines().collect();
    let first_assistant = lines
        .iter()
        .position(|l| l.contains("\"role\":\"assistant\""))
        .unwrap();
    let turn = Opencode.last_turn(
        &mut lines[..=first_assistant]
            .iter()
            .rev()
            .map(|l| l.to_string()),
    );
    assert_eq!(turn.prompt.as_deref(), Some("\"say hi four\""));
    assert!(!turn.ended, "{turn:?}");
}

#[test]
fn an_assistant_error_is_the_turn_failing() {
    let records = [
        json!({"type": "message", "info": {"id": "msg_1u", "role": "user", "sessionID": "s"}}),
        json!({"type": "part", "part": {"id": "prt_u", "messageID": "msg_1u", "type": "text", "text": "hi"}}),
        json!({"type": "message", "info": {"id": "msg_2a", "role": "assistant", "sessionID": "s",
            "time": {"created": 1, "completed": 2},
            "error": {"name": "APIError", "data": {"message": "overloaded", "statusCode": 529}}}}),
    ];
    let turn = Opencode.turn_from_records(&mut records.into_iter().rev());
    assert_eq!(turn.prompt.as_deref(), Some("hi"));
    assert!(turn.ended && turn.is_error);
    assert_eq!(turn.error_reason, Some("api-error"));
    assert_eq!(turn.answer.as_deref(), Some("overloaded"));
}

/// opencode rewrites an aborted message after the abort, sometimes after the next prompt's
/// records: that late line belongs to the turn before, not to the one it follows in the file.
#[test]
fn an_older_message_updated_late_is_no_part_of_the_next_turn() {
    let aborted = json!({"name": "MessageAbortedError", "data": {"message": "Aborted"}});
    let records = [
        json!({"type": "message", "info": {"id": "msg_1", "role": "user"}}),
        json!({"type": "part", "part": {"id": "prt_1", "messageID": "msg_1", "type": "text", "text": "long task"}}),
        json!({"type": "part", "part": {"id": "prt_2", "messageID": "msg_2", "type": "text", "text": "word word"}}),
        json!({"type": "message", "info": {"id": "msg_2", "role": "assistant", "error": aborted}}),
        json!({"type": "message", "info": {"id": "msg_3", "role": "user"}}),
        json!({"type": "part", "part": {"id": "prt_3", "messageID": "msg_3", "type": "text", "text": "next one"}}),
        json!({"type": "part", "part": {"id": "prt_4", "messageID": "msg_4", "type": "text", "text": "short answer"}}),
        json!({"type": "message", "info": {"id": "msg_4", "role": "assistant",
            "time": {"created": 1, "completed": 2}, "finish": "stop", "tokens": {"output": 3}}}),
        json!({"type": "part", "part": {"id": "prt_2", "messageID": "msg_2", "type": "text", "text": "word word word"}}),
        json!({"type": "message", "info": {"id": "msg_2", "role": "assistant", "error": aborted,
            "tokens": {"output": 9}}}),
    ];
    let turn = Opencode.turn_from_records(&mut records.into_iter().rev());
    assert_eq!(turn.prompt.as_deref(), Some("next one"));
    assert_eq!(turn.answer.as_deref(), Some("short answer"));
    assert!(turn.ended && !turn.is_error, "{turn:?}");
    assert_eq!(turn.output_tokens, Some(3));
}

#[test]
fn an_older_message_updated_late_counts_in_no_stats_of_the_next_turn() {
    let aborted = json!({"name": "MessageAbortedError", "data": {"message": "Aborted"}});
    // The turn's records as the last-turn reading cuts them: from its prompt on, the earlier
    // turn's two aborted messages rewritten after it.
    let records = [
        json!({"type": "message", "info": {"id": "msg_3", "role": "user"}}),
        json!({"type": "message", "info": {"id": "msg_1a", "role": "assistant", "error": aborted,
            "modelID": "m", "tokens": {"output": 9}}}),
        json!({"type": "part", "part": {"id": "prt_9", "messageID": "msg_1a", "type": "tool",
            "tool": "bash", "callID": "c1", "state": {"status": "error", "error": "aborted"}}}),
        json!({"type": "message", "info": {"id": "msg_4", "role": "assistant", "modelID": "m",
            "time": {"created": 1, "completed": 2}, "finish": "stop", "tokens": {"output": 3}}}),
        json!({"type": "message", "info": {"id": "msg_2a", "role": "assistant", "error": aborted,
            "modelID": "m", "tokens": {"output": 9}}}),
    ];
    let stats = Opencode.turn_stats(&records);
    let total = stats.total();
    assert_eq!((total.requests, total.output), (1, 3), "{stats:?}");
    assert!(
        stats.tools.is_empty() && stats.api_error.is_none(),
        "{stats:?}"
    );
}

#[test]
fn a_step_that_called_tools_does_not_end_the_turn() {
    let records = [
        json!({"type": "message", "info": {"id": "msg_1u", "role": "user"}}),
        json!({"type": "message", "info": {"id": "msg_2a", "role": "assistant",
            "time": {"created": 1, "completed": 2}, "finish": "tool-calls"}}),
    ];
    let turn = Opencode.turn_from_records(&mut records.into_iter().rev());
    assert!(!turn.ended, "{turn:?}");
}

#[test]
fn the_launch_loads_umbels_plugin_and_keeps_the_users_permissions_by_default() {
    let spec = launch(OnPermission::Stop);
    let plugin = Path::new("/s/sessions/w").join(PLUGIN_FILE);
    let transcript = Path::new("/s/sessions/w").join(TRANSCRIPT_FILE);
    assert_eq!(spec.transcript_path.as_deref(), Some(transcript.as_path()));
    let config = config_of(&spec);
    assert_eq!(
        config["plugin"],
        json!([format!("file://{}", plugin.display())])
    );
    assert!(config.get("permission").is_none(), "{config}");
    let (_, source) = spec.files.iter().find(|(p, _)| *p == plugin).unwrap();
    let umbel_line = source
        .lines()
        .find(|l| l.starts_with("const UMBEL = "))
        .unwrap();
    let umbel: Value = serde_json::from_str(
        umbel_line
            .trim_start_matches("const UMBEL = ")
            .trim_end_matches(';'),
    )
    .unwrap();
    assert_eq!(umbel["transcript"], json!(transcript.to_string_lossy()));
    assert_eq!(umbel["hook"], "sh e");
    for event in HOOK_EVENTS.iter().filter(|e| **e != "PluginStart") {
        assert!(source.contains(&format!("\"{event}\"")), "{event}");
    }
}

#[test]
fn unattended_allows_every_tool_and_deny_refuses_what_would_ask() {
    assert_eq!(
        config_of(&launch(OnPermission::Allow))["permission"],
        "allow"
    );
    let deny = config_of(&launch(OnPermission::Deny));
    assert_eq!(deny["permission"]["bash"], "deny");
    assert_eq!(deny["permission"]["edit"], "deny");
}

#[test]
fn the_model_goes_to_dash_m() {
    let input = LaunchInput {
        model: Some("anthropic/claude-sonnet-4-5"),
        ..crate::core::test_data::launch_input("/s/sessions/w")
    };
    let spec = Opencode.launch(&input).unwrap();
    assert_eq!(spec.args, ["-m", "anthropic/claude-sonnet-4-5"]);
}

#[test]
fn the_config_folder_follows_xdg() {
    assert_eq!(
        Opencode.config_dir(&env(&[("HOME", "/h")])),
        Some(PathBuf::from("/h/.config/opencode"))
    );
    assert_eq!(
        Opencode.config_dir(&env(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")])),
        Some(PathBuf::from("/x/opencode"))
    );
}

#[test]
fn the_recorded_turns_tool_calls_are_its_actions() {
    let records: Vec<Value> = [
        json!({"type": "part", "part": {"id": "prt_t", "type": "tool", "tool": "bash", "callID": "c1",
            "state": {"status": "running", "input": {"command": "touch x"}}}}),
        json!({"type": "part", "part": {"id": "prt_t", "type": "tool", "tool": "bash", "callID": "c1",
            "state": {"status": "completed", "input": {"command": "touch x"}, "output": ""}}}),
    ]
    .into();
    let actions = Opencode.turn_actions(&records);
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].tool, "bash");
    assert_eq!(actions[0].input, "touch x");
    assert_eq!(
        actions[0].status,
        crate::core::providers::tool_action::ActionStatus::Ok
    );
}

#[test]
fn doctor_finds_a_key_a_saved_sign_in_or_a_configured_provider() {
    let home = env(&[("HOME", "/h")]);
    assert_eq!(
        Opencode.sign_in_files(&home),
        [
            PathBuf::from("/h/.local/share/opencode/auth.json"),
            PathBuf::from("/h/.config/opencode/opencode.json"),
            PathBuf::from("/h/.config/opencode/node_modules/@opencode-ai/plugin/package.json"),
        ]
    );
    let sdk = (
        PathBuf::from("/h/.config/opencode/node_modules/@opencode-ai/plugin/package.json"),
        r#"{"name":"@opencode-ai/plugin","version":"1.18.33"}"#.to_string(),
    );
    let key = env(&[("HOME", "/h"), ("ANTHROPIC_API_KEY", "k")]);
    assert!(matches!(
        Opencode.sign_in(&key, std::slice::from_ref(&sdk)),
        SignIn::Ready(_)
    ));
    // Without the plugin SDK opencode waits for its own npm install before its TUI shows.
    let SignIn::Missing { detail, fix } = Opencode.sign_in(&key, &[]) else {
        panic!("no SDK is no start")
    };
    assert!(detail.contains("/h/.config/opencode"), "{detail}");
    assert!(
        fix.contains("npm install --prefix /h/.config/opencode @opencode-ai/plugin@"),
        "{fix}"
    );
    let auth = [
        sdk.clone(),
        (
            PathBuf::from("/h/auth.json"),
            r#"{"anthropic":{"type":"api","key":"k"}}"#.to_string(),
        ),
    ];
    assert!(matches!(Opencode.sign_in(&home, &auth), SignIn::Ready(_)));
    let config = [
        sdk.clone(),
        (
            PathBuf::from("/h/opencode.json"),
            r#"{"provider":{"anthropic":{"options":{"baseURL":"http://x"}}}}"#.to_string(),
        ),
    ];
    assert!(matches!(Opencode.sign_in(&home, &config), SignIn::Ready(_)));
    assert!(matches!(
        Opencode.sign_in(&home, &[sdk]),
        SignIn::Missing { .. }
    ));
}

/// The real 1.18.33 TUI under umbel's tmux against fake-model (120 columns).
const IDLE: &str = fixture!("opencode/1.18.33/opencode-1.18.33-screen-idle.txt");
/// A turn running: `esc interrupt` under the empty input box.
const BUSY: &str = fixture!("opencode/1.18.33/opencode-1.18.33-screen-busy.txt");
/// `bash` with `"permission": {"bash": "ask"}`: the dialog in the input box's place.
const PERMISSION: &str = fixture!("opencode/1.18.33/opencode-1.18.33-screen-permission.txt");

#[test]
fn the_recorded_screens_are_idle_busy_and_a_permission_question() {
    crate::core::test_data::assert_screens(
        &Opencode,
        &[
            (IDLE, StartupScreen::Idle),
            (BUSY, StartupScreen::Other),
            (PERMISSION, StartupScreen::Person(PERMISSION_TITLE.into())),
        ],
    );
}

#[test]
fn the_input_is_the_box_above_its_agent_row_and_the_placeholder_is_no_input() {
    crate::core::test_data::assert_pending(&Opencode, &[(IDLE, false), (BUSY, false)]);
    let typed = IDLE.replace(
        "Ask anything… \"Fix a TODO in the codebase\"",
        "say hi please            ",
    );
    crate::core::test_data::assert_pending(&Opencode, &[(&typed, true)]);
    let (row, text) = Opencode.input_line_at(&typed).unwrap();
    assert_eq!(text, "say hi please");
    assert_eq!(typed.lines().nth(row).unwrap().trim(), "┃  say hi please");
    // A line more in the box (an Enter read as a newline) is a longer input area.
    let two = typed.replacen("say hi please            ", "say hi please\n┃ ", 1);
    assert!(
        Opencode.input_area(&two).unwrap().lines().count()
            > Opencode.input_area(&typed).unwrap().lines().count()
    );
    assert_eq!(Opencode.busy_marker(), Some("esc interrupt"));
}

/// The hooks' payloads name opencode's session as `sessionID` (its bus events as the plugin
/// hands them on): that is the id umbel reports and resumes with `--session`.
#[test]
fn the_session_id_is_the_events_session_id() {
    let created = &events_of("session.created")[0];
    assert_eq!(
        payload_session_id(created),
        Some("ses_dbccdf066ffeQOvkl4LkDhzldI")
    );
    assert_eq!(payload_session_id(&json!({ "session_id": "u" })), Some("u"));
    assert_eq!(payload_session_id(&json!({ "sessionID": "" })), None);
    assert_eq!(payload_session_id(&json!({})), None);
}

/// opencode's TUI interrupts on the second Esc within 5 s (its `session_interrupt` keybind):
/// one Esc only shows `esc again to interrupt`.
#[test]
fn an_interrupt_is_two_escs() {
    assert_eq!(Opencode.interrupt_keys(), ["Escape", "Escape"]);
}

/// One prompt fires `SessionCreated` (the first only), `PromptTaken` and `SessionBusy`: a
/// budget counts it once.
#[test]
fn a_prompt_is_counted_once_of_its_submit_hooks() {
    let p = Provider::Opencode.module();
    let counted: Vec<&str> = [
        "SessionCreated",
        "PromptTaken",
        "SessionBusy",
        "SessionIdle",
    ]
    .into_iter()
    .filter(|e| p.counts_prompt(e))
    .collect();
    assert_eq!(counted, ["PromptTaken"]);
    assert!(Provider::Claude.module().counts_prompt("UserPromptSubmit"));
}
