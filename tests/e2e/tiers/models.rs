//! `umbel model` on every CLI, fakes and real ones (`tiers::models::real::…`, `just
//! smoke-offline`): the models a CLI's /model lists, a switch for this session only with its
//! own picker (claude, codex, gemini) or command (copilot), the next turn answered by the model
//! switched to (on the real CLIs: the request `fake-model` received names it), a model the
//! picker does not list refused with the ones it does, the picker closed again; qwen and
//! opencode refuse, keeping spawn's --model.

use super::{Tier, world};
use serde_json::{Value, json};

/// What each CLI is switched to: the name given, a row its picker lists (None: copilot takes
/// any name), and the text the model server's request then carries.
fn target(provider: &str) -> (&'static str, Option<&'static str>, &'static str) {
    match provider {
        "claude" => ("sonnet", Some("Sonnet"), "\"claude-sonnet-5-5\""),
        "codex" => ("gpt-5.6-luna", Some("GPT-5.6-Luna"), "\"gpt-5.6-luna\""),
        "gemini" => (
            "gemini-3-flash-preview",
            Some("gemini-3-flash-preview"),
            "models/gemini-3-flash-preview:",
        ),
        _ => ("claude-sonnet-5.5", None, "\"claude-sonnet-5.5\""),
    }
}

fn model_is_listed_switched_for_the_session_and_answers_next(provider: &str, tier: Tier) {
    let sb = world(tier);
    let scenario = sb.scenario("models", json!({ "default": { "reply": "Switched." } }));
    sb.spawn("m", &["--provider", provider, "--env", &scenario]);
    let (wanted, listed, requested) = target(provider);
    let first: Value = sb.umbel(["model", "m", "--json"]).run().json();
    assert_eq!(first["model"], Value::Null, "{first}");
    if let Some(listed) = listed {
        let models: Vec<String> = serde_json::from_value(first["models"].clone())
            .unwrap_or_else(|e| panic!("{e}: {first}"));
        assert!(models.iter().any(|m| m == listed), "{first}");
        // A model the picker does not list: refused with the ones it does, the picker closed.
        let refused = sb.umbel(["model", "m", "no-such-model-9"]).status(2);
        assert!(refused.stderr().contains(listed), "{}", refused.stderr());
    }
    let switched: Value = sb.umbel(["model", "m", wanted, "--json"]).run().json();
    assert_eq!(switched["model"], wanted, "{switched}");
    assert!(switched["shown"].is_string(), "{switched}");
    assert!(switched["pressed"].as_u64().unwrap_or(0) >= 2, "{switched}");
    let again: Value = sb.umbel(["model", "m", "--json"]).run().json();
    assert_eq!(again["model"], wanted, "{again}");
    let status: Value = sb.umbel(["status", "m", "--json"]).run().json();
    assert_eq!(status["model"], wanted, "{status}");
    let outcome = sb.turn_outcome("m", "Which model answers?", 0);
    assert_eq!(outcome["outcome"], "stop", "{outcome}");
    if tier == Tier::Real {
        let log = std::fs::read_to_string(sb.root.join("model-requests.jsonl")).expect("log");
        let last = log
            .lines()
            .rev()
            .find(|l| l.contains("Which model answers?"));
        assert!(
            last.is_some_and(|l| l.contains(requested)),
            "{requested}: {last:?}"
        );
    }
    sb.umbel(["kill", "m", "--purge"]).success();
}

fn model_of_a_cli_umbel_does_not_switch_is_refused(provider: &str, tier: Tier) {
    let sb = world(tier);
    sb.spawn("m", &["--provider", provider]);
    let shown: Value = sb.umbel(["model", "m", "--json"]).run().json();
    assert_eq!(shown["models"], json!([]), "{shown}");
    let refused = sb.umbel(["model", "m", "some-model"]).status(2);
    assert!(refused.stderr().contains("--model"), "{}", refused.stderr());
    let bad = sb.umbel(["model", "m", "two\nlines"]).status(2);
    assert!(bad.stderr().contains("model's name"), "{}", bad.stderr());
    sb.umbel(["kill", "m", "--purge"]).success();
}

tiered!([claude, codex, gemini, copilot]; { model_is_listed_switched_for_the_session_and_answers_next });

mod fixed {
    use super::*;
    tiered!([qwen, opencode]; { model_of_a_cli_umbel_does_not_switch_is_refused });
}
