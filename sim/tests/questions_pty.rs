//! The question dialogs in a pseudo-terminal (no tmux): a scenario's `permission` end naming
//! the CLI's question tool (claude `AskUserQuestion`, gemini `ask_user`, qwen
//! `ask_user_question`, opencode `question`) shows the question the way the real CLI did in the
//! recordings (rec-out `*-q-2`, `*-q-esc`, `claude-q-down-enter`), with its hooks; `2` picks
//! Blue at once and the turn goes on to its reply; Esc declines and the next prompt answers.

mod common;

use std::time::Duration;

use common::claude::Sandbox as Claude;
use common::opencode::Opencode;
use common::pty::{exp, send, spawn, step};
use common::qwen::Qwen;
use common::{Sim, read_jsonl};
use rexpect::session::PtySession;
use serde_json::{Value, json};

const QUESTION: &str = "Which color should the button be?";

/// The recordings' question as the CLI's model asks it (`flag`: the multi-select field's name
/// and value, and gemini's `type`).
fn questions(extra: &[(&str, Value)]) -> Value {
    let mut q = json!({"question": QUESTION, "header": "Color",
        "options": [{"label": "Red", "description": "A red button"},
                    {"label": "Blue", "description": "A blue button"}]});
    for (k, v) in extra {
        q[*k] = v.clone();
    }
    json!({ "questions": [q] })
}

/// "ask me" asks through `tool`, then replies "You chose it."; "next" answers "Second.".
fn scenario(tool: &str, input: &Value) -> String {
    json!({ "turns": [
        { "match": "ask me", "reply": "You chose it.", "end": { "permission": { "tool": tool, "input": input } } },
        { "match": "next", "reply": "Second." }
    ] })
    .to_string()
}

/// Keys that must do nothing in the dialog: a digit past the choices, a letter.
fn idle_keys(p: &mut PtySession) {
    send(p, "3");
    send(p, "x");
    std::thread::sleep(Duration::from_millis(150));
}

/// Events after the first `from`.
fn since(events: &[String], from: &str) -> Vec<String> {
    let at = events.iter().position(|e| e == from).map_or(0, |i| i + 1);
    events[at..].to_vec()
}

fn claude_asking(name: &str) -> (Claude, PtySession, Value) {
    let s = Claude::new(name).signed_in(true);
    let settings = s.settings(&[
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "Notification",
        "PostToolUse",
        "PostToolBatch",
        "Stop",
    ]);
    let input = questions(&[("multiSelect", json!(false))]);
    let mut p = spawn(
        &s,
        &scenario("AskUserQuestion", &input),
        &["--settings", &settings],
    );
    exp(&mut p, "? for shortcuts");
    let shown = step(&mut p, "ask me\r", "Esc to cancel");
    for line in [
        QUESTION,
        "☐ Color",
        "❯ 1. Red",
        "A blue button",
        "3. Type something.",
        "4. Chat about this",
        "Enter to select",
    ] {
        assert!(shown.contains(line), "{line:?} not in {shown}");
    }
    assert!(!shown.contains("1. Yes"), "the approval dialog: {shown}");
    let asked = ["UserPromptSubmit", "PreToolUse", "PermissionRequest"];
    assert_eq!(s.events_after(3), asked);
    let request = &s.payloads()[2];
    assert_eq!(request["tool_name"], "AskUserQuestion");
    assert_eq!(request["tool_input"], input);
    assert!(request.get("permission_suggestions").is_none(), "{request}");
    (s, p, input)
}

#[test]
fn claude_2_answers_blue_and_the_turn_ends_with_stop() {
    let (s, mut p, input) = claude_asking("q-claude-2");
    idle_keys(&mut p);
    assert_eq!(s.events().len(), 3, "3 and x did nothing");
    step(&mut p, "2", "Answered Claude's questions:");
    exp(&mut p, &format!("{QUESTION} → Blue"));
    exp(&mut p, "● You chose it.");
    exp(&mut p, "? for shortcuts");
    let after = since(&s.events_after(6), "PermissionRequest");
    assert_eq!(after, ["PostToolUse", "PostToolBatch", "Stop"]);
    let post = &s.payloads()[3];
    let mut answered = input.clone();
    answered["answers"] = json!({ QUESTION: "Blue" });
    answered["annotations"] = json!({});
    assert_eq!(post["tool_input"], answered);
    assert_eq!(post["tool_response"], answered);
    let told = format!(
        "Your questions have been answered: \"{QUESTION}\"=\"Blue\". You can now continue with these answers in mind."
    );
    assert_eq!(s.payloads()[4]["tool_calls"][0]["tool_response"], told);
    assert_eq!(s.payloads()[5]["last_assistant_message"], "You chose it.");
    let records = read_jsonl(&s.transcript());
    let result = records
        .iter()
        .find(|r| r["message"]["content"][0]["type"] == "tool_result")
        .expect("a tool_result");
    assert_eq!(result["message"]["content"][0]["content"], told);
    assert_eq!(result["toolUseResult"]["answers"][QUESTION], "Blue");
}

#[test]
fn claude_down_and_enter_pick_the_second_choice_too() {
    let (s, mut p, _) = claude_asking("q-claude-down");
    step(&mut p, "\x1b[B", "❯ 2. Blue");
    step(&mut p, "\r", &format!("{QUESTION} → Blue"));
    exp(&mut p, "? for shortcuts");
    assert_eq!(
        s.events_after(6)[3..],
        ["PostToolUse", "PostToolBatch", "Stop"]
    );
}

#[test]
fn claude_esc_declines_with_no_hook_and_the_next_prompt_answers() {
    let (s, mut p, _) = claude_asking("q-claude-esc");
    step(&mut p, "\x1b", "Declined to answer Claude's questions:");
    exp(&mut p, &format!("{QUESTION} (Red / Blue)"));
    let shown = exp(&mut p, "? for shortcuts");
    assert!(!shown.contains("Interrupted"), "{shown}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(s.events().len(), 3, "no hook: {:?}", s.events());
    let last = read_jsonl(&s.transcript()).pop().unwrap();
    assert_eq!(
        last["message"]["content"][0]["text"],
        "[Request interrupted by user for tool use]"
    );
    step(&mut p, "next\r", "● Second.");
    assert_eq!(s.events_after(5)[3..], ["UserPromptSubmit", "Stop"]);
}

fn gemini_asking(name: &str) -> (common::gemini::Sandbox, PtySession, Value) {
    let events = [
        "BeforeAgent",
        "BeforeTool",
        "Notification",
        "AfterTool",
        "AfterAgent",
    ];
    let s = common::gemini::ready(name, &events);
    let input = questions(&[("type", json!("choice")), ("multiSelect", json!(false))]);
    let mut p = spawn(&s, &scenario("ask_user", &input), &[]);
    exp(&mut p, "? for shortcuts");
    let shown = step(&mut p, "ask me\r", "Esc to cancel");
    for line in [
        "Answer Questions",
        QUESTION,
        "● 1.  Red",
        "2.  Blue",
        "A blue button",
        "3.  Enter a custom value",
        "Enter to select",
    ] {
        assert!(shown.contains(line), "{line:?} not in {shown}");
    }
    assert!(
        !shown.contains("1. Allow once"),
        "the approval dialog: {shown}"
    );
    assert_eq!(
        s.events_after(3),
        ["BeforeAgent", "BeforeTool", "Notification"]
    );
    let before = &s.payloads()[1];
    assert_eq!(before["tool_name"], "ask_user");
    assert_eq!(before["tool_input"], input);
    let note = &s.payloads()[2];
    assert_eq!(note["notification_type"], "ToolPermission");
    assert_eq!(note["message"], "Tool requires confirmation");
    assert_eq!(
        note["details"],
        json!({"type": "ask_user", "title": "Ask User"})
    );
    (s, p, input)
}

#[test]
fn gemini_2_answers_blue_and_after_agent_follows() {
    let (s, mut p, input) = gemini_asking("q-gemini-2");
    idle_keys(&mut p);
    assert_eq!(s.events().len(), 3, "3 and x did nothing");
    step(&mut p, "2", "✓  Ask User");
    exp(&mut p, "Color → Blue");
    exp(&mut p, "✦ You chose it.");
    assert_eq!(s.events_after(5)[3..], ["AfterTool", "AfterAgent"]);
    let after = &s.payloads()[3];
    assert_eq!(after["tool_input"], input);
    let response = json!({"llmContent": "{\"answers\":{\"0\":\"Blue\"}}",
        "returnDisplay": "**User answered:**\n  Color → Blue"});
    assert_eq!(after["tool_response"], response);
    assert_eq!(s.payloads()[4]["prompt_response"], "You chose it.");
}

#[test]
fn gemini_esc_cancels_the_request_with_no_hook_and_the_next_prompt_answers() {
    let (s, mut p, _) = gemini_asking("q-gemini-esc");
    step(&mut p, "\x1b", "Request cancelled.");
    exp(&mut p, "? for shortcuts");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(s.events().len(), 3, "no hook: {:?}", s.events());
    step(&mut p, "next\r", "✦ Second.");
    assert_eq!(s.events_after(5)[3..], ["BeforeAgent", "AfterAgent"]);
}

fn qwen_asking(name: &str) -> (Qwen, PtySession, Value) {
    let s = Qwen::new(name);
    let input = questions(&[("multiSelect", json!(false))]);
    let mut p = spawn(&s, &scenario("ask_user_question", &input), &[]);
    exp(&mut p, "Type your message or @path/to/file");
    let shown = step(&mut p, "ask me\r", "Esc: Cancel");
    for line in [
        "? AskUserQuestion Ask user 1 question",
        "Color",
        QUESTION,
        "❯ 1. Red",
        "2. Blue",
        "A blue button",
        "3. Type something...",
        "Enter: Select",
    ] {
        assert!(shown.contains(line), "{line:?} not in {shown}");
    }
    assert!(
        !shown.contains("1. Yes, allow once"),
        "the approval dialog: {shown}"
    );
    assert_eq!(s.events_after(3).len(), 3);
    let want = [
        ("UserPromptSubmit", ""),
        ("PermissionRequest", ""),
        ("Notification", "permission_prompt"),
    ];
    assert_eq!(s.fired(), want.map(|(e, k)| (e.to_string(), k.to_string())));
    let request = &s.payloads()[1];
    assert_eq!(request["tool_name"], "ask_user_question");
    assert_eq!(request["tool_input"], input);
    (s, p, input)
}

#[test]
fn qwen_2_answers_blue_then_the_turn_ends_as_an_allowed_call_does() {
    let (s, mut p, input) = qwen_asking("q-qwen-2");
    idle_keys(&mut p);
    assert_eq!(s.events().len(), 3, "3 and x did nothing");
    step(&mut p, "2", "✓ AskUserQuestion Ask user 1 question");
    exp(&mut p, "**Color**: Blue");
    exp(&mut p, "You chose it.");
    assert_eq!(s.events_after(8).len(), 8);
    let after: Vec<(String, String)> = s.fired()[3..].to_vec();
    let want = [
        ("PreToolUse", ""),
        ("PostToolUse", ""),
        ("UserPromptSubmit", ""),
        ("Stop", ""),
        ("Notification", "idle_prompt"),
    ];
    assert_eq!(after, want.map(|(e, k)| (e.to_string(), k.to_string())));
    let post = &s.payloads()[4];
    assert_eq!(post["tool_input"], input);
    let told = "User has provided the following answers:\n\n**Color**: Blue";
    assert_eq!(
        post["tool_response"],
        json!({"llmContent": told, "returnDisplay": told})
    );
    assert_eq!(s.payloads()[5]["prompt"], "");
    assert_eq!(s.payloads()[6]["last_assistant_message"], "You chose it.");
}

#[test]
fn qwen_esc_fires_only_the_idle_notice_and_the_next_prompt_answers() {
    let (s, mut p, _) = qwen_asking("q-qwen-esc");
    send(&mut p, "\x1b");
    let shown = exp(&mut p, "Type your message or @path/to/file");
    assert!(
        shown.contains("- AskUserQuestion Ask user 1 question"),
        "{shown}"
    );
    assert_eq!(s.events_after(4).len(), 4);
    let idle = ("Notification".to_string(), "idle_prompt".to_string());
    assert_eq!(s.fired()[3..], [idle]);
    step(&mut p, "next\r", "Second.");
    assert_eq!(s.events_after(7).len(), 7);
    assert_eq!(s.payloads()[4]["prompt"], "next");
}

fn opencode_asking(name: &str) -> (Opencode, PtySession, Value) {
    let s = Opencode::new(name);
    let input = questions(&[("multiple", json!(false))]);
    let mut p = spawn(&s, &scenario("question", &input), &[]);
    exp(&mut p, "Ask anything");
    let shown = step(&mut p, "ask me\r", "esc dismiss");
    for line in [
        "→ Asked 1 question",
        QUESTION,
        "1. Red",
        "2. Blue",
        "A blue button",
        "3. Type your own answer",
        "enter submit",
    ] {
        assert!(shown.contains(line), "{line:?} not in {shown}");
    }
    assert!(
        !shown.contains("Permission required"),
        "the approval dialog: {shown}"
    );
    let events = s.events_after(6);
    assert_eq!(
        since(&events, "SessionBusy"),
        ["QuestionAsked", "ToolUpdate"],
        "{events:?}"
    );
    let (asked, running) = {
        let after = s.after("SessionBusy");
        (after[0].1.clone(), after[1].1.clone())
    };
    assert_eq!(asked["questions"], input["questions"]);
    assert!(
        asked["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("que_")),
        "{asked}"
    );
    assert_eq!(asked["tool"]["callID"], running["callID"]);
    assert_eq!(asked["tool"]["messageID"], running["messageID"]);
    assert_eq!(running["tool"], "question");
    assert_eq!(running["state"]["status"], "running");
    (s, p, asked)
}

#[test]
fn opencode_2_replies_blue_and_the_tool_completes_then_idle() {
    let (s, mut p, asked) = opencode_asking("q-opencode-2");
    idle_keys(&mut p);
    assert_eq!(
        since(&s.events(), "SessionBusy").len(),
        2,
        "3 and x did nothing"
    );
    step(&mut p, "2", "# Questions");
    exp(&mut p, "You chose it.");
    let events = s.events_after(10);
    let want = [
        "QuestionReplied",
        "ToolUpdate",
        "SessionStatus",
        "SessionIdle",
    ];
    assert_eq!(since(&events, "ToolUpdate"), want, "{events:?}");
    let after = s.after("ToolUpdate");
    let replied = &after[0].1;
    assert_eq!(replied["requestID"], asked["id"]);
    assert_eq!(replied["answers"], json!([["Blue"]]));
    let state = &after[1].1["state"];
    assert_eq!(state["status"], "completed");
    let told = format!(
        "User has answered your questions: \"{QUESTION}\"=\"Blue\". You can now continue with the user's answers in mind."
    );
    assert_eq!(state["output"], told);
    assert_eq!(state["metadata"]["answers"], json!([["Blue"]]));
    assert_eq!(state["title"], "Asked 1 question");
}

#[test]
fn opencode_esc_dismisses_the_question_the_tool_fails_and_the_next_prompt_answers() {
    let (s, mut p, asked) = opencode_asking("q-opencode-esc");
    send(&mut p, "\x1b");
    let events = s.events_after(10);
    let want = [
        "QuestionRejected",
        "ToolUpdate",
        "SessionStatus",
        "SessionIdle",
    ];
    assert_eq!(since(&events, "ToolUpdate"), want, "{events:?}");
    let after = s.after("ToolUpdate");
    assert_eq!(after[0].1["requestID"], asked["id"]);
    let state = &after[1].1["state"];
    assert_eq!(state["status"], "error");
    assert_eq!(state["error"], "The user dismissed this question");
    exp(&mut p, "Ask anything");
    step(&mut p, "next\r", "Second.");
    let next = s.events_after(14)[10..].to_vec();
    assert_eq!(
        next,
        ["PromptTaken", "SessionBusy", "SessionStatus", "SessionIdle"]
    );
}
