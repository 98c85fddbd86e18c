//! `approve`, `deny`, `answer` and `approvals` on the fakes: what is refused (with nothing
//! pressed), how a second answer is told, and what `events` says. The answers themselves run on
//! every CLI and tier in `tiers/approvals.rs` and `tiers/questions.rs`.

use crate::harness::*;
use serde_json::{Value, json};

/// A claude worker `p` stopped at a tool's approval; its `wait --json` outcome.
fn asking(sb: &Sandbox) -> Value {
    let tool =
        json!({ "tool": "Bash", "input": { "command": "rm -rf build", "description": "Clean" } });
    let scenario = json!({ "turns": [
        { "match": "clean", "reply": "Cleaned.", "end": { "permission": tool } },
        { "reply": "Later." }
    ] });
    sb.spawn_playing("p", scenario, &[]);
    let outcome = sb.turn_outcome("p", "clean up", 126);
    assert!(outcome["approvalId"].is_string(), "{outcome}");
    outcome
}

/// The stable code of a refused verb's JSON error.
fn code(ran: &Ran) -> String {
    ran.json()["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn answer_is_refused_where_there_is_no_question_it_can_press() {
    let sb = Sandbox::new();
    sb.spawn_playing("r", json!({ "default": { "reply": "Hi." } }), &[]);
    let ran = sb.umbel(["answer", "r", "1", "--json"]).status(1);
    assert_eq!(code(&ran), "not_asking", "{}", ran.stdout());
    // A tool's approval is not a question: the message names the verbs that fit.
    asking(&sb);
    let ran = sb.umbel(["answer", "p", "1", "--json"]).status(1);
    assert_eq!(code(&ran), "not_asking", "{}", ran.stdout());
    assert!(ran.stdout().contains("umbel approve p"), "{}", ran.stdout());
    // Two questions in one dialog: listed as needing a person, and `answer` refuses.
    let options = json!([{ "label": "A", "description": "" }, { "label": "B", "description": "" }]);
    let two = json!({ "tool": "AskUserQuestion", "input": { "questions": [
        { "question": "First?", "header": "1", "options": options, "multiSelect": false },
        { "question": "Second?", "header": "2", "options": options, "multiSelect": false }] } });
    sb.spawn_playing(
        "q",
        json!({ "default": { "reply": "Ok.", "end": { "permission": two } } }),
        &[],
    );
    let outcome = sb.turn_outcome("q", "ask me", 126);
    assert_eq!(outcome["reason"], "question", "{outcome}");
    let listed = sb.umbel(["approvals", "--json"]).success().json();
    let row = listed
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["name"] == "q"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(row["answerWith"], "attach", "{listed}");
    let ran = sb.umbel(["answer", "q", "1", "--json"]).status(1);
    assert_eq!(code(&ran), "not_asking", "{}", ran.stdout());
    assert!(ran.stdout().contains("2 questions"), "{}", ran.stdout());
    // Nothing was pressed: both still wait.
    sb.umbel(["status", "q"])
        .stdout_has("needs-input")
        .success();
    sb.umbel(["status", "p"])
        .stdout_has("needs-input")
        .success();
}

#[test]
fn a_worker_with_nothing_to_approve_is_refused_with_nothing_pressed() {
    let sb = Sandbox::new();
    sb.spawn_playing("r", json!({ "default": { "reply": "Hi." } }), &[]);
    for verb in ["approve", "deny"] {
        let ran = sb.umbel([verb, "r", "--json"]).status(1);
        assert_eq!(code(&ran), "not_asking", "{verb}: {}", ran.stdout());
        assert!(
            ran.stdout().contains("ready for a prompt"),
            "{}",
            ran.stdout()
        );
    }
    // Nothing reached the input line: the next prompt is taken as typed.
    sb.turn("r", "hello").success();
    sb.umbel(["read", "r"]).stdout("Hi.\n").success();
    sb.umbel(["approve", "nobody"])
        .stderr_has("nobody")
        .status(1);
}

#[test]
fn an_approval_that_changed_since_the_caller_looked_is_refused() {
    let sb = Sandbox::new();
    let asked = asking(&sb);
    let id = asked["approvalId"].as_str().expect("id");
    let other = (id.parse::<usize>().expect("number") + 100).to_string();
    let ran = sb
        .umbel(["approve", "p", "--expect", &other, "--json"])
        .status(1);
    assert_eq!(code(&ran), "approval_changed", "{}", ran.stdout());
    assert!(ran.stdout().contains("Bash"), "{}", ran.stdout());
    sb.umbel(["approve", "p", "--expect", "seven"])
        .stderr_has("--expect seven")
        .status(2);
    // Still pending, and answered by its own id.
    let listed = sb.umbel(["approvals", "--json"]).success().json();
    assert_eq!(listed[0]["id"], id, "{listed}");
    sb.umbel(["approve", "p", "--expect", id]).success();
}

#[test]
fn a_second_answer_is_told_the_first_won() {
    let sb = Sandbox::new();
    let asked = asking(&sb);
    let id = asked["approvalId"].as_str().expect("id");
    let loser = race([
        sb.umbel(["approve", "p", "--expect", id, "--json"]),
        sb.umbel(["deny", "p", "--expect", id, "--json"]),
    ]);
    assert_eq!(code(&loser), "already_answered", "{}", loser.stdout());
    // Later, too: the answer is written in the worker's log.
    let late = sb.umbel(["deny", "p", "--expect", id, "--json"]).status(1);
    assert_eq!(code(&late), "already_answered", "{}", late.stdout());
    let answered = events_of(&sb, &[], "answered");
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert!(
        answered[0]["tool"].to_string().contains("rm -rf build"),
        "{answered:?}"
    );
}

#[test]
fn approve_wait_returns_the_finished_turn_and_its_exit_code() {
    let sb = Sandbox::new();
    asking(&sb);
    let done = sb
        .umbel(["approve", "p", "--wait", "--json"])
        .success()
        .json();
    assert_eq!(done["outcome"]["outcome"], "stop", "{done}");
    sb.umbel(["read", "p"]).stdout("Cleaned.\n").success();
    let text = sb.umbel(["approvals"]).success();
    assert_eq!(text.stdout(), "", "nothing pending");
}

#[test]
fn deny_with_a_reason_sends_it_as_the_next_prompt() {
    let sb = Sandbox::new();
    asking(&sb);
    let done = sb
        .umbel(["deny", "p", "--reason", "Keep the build folder", "--json"])
        .success()
        .json();
    assert_eq!(done["turnEnded"], true, "{done}");
    let since = done["reasonSentAt"].to_string();
    sb.umbel(["wait", "p", "--since", &since]).success();
    sb.umbel(["read", "p"]).stdout("Later.\n").success();
}

#[test]
fn a_pending_tools_secrets_are_masked_in_the_list() {
    let sb = Sandbox::new();
    let tool = json!({ "tool": "Bash", "input": { "command": "curl -H 'Authorization: Bearer s3cr3t-t0ken' https://api.example" } });
    sb.spawn_playing(
        "s",
        json!({ "default": { "end": { "permission": tool } } }),
        &[],
    );
    sb.turn_outcome("s", "fetch it", 126);
    let listed = sb.umbel(["approvals"]).success().stdout();
    assert!(listed.starts_with("s claude Bash curl"), "{listed}");
    assert!(!listed.contains("s3cr3t"), "{listed}");
}

/// A rule umbel cannot read is a usage error naming it and its flag, before anything is made.
#[test]
fn a_malformed_rule_is_refused_before_anything_is_made() {
    let sb = Sandbox::new();
    let err = sb
        .umbel([
            "spawn",
            "--name",
            "r",
            "--provider",
            "codex",
            "--allowed-tools",
            "Bash(echo *)",
            "--disallowed-tools",
            "Bash(rm",
        ])
        .status(2)
        .stderr();
    assert!(
        err.contains("`--disallowed-tools Bash(rm` is not a rule"),
        "{err}"
    );
    assert!(sb.worker_dirs().is_empty(), "a refused spawn makes nothing");
}

/// A worker spawned with rules answers by them on its own hook; one without leaves no script
/// for the hook to run.
#[test]
fn only_a_worker_with_rules_has_a_script_on_its_hook() {
    let sb = Sandbox::new();
    sb.spawn("plain", &[]);
    assert!(!sb.session_dir("plain").join("on-ask").exists());
    sb.spawn("ruled", &["--allowed-tools", "Bash(echo *)"]);
    let script = std::fs::read_to_string(sb.session_dir("ruled").join("on-ask")).expect("on-ask");
    assert!(script.contains("rule-answer"), "{script}");
    assert!(script.contains("UMBEL_STATE="), "{script}");
}
