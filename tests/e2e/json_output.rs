//! Every verb's `--json` output against the schema docs/json.md documents for it (generated
//! from the structs umbel serialises, `faces::json_schema`), on fake claude workers: each shape
//! a verb can print (one turn and all turns, one worker and all), and the error object.

use crate::harness::*;
use serde_json::Value;

/// Checks every JSON line `out` printed on stdout against `verb`'s schema; returns the values.
#[track_caller]
fn valid(verb: &str, out: &Ran) -> Vec<Value> {
    let schema = umbel::faces::json_schema::cli_schema(verb)
        .unwrap_or_else(|| panic!("no schema for `{verb}`"));
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let text = out.stdout();
    let values: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{verb}: {e}: {l}")))
        .collect();
    assert!(
        !values.is_empty(),
        "{verb} printed no JSON: {}",
        out.stderr()
    );
    for value in &values {
        let problems: Vec<String> = validator
            .iter_errors(value)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(problems.is_empty(), "{verb}: {value}\n{problems:#?}");
    }
    values
}

/// `umbel ARGS --json`, expected to succeed; its output checked against `verb`'s schema.
#[track_caller]
fn ok(sb: &Sandbox, verb: &str, args: &[&str]) -> Value {
    let out = sb.umbel([verb]).args(args).args(["--json"]).success();
    valid(verb, &out).remove(0)
}

#[test]
fn every_verbs_json_validates_against_its_schema() {
    let sb = Sandbox::new();
    let mut seen = Vec::new();
    let mut check = |verb: &'static str, args: &[&str]| {
        seen.push(verb);
        ok(&sb, verb, args)
    };
    let project = sb.project.to_string_lossy().into_owned();
    check("spawn", &["--name", "j1", "--cwd", &project]);
    for prompt in ["first", "second"] {
        let sent = check("send", &["j1", prompt]);
        let since = sent["position"].to_string();
        let outcome = check("wait", &["j1", "--since", &since, "--timeout", "60s"]);
        assert_eq!(outcome["outcome"], "stop");
    }
    check("read", &["j1"]);
    let spawned = check("events", &["j1"]);
    assert_eq!(spawned["worker"], "j1", "{spawned}");
    let idle = check("interrupt", &["j1"]);
    assert_eq!(idle["interrupted"], false);
    let mode = check("mode", &["j1", "plan"]);
    assert_eq!(mode["mode"], "plan", "{mode}");
    let budget = check("budget", &["j1", "--max-tokens", "9M"]);
    assert_eq!(budget["limits"]["maxTokens"], 9_000_000, "{budget}");
    let model = check("model", &["j1", "sonnet"]);
    assert_eq!(model["model"], "sonnet", "{model}");
    check("releases", &[]);
    check("read", &["j1", "--turn", "1"]);
    check("read", &["j1", "--all"]);
    check("actions", &["j1"]);
    check("diff", &["j1"]);
    check("status", &["j1"]);
    check("status", &[]);
    check("ls", &[]);
    check("capture", &["j1"]);
    check("explain", &["j1"]);
    check("releases", &[]);
    check("doctor", &[]);
    check("park", &["j1"]);
    check("status", &["j1"]);
    check("resume", &["j1"]);
    // events: JSON Lines, each valid; j1's park and resume among them.
    let out = sb.cmd("events j1 --json").success();
    let events: Vec<Value> = valid("events", &out);
    for kind in ["spawned", "turn-ended", "parked", "resumed"] {
        assert!(
            events.iter().any(|e| e["event"] == kind),
            "{kind}: {events:?}"
        );
    }
    check("kill", &["j1"]);
    check("prune", &[]);
    let wf = sb.project.join("wf.yaml");
    let yaml = "workers:\n  a: {}\nsteps:\n  - {id: s, worker: a, prompt: hi}\n";
    std::fs::write(&wf, yaml).expect("write workflow");
    let wf = wf.to_string_lossy().into_owned();
    let waves = check("run", &["--check", &wf]);
    assert_eq!(waves["waves"], serde_json::json!([["s"]]));
    let record = check("run", &[&wf]);
    assert_eq!(record["status"], "completed");

    // logs: JSON Lines, one object per event, each valid; positions count from 0.
    sb.spawn("j2", &[]);
    let out = sb.cmd("logs j2 --json").success();
    let lines = valid("logs", &out);
    let positions: Vec<u64> = lines
        .iter()
        .filter_map(|l| l["position"].as_u64())
        .collect();
    assert_eq!(positions, (0..lines.len() as u64).collect::<Vec<_>>());
    seen.push("logs");

    // attach prints JSON only when it cannot attach: here, without a terminal.
    let out = sb.cmd("attach j2 --json").run();
    assert_ne!(out.status.code(), Some(0));
    let error = valid("attach", &out).remove(0);
    assert!(error["error"]["code"].is_string(), "{error}");
    seen.push("attach");
    sb.cmd("kill --all --purge").run();

    let mut documented: Vec<&str> = umbel::faces::json_schema::cli_schemas()
        .iter()
        .map(|s| s.verb)
        .collect();
    documented.sort();
    seen.sort();
    seen.dedup();
    assert_eq!(seen, documented, "every documented verb was checked");
}

#[test]
fn a_failed_verbs_json_is_the_error_object_with_exit_code_and_hint() {
    let sb = Sandbox::new();
    for (verb, args) in [
        ("read", vec!["ghost"]),
        ("kill", vec!["ghost"]),
        ("capture", vec!["ghost"]),
        ("logs", vec!["ghost"]),
    ] {
        let out = sb.umbel([verb]).args(args).args(["--json"]).status(1);
        // The error object is what `attach --json` documents for failures.
        let error = valid("attach", &out).remove(0);
        assert_eq!(error["error"]["code"], "not_found", "{verb}");
        assert_eq!(error["error"]["exitCode"], 1, "{verb}");
        assert!(
            error["error"]["hint"]
                .as_str()
                .is_some_and(|h| h.contains("umbel ls")),
            "{verb}"
        );
    }
}
