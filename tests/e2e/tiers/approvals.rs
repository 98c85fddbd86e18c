//! The approval scenarios (`approve`, `deny`, `approvals`, rules given at spawn): a worker
//! stopped at a tool that needs approval, answered with its CLI's own keys, confirmed from its
//! hooks (or, where a CLI fires none on a refusal, its transcript or its idle notice). On the
//! fakes of all six CLIs (`tiers::approvals::fakes::…`) and on the real ones in the offline
//! tier (`tiers::approvals::real::…`, run by `just smoke-offline` at the pinned releases, not
//! yet by the matrix of older ones).

use super::{Tier, read, turn, world_asking_first};
use crate::harness::*;
use serde_json::{Value, json};

/// The command the tool runs: it writes a file, so every CLI asks (claude and gemini run a
/// read-only `echo` without asking), and the real tier can tell whether it ran.
const COMMAND: &str = "echo hi > umbel-tool.txt";

/// The command a refusing rule covers (it would remove a file the world does not have).
const REMOVE: &str = "rm -f umbel-gone.txt";

/// A world where every CLI asks before a tool that writes (claude's default auto mode lets its
/// classifier allow it: manual mode asks), with worker `p` spawned with `extra` flags: it runs
/// [`COMMAND`] on "run the tool", [`REMOVE`] on "remove", and answers "next" with text.
fn world_asking(provider: &str, tier: Tier, extra: &[&str]) -> Sandbox {
    let sb = world_asking_first(tier);
    let tool = |command: &str| json!({ "tool": "Bash", "input": { "command": command, "description": "Write hi" } });
    let scenario = json!({ "turns": [
        { "match": "run the tool", "reply": "It printed hi.", "end": { "permission": tool(COMMAND) } },
        { "match": "remove", "reply": "Removed.", "end": { "permission": tool(REMOVE) } },
        { "match": "next", "reply": "Second." }
    ] });
    sb.spawn_playing("p", scenario, &[&["--provider", provider], extra].concat());
    sb
}

/// A worker stopped at the tool's approval: its `wait --json` outcome (126, `permission`).
fn asking(provider: &str, tier: Tier) -> (Sandbox, Value) {
    let sb = world_asking(provider, tier, &[]);
    let (code, outcome) = turn(&sb, "p", "run the tool please");
    assert_eq!(code, Some(126), "{outcome}");
    assert!(outcome["approvalId"].is_string(), "{outcome}");
    (sb, outcome)
}

/// Whether the tool's file exists (the real CLIs run the tool; the fakes only say they did).
fn tool_ran(sb: &Sandbox) -> bool {
    sb.project.join("umbel-tool.txt").exists()
}

fn approve_runs_the_tool_and_the_turn_ends_0(provider: &str, tier: Tier) {
    let (sb, asked) = asking(provider, tier);
    let listed = sb.umbel(["approvals", "--json"]).success().json();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["name"], "p", "{listed}");
    assert_eq!(listed[0]["id"], asked["approvalId"], "{listed}");
    assert!(
        listed[0]["input"].to_string().contains("echo hi"),
        "{listed}"
    );
    let id = asked["approvalId"].as_str().expect("id");
    let done = sb
        .umbel(["approve", "p", "--expect", id, "--json"])
        .success()
        .json();
    assert_eq!(done["answer"], "approve", "{done}");
    assert_eq!(done["id"], id, "{done}");
    assert!(done["confirmedBy"].is_string(), "{done}");
    let since = done["position"].to_string();
    sb.umbel(["wait", "p", "--since", &since, "--timeout", "90s"])
        .success();
    assert_eq!(read(&sb, &["p"]), "It printed hi.\n");
    if tier == Tier::Real {
        assert!(tool_ran(&sb), "the approved tool did not run");
    }
    let listed = sb.umbel(["approvals", "--json"]).success().json();
    assert_eq!(listed, json!([]), "{listed}");
}

fn deny_refuses_the_tool_and_the_next_prompt_answers(provider: &str, tier: Tier) {
    let (sb, _) = asking(provider, tier);
    let done = sb.umbel(["deny", "p", "--json"]).success().json();
    assert_eq!(done["answer"], "deny", "{done}");
    // Every CLI ends the turn on a refusal: the worker is ready for the next prompt.
    assert_eq!(done["turnEnded"], true, "{done}");
    let (code, outcome) = turn(&sb, "p", "next please");
    assert_eq!(code, Some(0), "{outcome}");
    assert_eq!(read(&sb, &["p"]), "Second.\n");
    assert!(!tool_ran(&sb), "the denied tool ran");
}

/// `--allowed-tools 'Bash(echo *)'` approves the `echo` by itself (logged `answered` by the
/// rule) and leaves an `rm` waiting for a person; `--disallowed-tools 'Bash(rm *)'` refuses
/// the `rm` by itself.
fn rules_answer_by_themselves(provider: &str, tier: Tier) {
    let sb = world_asking(provider, tier, &["--allowed-tools", "Bash(echo *)"]);
    let (code, outcome) = turn(&sb, "p", "run the tool please");
    assert_eq!(code, Some(0), "{outcome}");
    assert_eq!(read(&sb, &["p"]), "It printed hi.\n");
    if tier == Tier::Real {
        assert!(tool_ran(&sb), "the approved tool did not run");
    }
    let answered = events_of(&sb, &["p"], "answered");
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["reason"], "approve", "{answered:?}");
    assert_eq!(answered[0]["by"], "rule", "{answered:?}");
    assert_eq!(answered[0]["rule"], "Bash(echo *)", "{answered:?}");
    let (code, outcome) = turn(&sb, "p", "remove it");
    assert_eq!(code, Some(126), "{outcome}");
    assert!(
        outcome["pendingTool"].to_string().contains("rm -f"),
        "{outcome}"
    );

    let sb = world_asking(provider, tier, &["--disallowed-tools", "Bash(rm *)"]);
    let (code, outcome) = turn(&sb, "p", "remove it");
    assert_ne!(code, Some(126), "{outcome}");
    // claude gets the rule natively too and refuses without asking; the others ask, and the
    // rule answers.
    let events = sb.umbel(["events", "p", "--json"]).success().stdout();
    assert!(
        (events.contains(r#""by":"rule""#) && events.contains(r#""reason":"deny""#))
            || (provider == "claude" && !events.contains("needs-input")),
        "{events}"
    );
    let (code, outcome) = turn(&sb, "p", "next please");
    assert_eq!(code, Some(0), "{outcome}");
}

tiered!(
    [claude, codex, gemini, qwen, opencode, copilot];
    {
        approve_runs_the_tool_and_the_turn_ends_0,
        deny_refuses_the_tool_and_the_next_prompt_answers,
        rules_answer_by_themselves,
    }
);
