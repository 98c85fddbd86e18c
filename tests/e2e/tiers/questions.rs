//! The question scenarios (`answer`, `deny` on a question, `approvals` listing one): a worker
//! whose model asked the user a question through its CLI's question tool (claude's
//! `AskUserQuestion`, gemini's `ask_user`, qwen's `ask_user_question`, opencode's `question`),
//! answered with a choice by number or label and confirmed from the CLI's own hooks. On the
//! fakes of the four CLIs that show such a dialog (`tiers::questions::fakes::…`) and on the real
//! ones in the offline tier (`tiers::questions::real::…`, `just smoke-offline`). codex shows
//! none outside Plan mode (its `request_user_input` fails at once).

use super::{Tier, read, turn, world_asking_first};
use crate::harness::*;
use serde_json::{Value, json};

/// The CLI's question tool.
fn question_tool(provider: &str) -> &'static str {
    match provider {
        "claude" => "AskUserQuestion",
        "gemini" => "ask_user",
        "qwen" => "ask_user_question",
        _ => "question",
    }
}

/// A worker `p` whose model asks "Which color should the button be?" (Red, Blue) on "ask me",
/// replies "You chose it." once answered, and answers "next" with text.
fn world_asking(provider: &str, tier: Tier) -> Sandbox {
    let sb = world_asking_first(tier);
    let mut question = json!({"question": "Which color should the button be?", "header": "Color",
        "options": [{"label": "Red", "description": "A red button"},
                    {"label": "Blue", "description": "A blue button"}]});
    match provider {
        "gemini" => question["type"] = json!("choice"),
        "opencode" => question["multiple"] = json!(false),
        _ => question["multiSelect"] = json!(false),
    }
    let ask = json!({ "tool": question_tool(provider), "input": { "questions": [question] } });
    let scenario = json!({ "turns": [
        { "match": "ask me", "reply": "You chose it.", "end": { "permission": ask } },
        { "match": "next", "reply": "Second." }
    ] });
    sb.spawn_playing("p", scenario, &["--provider", provider]);
    sb
}

/// A worker stopped at the question: its `wait --json` outcome (126, `question`).
fn asking(provider: &str, tier: Tier) -> (Sandbox, Value) {
    let sb = world_asking(provider, tier);
    let (code, outcome) = turn(&sb, "p", "ask me something");
    assert_eq!(code, Some(126), "{outcome}");
    assert_eq!(outcome["reason"], "question", "{outcome}");
    assert_eq!(
        outcome["pendingTool"]["name"],
        question_tool(provider),
        "{outcome}"
    );
    (sb, outcome)
}

/// The model's requests (real tier): what the CLI told it the user answered.
fn model_heard(sb: &Sandbox) -> String {
    std::fs::read_to_string(sb.root.join("model-requests.jsonl")).unwrap_or_default()
}

fn answer_picks_a_choice_and_the_turn_ends_0(provider: &str, tier: Tier) {
    let (sb, asked) = asking(provider, tier);
    let listed = sb.umbel(["approvals", "--json"]).success().json();
    assert_eq!(listed[0]["reason"], "question", "{listed}");
    assert_eq!(listed[0]["answerWith"], "answer", "{listed}");
    assert_eq!(
        listed[0]["questions"][0]["options"][1]["label"], "Blue",
        "{listed}"
    );
    // Not an approval: approve is refused, and so is a choice the question does not offer;
    // nothing is pressed, the question still waits.
    let approve = sb.umbel(["approve", "p", "--json"]).status(1);
    assert!(
        approve.stdout().contains("not_asking"),
        "{}",
        approve.stdout()
    );
    assert!(
        approve.stdout().contains("umbel answer p"),
        "{}",
        approve.stdout()
    );
    let wrong = sb.umbel(["answer", "p", "Green"]).run();
    assert_ne!(wrong.code(), Some(0));
    assert!(
        wrong.stderr().contains("1 Red, 2 Blue"),
        "{}",
        wrong.stderr()
    );
    let id = asked["approvalId"].as_str().expect("id");
    let done = sb
        .umbel(["answer", "p", "blue", "--expect", id, "--json"])
        .success()
        .json();
    assert_eq!(done["answer"], "choose", "{done}");
    assert_eq!(done["choice"], "Blue", "{done}");
    assert_eq!(done["keys"], json!(["2"]), "{done}");
    let since = done["position"].to_string();
    sb.umbel(["wait", "p", "--since", &since, "--timeout", "90s"])
        .success();
    assert_eq!(read(&sb, &["p"]), "You chose it.\n");
    if tier == Tier::Real {
        assert!(
            model_heard(&sb).contains("Blue"),
            "the model never heard Blue"
        );
    }
    let answered = events_of(&sb, &["p"], "answered");
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["reason"], "choose", "{answered:?}");
    let listed = sb.umbel(["approvals", "--json"]).success().json();
    assert_eq!(listed, json!([]), "{listed}");
}

fn deny_declines_the_question_and_the_next_prompt_answers(provider: &str, tier: Tier) {
    let (sb, _) = asking(provider, tier);
    let done = sb.umbel(["deny", "p", "--json"]).success().json();
    assert_eq!(done["answer"], "deny", "{done}");
    assert_eq!(done["turnEnded"], true, "{done}");
    let (code, outcome) = turn(&sb, "p", "next please");
    assert_eq!(code, Some(0), "{outcome}");
    assert_eq!(read(&sb, &["p"]), "Second.\n");
}

tiered!(
    [claude, gemini, qwen, opencode];
    {
        answer_picks_a_choice_and_the_turn_ends_0,
        deny_declines_the_question_and_the_next_prompt_answers,
    }
);
