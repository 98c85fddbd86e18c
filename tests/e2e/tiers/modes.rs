//! `umbel mode` on every CLI, fakes and real ones (`tiers::modes::real::…`, `just
//! smoke-offline`): the mode the worker's screen shows and the modes its key cycles through,
//! a switch to plan mode (every CLI has one) with the CLI's own key, the screen and the next
//! look agreeing, a turn still answered after it; an unknown mode refused with the CLI's own.

use super::{Tier, world};
use serde_json::{Value, json};

fn mode_is_read_switched_to_plan_and_the_worker_goes_on(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = sb.scenario("modes", json!({ "default": { "reply": "Planned." } }));
    sb.spawn("m", &["--provider", provider, "--env", &scenario]);
    let first: Value = sb.umbel(["mode", "m", "--json"]).run().json();
    let modes: Vec<String> = serde_json::from_value(first["modes"].clone()).expect("modes");
    assert!(
        modes.len() >= 2 && modes.contains(&"plan".to_string()),
        "{first}"
    );
    assert!(
        modes.contains(&first["mode"].as_str().unwrap_or("").to_string()),
        "{first}"
    );
    assert_ne!(first["mode"], "plan", "{first}");
    let switched: Value = sb.umbel(["mode", "m", "plan", "--json"]).run().json();
    assert_eq!(switched["mode"], "plan", "{switched}");
    assert!(switched["pressed"].as_u64().unwrap_or(0) >= 1, "{switched}");
    let again: Value = sb.umbel(["mode", "m", "--json"]).run().json();
    assert_eq!(again["mode"], "plan", "{again}");
    assert_eq!(again["pressed"], 0, "{again}");
    // Asking for the mode it has presses nothing.
    let same: Value = sb.umbel(["mode", "m", "PLAN", "--json"]).run().json();
    assert_eq!(same["pressed"], 0, "{same}");
    // A mode the CLI's key does not reach: a usage error naming the ones it does.
    let refused = sb.umbel(["mode", "m", "warp-speed"]).status(2);
    assert!(refused.stderr().contains("plan"), "{}", refused.stderr());
    let outcome = sb.turn_outcome("m", "And now?", 0);
    assert_eq!(outcome["outcome"], "stop", "{outcome}");
    sb.umbel(["kill", "m", "--purge"]).success();
}

tiered!([claude, codex, gemini, qwen, opencode, copilot]; { mode_is_read_switched_to_plan_and_the_worker_goes_on });
