//! The conversation verbs on every fake: `read --turn/--all/--since-turn`, `actions`, `diff`.

use crate::each_provider;
use crate::harness::*;
use serde_json::json;

each_provider!(
    read_selects_turns_by_number,
    actions_lists_the_tools_of_a_turn,
    diff_shows_what_changed_between_two_answers,
);

/// A worker that has answered two prompts: a plain one, then one that ran `echo hi`.
fn two_turns(sb: &Sandbox, provider: &str) {
    let tool = json!({ "tool": "Bash", "input": { "command": "echo hi", "description": "Print a greeting" } });
    let scenario = json!({ "turns": [
            { "reply": "Plan:\nstep one\nstep two" },
            { "reply": "Plan:\nstep one\nstep 2 done", "end": { "permission": tool } }
        ] });
    sb.spawn_playing("w", scenario, &["--provider", provider, "--unattended"]);
    for prompt in ["first prompt", "second prompt"] {
        sb.turn("w", prompt).args(["--timeout", "30s"]).success();
    }
}

fn read_selects_turns_by_number(provider: &str) {
    let sb = Sandbox::new();
    two_turns(&sb, provider);
    let all = sb.cmd("read w --all --json").json();
    let all = all.as_array().expect("an array");
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["turn"], 1);
    assert_eq!(all[0]["prompt"], "first prompt");
    assert_eq!(all[0]["answer"], "Plan:\nstep one\nstep two");
    assert_eq!(all[0]["isError"], false);
    assert_eq!(all[1]["turn"], 2);
    assert_eq!(all[1]["prompt"], "second prompt");

    sb.cmd("read w --turn 1")
        .stdout("Plan:\nstep one\nstep two\n")
        .run();
    let one = sb.cmd("read w --turn 2 --json").json();
    assert_eq!(one["answer"], "Plan:\nstep one\nstep 2 done");
    let since = sb.cmd("read w --since-turn 1 --json").json();
    assert_eq!(since, json!([all[1]]));
    let none = sb.cmd("read w --since-turn 2 --json").json();
    assert_eq!(none, json!([]), "nothing after the last turn");
    let text = sb.umbel(["read", "w", "--all"]).run().stdout();
    assert!(text.starts_with("── turn 1: first prompt\nPlan:"), "{text}");
    assert!(text.contains("\n── turn 2: second prompt\n"), "{text}");

    sb.cmd("read w --turn 3")
        .stderr_has("`--turn 3`: worker `w` has 2 turns")
        .status(2);
    // Turn 1 alone is read without the rest, but a turn that does not exist names them all.
    for args in [
        &["read", "w", "--turn", "0"][..],
        &["diff", "w", "--from", "0", "--to", "1"][..],
    ] {
        sb.umbel(args)
            .stderr_has("0`: worker `w` has 2 turns")
            .status(2);
    }
    let beyond = sb.cmd("read w --since-turn 5 --json").run();
    assert_eq!(beyond.json()["error"]["code"], "turn_out_of_range");
    sb.cmd("read w --turn 1 --all").status(2);
}

fn actions_lists_the_tools_of_a_turn(provider: &str) {
    let sb = Sandbox::new();
    two_turns(&sb, provider);
    let last = sb.umbel(["actions", "w", "--json"]).json();
    assert_eq!(last["turn"], 2);
    let actions = last["actions"].as_array().expect("actions");
    assert_eq!(actions.len(), 1, "{last}");
    let expected_tool = match provider {
        "claude" => "Bash",
        "codex" => "exec_command",
        "opencode" | "copilot" => "bash",
        _ => "run_shell_command",
    };
    assert_eq!(actions[0]["tool"], expected_tool);
    assert_eq!(actions[0]["input"], "echo hi");
    assert_eq!(actions[0]["status"], "ok");
    let text = sb.umbel(["actions", "w"]).run().stdout();
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>(),
        ["ok", expected_tool, "echo", "hi"]
    );

    let first = sb.cmd("actions w --turn 1 --json").json();
    assert_eq!(first["actions"], json!([]));
    sb.cmd("actions w --turn 1")
        .stderr_has("ran no tools")
        .stdout("")
        .success();
    sb.cmd("actions w --turn 0").status(2);
}

fn diff_shows_what_changed_between_two_answers(provider: &str) {
    let sb = Sandbox::new();
    two_turns(&sb, provider);
    sb.umbel(["diff", "w"])
        .stdout(
            "--- turn 1\n+++ turn 2\n@@ -1,3 +1,3 @@\n Plan:\n step one\n-step two\n+step 2 done\n",
        )
        .success();
    let data = sb.cmd("diff w --from 1 --to 2 --json").json();
    assert_eq!(data["identical"], false);
    assert_eq!(data["fromText"], "Plan:\nstep one\nstep two");
    assert_eq!(data["toText"], "Plan:\nstep one\nstep 2 done");
    assert_eq!(
        data["hunks"][0]["lines"],
        json!([" Plan:", " step one", "-step two", "+step 2 done"])
    );
    sb.cmd("diff w --from 2 --to 2")
        .stdout("turns 2 and 2 of `w` have the same answer\n")
        .success();
    sb.cmd("diff w --from 9").stderr_has("`--from 9`").status(2);
}

#[test]
fn diff_needs_two_turns() {
    let sb = Sandbox::new();
    sb.spawn("one", &[]);
    for verb in ["actions", "diff"] {
        let out = sb.umbel([verb, "one", "--json"]).run();
        assert_eq!(
            out.json()["error"]["code"],
            "no_answer",
            "{verb} before any prompt"
        );
    }
    let out = sb.cmd("read one --all --json").run();
    assert_eq!(out.json(), json!([]), "no turns yet");
    sb.turn("one", "hello").success();
    sb.umbel(["diff", "one"])
        .stderr_has("no turn before turn 1")
        .status(2);
    let fresh = sb.cmd("read one --all --json").run();
    assert_eq!(fresh.json().as_array().map(Vec::len), Some(1));
}
