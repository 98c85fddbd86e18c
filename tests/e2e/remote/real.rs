//! The remote tier on the real CLIs (`just smoke-offline`): the real claude, codex and gemini
//! run on a simulated host, against that host's own fake model server, and are driven from
//! here through ssh and the host's umbel — two turns, read by turn, killed with nothing left.

use super::hosts::Net;
use super::json_of;
use crate::harness::*;
use serde_json::json;

macro_rules! each_real_provider {
    ($test:ident) => {
        mod claude {
            #[test]
            #[ignore = "real CLIs: just smoke-offline"]
            fn $test() {
                super::$test("claude")
            }
        }
        mod codex {
            #[test]
            #[ignore = "real CLIs: just smoke-offline"]
            fn $test() {
                super::$test("codex")
            }
        }
        mod gemini {
            #[test]
            #[ignore = "real CLIs: just smoke-offline"]
            fn $test() {
                super::$test("gemini")
            }
        }
    };
}

each_real_provider!(a_real_cli_on_another_host_takes_two_turns_over_ssh);

fn a_real_cli_on_another_host_takes_two_turns_over_ssh(provider: &str) {
    let Some(net) = Net::up_with(1, crate::real::sandbox) else {
        return;
    };
    let h1 = &net.host("h1").sandbox;
    let turns = json!({ "turns": [
        { "match": "first", "reply": "One." },
        { "match": "second", "reply": "Two." }
    ] });
    let scenario = h1.scenario("far", turns);
    let project = h1.project.to_string_lossy().into_owned();
    let spawn = [
        "spawn",
        "--host",
        "h1",
        "--name",
        "far",
        "--provider",
        provider,
        "--cwd",
        &project,
        "--env",
        &scenario,
    ];
    assert_success(&net.local.run(&spawn), "remote spawn of a real CLI");
    assert!(
        h1.session_dir("far").join("meta.json").exists(),
        "it runs on h1"
    );
    for (prompt, answer) in [
        ("the first question", "One."),
        ("the second question", "Two."),
    ] {
        assert_success(&net.local.run(&["send", "far", prompt]), "send");
        let waited = net
            .local
            .run(&["wait", "far", "--json", "--timeout", "120s"]);
        let outcome = json_of(&waited);
        assert_eq!(outcome["outcome"], "stop", "{outcome}");
        let read = net.local.run(&["read", "far"]);
        assert_eq!(String::from_utf8_lossy(&read.stdout), format!("{answer}\n"));
    }
    // The answers came from the real CLI, through h1's model server (the fake CLIs never call it).
    let requests =
        std::fs::read_to_string(h1.root.join("model-requests.jsonl")).unwrap_or_default();
    assert!(
        requests.contains("the second question"),
        "h1's model server saw no turn"
    );
    let first = net.local.run(&["read", "far", "--turn", "1"]);
    assert_eq!(String::from_utf8_lossy(&first.stdout), "One.\n");
    assert_success(&net.local.run(&["kill", "far", "--purge"]), "kill");
    assert_no_process_left(&h1.root, "kill on h1");
}
