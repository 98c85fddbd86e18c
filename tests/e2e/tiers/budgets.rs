//! Budgets on every CLI, fakes and real ones (`tiers::budgets::real::…`, `just smoke-offline`):
//! a turn still running when its worker's tokens (as its CLI's transcript records them) reach
//! the limit — here lowered under it mid-turn — is interrupted with the CLI's own key and
//! `wait` says `budget` (exit 120); the next send is refused (code `budget`, naming the limit)
//! until `umbel budget` raises it; `--max-prompts` refuses the prompt past it. The fleet's
//! limit (`umbel budget --fleet`) stops every running turn of the state root at once.

use super::{Tier, world, world_asking_first};
use crate::harness::{events_of, eventually};
use serde_json::{Value, json};

fn a_reached_limit_refuses_sends_until_it_is_raised(provider: &str, tier: Tier) {
    let sb = world(tier);
    // The second turn streams and stays busy: only an interrupt ends it.
    let turns = json!({
        "turns": [{ "match": "Hold on.", "reply": "Holding on and on.", "end": "wedge" }],
        "default": { "reply": "Counted." }
    });
    let scenario = sb.scenario("budget", turns);
    let args = [
        "--provider",
        provider,
        "--env",
        &scenario,
        "--max-prompts",
        "3",
    ];
    sb.spawn("b", &args);
    let fresh: Value = sb.umbel(["budget", "b", "--json"]).run().json();
    assert_eq!(fresh["limits"], json!({ "maxPrompts": 3 }), "{fresh}");
    assert_eq!(fresh["used"]["prompts"], 0, "{fresh}");
    sb.turn_outcome("b", "Count me.", 0);
    // The turn's usage, once its transcript has it (qwen writes it a moment after its hook).
    let mut after = Value::Null;
    let counted = eventually(std::time::Duration::from_secs(10), || {
        after = sb.umbel(["budget", "b", "--json"]).run().json();
        after["used"]["tokens"].as_u64().unwrap_or(0) > 0
    });
    assert!(counted, "{after}");
    let used = after["used"]["tokens"].as_u64().unwrap_or(0);
    assert_eq!(after["used"]["prompts"], 1, "{after}");
    let status: Value = sb.umbel(["status", "b", "--json"]).run().json();
    assert_eq!(
        status["budget"]["limits"],
        json!({ "maxPrompts": 3 }),
        "{status}"
    );
    assert_eq!(status["budget"]["used"]["prompts"], 1, "{status}");
    // A running turn whose worker's limit is lowered below what it used: interrupted with
    // the CLI's own key, `budget`.
    sb.umbel(["send", "b", "Hold on."]).success();
    // Lowered once the turn streams, as a crossing comes with the transcript's writes (an
    // interrupt key before the CLI is streaming may be lost: opencode drops it). claude draws
    // a text block only once it is complete, which a wedged stream never is.
    if provider != "claude" {
        sb.until_screen("b", "Holding on");
    }
    let limit = (used / 2).max(1).to_string();
    let lowered: Value = sb
        .umbel(["budget", "b", "--max-tokens", &limit, "--json"])
        .run()
        .json();
    assert_eq!(lowered["reached"]["limit"], "tokens", "{lowered}");
    let stopped = sb
        .umbel(["wait", "b", "--json", "--timeout", "60s"])
        .status(120);
    let stopped: Value = serde_json::from_str(stopped.stdout().trim()).expect("json");
    assert_eq!(stopped["outcome"], "budget", "{stopped}");
    assert_eq!(stopped["reason"], "tokens", "{stopped}");
    let said = events_of(&sb, &["b"], "budget");
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0]["reason"], "tokens", "{said:?}");
    // Refused until raised, naming the limit.
    let refused = sb.umbel(["send", "b", "Again.", "--json"]).status(120);
    let error: Value = serde_json::from_str(refused.stdout().trim()).expect("json");
    assert_eq!(error["error"]["code"], "budget", "{error}");
    let named = format!("--max-tokens {limit}");
    let message = error["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains(&named), "{error}");
    let raised: Value = sb
        .umbel(["budget", "b", "--max-tokens", "50M", "--json"])
        .run()
        .json();
    assert_eq!(raised["limits"]["maxPrompts"], 3, "{raised}");
    assert_eq!(raised.get("reached"), None, "{raised}");
    sb.turn_outcome("b", "Count me again.", 0);
    // Past 80 % of a limit: warned once, at the next look (here the send's).
    let now: Value = sb.umbel(["budget", "b", "--json"]).run().json();
    let now = now["used"]["tokens"].as_u64().unwrap_or(0);
    let near = (now * 100 / 85 + 1).to_string();
    sb.umbel(["budget", "b", "--max-tokens", &near]).success();
    let refused = sb.umbel(["send", "b", "A fourth."]).status(120);
    assert!(
        refused.stderr().contains("--max-prompts 3"),
        "{}",
        refused.stderr()
    );
    sb.umbel(["kill", "b", "--purge"]).success();
}

/// What `umbel budget ARGS --json` says.
fn budget_of(sb: &crate::harness::Sandbox, args: &[&str]) -> Value {
    sb.umbel(["budget"])
        .args(args)
        .args(["--json"])
        .run()
        .json()
}

/// The fleet's limit, lowered under what two workers used while both run a turn: the one
/// wait on the first stops both turns (the second's log says `budget`, nobody waiting on it),
/// sends and spawns are refused naming the fleet until it is raised, and a purged worker's
/// use stays counted.
fn a_fleet_limit_stops_every_running_turn(provider: &str, tier: Tier) {
    let sb = world(tier);
    let turns = json!({
        "turns": [{ "match": "Hold on.", "reply": "Holding on and on.", "end": "wedge" }],
        "default": { "reply": "Counted." }
    });
    let scenario = sb.scenario("fleet", turns);
    let mut used = 0;
    for name in ["f1", "f2"] {
        sb.spawn(name, &["--provider", provider, "--env", &scenario]);
        sb.turn_outcome(name, "Count me.", 0);
        let mut shown = Value::Null;
        let counted = eventually(std::time::Duration::from_secs(10), || {
            shown = budget_of(&sb, &[name]);
            shown["used"]["tokens"].as_u64().unwrap_or(0) > 0
        });
        assert!(counted, "{shown}");
        used += shown["used"]["tokens"].as_u64().unwrap_or(0);
    }
    let fleet = budget_of(&sb, &["--fleet"]);
    assert_eq!(fleet["used"]["tokens"], used, "{fleet}");
    assert_eq!(fleet["used"]["prompts"], 2, "{fleet}");
    for name in ["f1", "f2"] {
        sb.umbel(["send", name, "Hold on."]).success();
        if provider != "claude" {
            sb.until_screen(name, "Holding on");
        }
    }
    let limit = (used / 2).to_string();
    let lowered = budget_of(&sb, &["--fleet", "--max-tokens", &limit]);
    assert_eq!(lowered["reached"]["pool"], "fleet", "{lowered}");
    let stopped = sb
        .umbel(["wait", "f1", "--json", "--timeout", "60s"])
        .status(120);
    let stopped: Value = serde_json::from_str(stopped.stdout().trim()).expect("json");
    assert_eq!(stopped["outcome"], "budget", "{stopped}");
    let message = stopped["message"].as_str().unwrap_or("");
    assert!(message.contains("the fleet's --max-tokens"), "{stopped}");
    // The second worker's turn was stopped by the same wait: its log says so.
    let said = events_of(&sb, &["f2"], "budget");
    assert_eq!(said.len(), 1, "{said:?}");
    let second = sb
        .umbel(["wait", "f2", "--json", "--timeout", "30s"])
        .status(120);
    let second: Value = serde_json::from_str(second.stdout().trim()).expect("json");
    assert_eq!(second["outcome"], "budget", "{second}");
    // Refused, naming the fleet, until raised: sends and spawns.
    let refused = sb.umbel(["send", "f2", "Again.", "--json"]).status(120);
    let error: Value = serde_json::from_str(refused.stdout().trim()).expect("json");
    assert_eq!(error["error"]["code"], "budget", "{error}");
    let message = error["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("umbel budget --fleet"), "{error}");
    let spawn = sb.umbel(["spawn", "--name", "f3", "--provider", provider]);
    assert!(spawn.status(120).stderr().contains("the fleet's"));
    assert!(sb.umbel(["budget", "f1"]).run().stdout().contains("fleet:"));
    sb.umbel(["budget", "--fleet", "--max-tokens", "50M"])
        .success();
    sb.turn_outcome("f2", "Count me again.", 0);
    // A purged worker's use stays the fleet's (f1 is idle: its use no longer moves; f2's may,
    // as a CLI writes a turn's usage a moment after its hook).
    let f1 = budget_of(&sb, &["f1"])["used"].clone();
    sb.umbel(["kill", "f1", "--purge"]).success();
    let record = std::fs::read(sb.state.join("fleet-budget.json")).expect("fleet record");
    let record: Value = serde_json::from_slice(&record).expect("json");
    assert_eq!(record["retired"]["tokens"], f1["tokens"], "{record}");
    assert_eq!(record["retired"]["prompts"], f1["prompts"], "{record}");
    let after = budget_of(&sb, &["--fleet"]);
    let at_least = f1["tokens"].as_u64().unwrap_or(0) + 1;
    assert!(
        after["used"]["tokens"].as_u64() >= Some(at_least),
        "{after}"
    );
    sb.umbel(["kill", "f2", "--purge"]).success();
}

/// A turn whose tool call's response takes the worker past its token limit: the CLI records
/// that response (usage and all) before it runs the tool, and the wait stops the turn at that
/// write while the answer after the tool still streams — no limit lowered by hand.
fn a_crossing_recorded_mid_turn_stops_that_turn(provider: &str, tier: Tier) {
    let sb = world_asking_first(tier);
    let input = json!({ "command": "echo hi > umbel-tool.txt", "description": "Write hi" });
    let tool = json!({ "tool": "Bash", "input": input, "then_wedge": true });
    let scenario = json!({
        "turns": [{ "match": "run the tool", "reply": "It printed hi and goes on.", "end": { "permission": tool } }],
        "default": { "reply": "Counted." }
    });
    sb.spawn_playing("b", scenario, &["--provider", provider]);
    sb.turn_outcome("b", "Count me.", 0);
    let mut shown = Value::Null;
    let counted = eventually(std::time::Duration::from_secs(10), || {
        shown = budget_of(&sb, &["b"]);
        shown["used"]["tokens"].as_u64().unwrap_or(0) > 0
    });
    assert!(counted, "{shown}");
    let limit = (shown["used"]["tokens"].as_u64().unwrap_or(0) + 1).to_string();
    sb.umbel(["budget", "b", "--max-tokens", &limit]).success();
    // claude, codex, gemini, qwen and copilot record the tool call's response, usage and all,
    // before they ask to run it: the turn is stopped at the ask, never left waiting for a
    // person. opencode records it once the tool ran: it asks first.
    let (code, asked) = super::turn(&sb, "b", "run the tool please");
    let stopped = match provider {
        "opencode" => {
            assert_eq!(code, Some(126), "{asked}");
            let id = asked["approvalId"].as_str().expect("id");
            let done = sb
                .umbel(["approve", "b", "--expect", id, "--json"])
                .success()
                .json();
            let since = done["position"].to_string();
            let out = sb
                .umbel(["wait", "b", "--since", &since, "--json", "--timeout", "60s"])
                .status(120);
            serde_json::from_str(out.stdout().trim()).expect("json")
        }
        _ => {
            assert_eq!(code, Some(120), "{asked}");
            asked
        }
    };
    assert_eq!(stopped["outcome"], "budget", "{stopped}");
    assert_eq!(stopped["reason"], "tokens", "{stopped}");
    // No ask is left open, and the tool ran only where it was approved.
    let listed = sb.umbel(["approvals", "--json"]).success().json();
    assert_eq!(listed, json!([]), "{listed}");
    let ran = sb.project.join("umbel-tool.txt").exists();
    assert!(!ran || provider == "opencode", "the tool ran");
    sb.umbel(["kill", "b", "--purge"]).success();
}

/// `--max-turns`, umbel's on every CLI (interactive claude takes its own flag and ignores it):
/// a turn whose tool call leads to a second model request is `budget` (reason `turns`) — the
/// tool of the first ran, as under `claude -p` — and the next prompt has a count of its own;
/// `-p --max-turns 1` fails the same turn, in claude's shape `error_max_turns`.
fn max_turns_stops_the_turn_past_it(provider: &str, tier: Tier) {
    let sb = world(tier);
    let input = json!({ "command": "echo hi > umbel-tool.txt", "description": "Write hi" });
    let tool = json!({ "tool": "Bash", "input": input });
    let scenario = json!({
        "turns": [{ "match": "run the tool", "reply": "It printed hi.", "end": { "permission": tool } }],
        "default": { "reply": "Counted." }
    });
    let args = ["--provider", provider, "--unattended", "--max-turns", "1"];
    sb.spawn_playing("t", scenario.clone(), &args);
    let (code, stopped) = super::turn(&sb, "t", "run the tool please");
    assert_eq!(code, Some(120), "{stopped}");
    assert_eq!(stopped["outcome"], "budget", "{stopped}");
    assert_eq!(stopped["reason"], "turns", "{stopped}");
    let message = stopped["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("--max-turns 1 reached"), "{message}");
    // The fakes run no tool (sim/src/engine/tool.rs); a real CLI does — but codex: fake-model
    // has its call ask for escalated permissions, which `--unattended`'s policy `never` refuses.
    let ran = sb.project.join("umbel-tool.txt").exists();
    let runs = matches!(tier, Tier::Real) && provider != "codex";
    assert_eq!(ran, runs, "whether the first request's tool ran");
    let (code, next) = super::turn(&sb, "t", "Count me.");
    assert_eq!(
        (code, &next["outcome"]),
        (Some(0), &json!("stop")),
        "{next}"
    );
    sb.umbel(["kill", "t", "--purge"]).success();
    let env = sb.scenario("p", scenario);
    let print = [
        "-p",
        "run the tool please",
        "--output-format",
        "json",
        "--env",
        &env,
    ];
    let out = sb.umbel(print).args(args).status(120);
    // Each CLI's print shape carries the error (gemini's on stderr); claude's as `claude -p`.
    let printed = out.stdout() + &out.stderr();
    if provider != "claude" {
        assert!(printed.contains("Reached max turns (1)"), "{printed}");
    } else {
        let result = out.json();
        assert_eq!(result["subtype"], "error_max_turns", "{result}");
        assert_eq!(
            result["errors"],
            json!(["Reached maximum number of turns (1)"]),
            "{result}"
        );
        assert_eq!(result["is_error"], true, "{result}");
    }
}

tiered!([claude, codex, gemini, qwen, opencode, copilot]; {
    a_reached_limit_refuses_sends_until_it_is_raised,
    a_fleet_limit_stops_every_running_turn,
    max_turns_stops_the_turn_past_it,
});

/// The crossing at a tool call's record, on every CLI. Real qwen 0.24.4 often takes the
/// interrupt key before it shows its ask and cancels the call with no hook: the wait reads
/// that end from its chat record (the turn known by its `prompt_id`).
mod mid_turn {
    use super::*;
    tiered!([claude, codex, gemini, qwen, opencode, copilot]; { a_crossing_recorded_mid_turn_stops_that_turn });
}
