//! Budgets on every CLI, fakes and real ones (`tiers::budgets::real::…`, `just smoke-offline`):
//! a turn still running when its worker's tokens (as its CLI's transcript records them) reach
//! the limit — here lowered under it mid-turn — is interrupted with the CLI's own key and
//! `wait` says `budget` (exit 120); the next send is refused (code `budget`, naming the limit)
//! until `umbel budget` raises it; `--max-prompts` refuses the prompt past it.

use super::{Tier, world};
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

tiered!([claude, codex, gemini, qwen, opencode, copilot]; { a_reached_limit_refuses_sends_until_it_is_raised });
