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
    let scenario = sb.scenario(
        "s",
        json!({ "turns": [
            { "reply": "Plan:\nstep one\nstep two" },
            { "reply": "Plan:\nstep one\nstep 2 done", "end": { "permission": tool } }
        ] }),
    );
    sb.spawn(
        "w",
        &["--provider", provider, "--unattended", "--env", &scenario],
    );
    for prompt in ["first prompt", "second prompt"] {
        assert_success(&sb.run(&["send", "w", prompt]), "send");
        assert_success(&sb.run(&["wait", "w", "--timeout", "30s"]), "wait");
    }
}

fn read_selects_turns_by_number(provider: &str) {
    let sb = Sandbox::new();
    two_turns(&sb, provider);
    let all = json_of(&sb.run(&["read", "w", "--all", "--json"]));
    let all = all.as_array().expect("an array");
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["turn"], 1);
    assert_eq!(all[0]["prompt"], "first prompt");
    assert_eq!(all[0]["answer"], "Plan:\nstep one\nstep two");
    assert_eq!(all[0]["isError"], false);
    assert_eq!(all[1]["turn"], 2);
    assert_eq!(all[1]["prompt"], "second prompt");

    let first = sb.run(&["read", "w", "--turn", "1"]);
    assert_eq!(stdout(&first), "Plan:\nstep one\nstep two\n");
    let one = json_of(&sb.run(&["read", "w", "--turn", "2", "--json"]));
    assert_eq!(one["answer"], "Plan:\nstep one\nstep 2 done");
    let since = json_of(&sb.run(&["read", "w", "--since-turn", "1", "--json"]));
    assert_eq!(since, json!([all[1]]));
    let none = json_of(&sb.run(&["read", "w", "--since-turn", "2", "--json"]));
    assert_eq!(none, json!([]), "nothing after the last turn");
    let text = stdout(&sb.run(&["read", "w", "--all"]));
    assert!(text.starts_with("── turn 1: first prompt\nPlan:"), "{text}");
    assert!(text.contains("\n── turn 2: second prompt\n"), "{text}");

    let beyond = sb.run(&["read", "w", "--turn", "3"]);
    assert_eq!(beyond.status.code(), Some(2));
    assert!(
        stderr(&beyond).contains("`--turn 3`: worker `w` has 2 turns"),
        "{}",
        stderr(&beyond)
    );
    // Turn 1 alone is read without the rest, but a turn that does not exist names them all.
    for args in [
        &["read", "w", "--turn", "0"][..],
        &["diff", "w", "--from", "0", "--to", "1"][..],
    ] {
        let zero = sb.run(args);
        assert_eq!(zero.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&zero).contains("0`: worker `w` has 2 turns"),
            "{}",
            stderr(&zero)
        );
    }
    let beyond = sb.run(&["read", "w", "--since-turn", "5", "--json"]);
    assert_eq!(json_of(&beyond)["error"]["code"], "turn_out_of_range");
    let both = sb.run(&["read", "w", "--turn", "1", "--all"]);
    assert_eq!(both.status.code(), Some(2), "the flags exclude each other");
}

fn actions_lists_the_tools_of_a_turn(provider: &str) {
    let sb = Sandbox::new();
    two_turns(&sb, provider);
    let last = json_of(&sb.run(&["actions", "w", "--json"]));
    assert_eq!(last["turn"], 2);
    let actions = last["actions"].as_array().expect("actions");
    assert_eq!(actions.len(), 1, "{last}");
    let expected_tool = match provider {
        "claude" => "Bash",
        "codex" => "exec_command",
        _ => "run_shell_command",
    };
    assert_eq!(actions[0]["tool"], expected_tool);
    assert_eq!(actions[0]["input"], "echo hi");
    assert_eq!(actions[0]["status"], "ok");
    let text = stdout(&sb.run(&["actions", "w"]));
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>(),
        ["ok", expected_tool, "echo", "hi"]
    );

    let first = json_of(&sb.run(&["actions", "w", "--turn", "1", "--json"]));
    assert_eq!(first["actions"], json!([]));
    let quiet = sb.run(&["actions", "w", "--turn", "1"]);
    assert_success(&quiet, "actions of a turn without tools");
    assert_eq!(stdout(&quiet), "");
    assert!(
        stderr(&quiet).contains("ran no tools"),
        "{}",
        stderr(&quiet)
    );
    assert_eq!(
        sb.run(&["actions", "w", "--turn", "0"]).status.code(),
        Some(2)
    );
}

fn diff_shows_what_changed_between_two_answers(provider: &str) {
    let sb = Sandbox::new();
    two_turns(&sb, provider);
    let diff = sb.run(&["diff", "w"]);
    assert_success(&diff, "diff");
    assert_eq!(
        stdout(&diff),
        "--- turn 1\n+++ turn 2\n@@ -1,3 +1,3 @@\n Plan:\n step one\n-step two\n+step 2 done\n"
    );
    let data = json_of(&sb.run(&["diff", "w", "--from", "1", "--to", "2", "--json"]));
    assert_eq!(data["identical"], false);
    assert_eq!(data["fromText"], "Plan:\nstep one\nstep two");
    assert_eq!(data["toText"], "Plan:\nstep one\nstep 2 done");
    assert_eq!(
        data["hunks"][0]["lines"],
        json!([" Plan:", " step one", "-step two", "+step 2 done"])
    );
    let same = sb.run(&["diff", "w", "--from", "2", "--to", "2"]);
    assert_success(&same, "diff of a turn with itself");
    assert_eq!(stdout(&same), "turns 2 and 2 of `w` have the same answer\n");
    let out = sb.run(&["diff", "w", "--from", "9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`--from 9`"), "{}", stderr(&out));
}

#[test]
fn diff_needs_two_turns() {
    let sb = Sandbox::new();
    sb.spawn("one", &[]);
    for verb in ["actions", "diff"] {
        let out = sb.run(&[verb, "one", "--json"]);
        assert_eq!(
            json_of(&out)["error"]["code"],
            "no_answer",
            "{verb} before any prompt"
        );
    }
    let out = sb.run(&["read", "one", "--all", "--json"]);
    assert_eq!(json_of(&out), json!([]), "no turns yet");
    assert_success(&sb.run(&["send", "one", "hello"]), "send");
    assert_success(&sb.run(&["wait", "one"]), "wait");
    let out = sb.run(&["diff", "one"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no turn before turn 1"),
        "{}",
        stderr(&out)
    );
    let fresh = sb.run(&["read", "one", "--all", "--json"]);
    assert_eq!(json_of(&fresh).as_array().map(Vec::len), Some(1));
}
