//! Snapshot tests (insta) of what people and scripts read: `--help` of umbel and of every verb,
//! and the JSON outputs, on the fakes, with volatile values (paths, ids, times, versions)
//! redacted. `just snap` accepts changes; review them with `git diff`.

use crate::harness::*;
use serde_json::Value;

/// Every visible verb (hidden ones — `man` — are not part of the interface people see).
const VERBS: &[&str] = &[
    "spawn",
    "send",
    "wait",
    "interrupt",
    "mode",
    "model",
    "budget",
    "approve",
    "deny",
    "answer",
    "approvals",
    "read",
    "actions",
    "diff",
    "attach",
    "status",
    "ls",
    "top",
    "kill",
    "park",
    "resume",
    "capture",
    "explain",
    "logs",
    "events",
    "prune",
    "run",
    "doctor",
    "releases",
    "completions",
    "mcp",
    "acp",
    "serve",
];

#[test]
fn snapshot_help_of_umbel_and_every_verb() {
    let sb = Sandbox::new();
    let main = sb.umbel(["--help"]).success();
    insta::assert_snapshot!("help", main.stdout());
    for verb in VERBS {
        let out = sb.umbel([verb, "--help"]).success();
        insta::assert_snapshot!(format!("help_{verb}"), out.stdout());
    }
    // The list above is the CLI's: a new verb needs its snapshot.
    let listed: Vec<String> = main
        .stdout()
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A verb starts at column 2; wrapped descriptions are indented further.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|v| v != "help")
        .collect();
    assert_eq!(listed, VERBS, "verbs in `umbel --help`");
}

/// The JSON lines of `out`, pretty-printed, with volatile values redacted.
fn redacted(sb: &Sandbox, out: &std::process::Output) -> String {
    let pretty: Vec<String> = stdout(out)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            serde_json::to_string_pretty(&v).expect("json")
        })
        .collect();
    let mut text = pretty.join("\n");
    let bin_dir = fake("fake-claude");
    let bin_dir = bin_dir.parent().expect("bin dir").to_string_lossy();
    text = text.replace(&*bin_dir, "[BIN]");
    text = text.replace(&*sb.root.to_string_lossy(), "[SANDBOX]");
    // Claude's transcript folder is the project path with every other character as `-`.
    let encoded: String = sb
        .root
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    text = text.replace(&encoded, "[SANDBOX-ENCODED]");
    let filters = [
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[UUID]",
        ),
        (
            r#""(createdAt|readyAt|lastEventAt|turnStartedAt|turnEndedAt|duration_ms|at|timestamp)": \d+"#,
            r#""$1": "[MS]""#,
        ),
        (
            r#""umbelVersion": "[^"]*""#,
            r#""umbelVersion": "[VERSION]""#,
        ),
        (r"umbel-[0-9a-f]{12}", "umbel-[SOCKET]"),
        // opencode's ids (time, then random characters) and its parts' times.
        (
            r"\b(ses|msg|prt)_[0-9a-f]{12}[0-9A-Za-z]{14}\b",
            "${1}_[ID]",
        ),
        (r#""(start|end)": \d+"#, r#""$1": "[MS]""#),
        // copilot's request ids, and the time and duration umbel stamps its `result` with.
        (r"chatcmpl-[0-9A-Za-z]{24}", "chatcmpl-[ID]"),
        (
            r#""sessionDurationMs": \d+"#,
            r#""sessionDurationMs": "[MS]""#,
        ),
        (
            r#"("type": "result",\s*"timestamp": )"[^"]+""#,
            r#"$1"[TIME]""#,
        ),
        // How umbel was installed depends on where the tests' binary is built.
        (
            r#""detail": "\d+\.\d+\.\d+ installed [^"]*""#,
            r#""detail": "[VERSION] installed [HOW]""#,
        ),
        (r"tmux \d+\.\d+[a-z]?", "tmux [VERSION]"),
        (r"tmux-\d+", "tmux-[UID]"),
    ];
    for (pattern, replacement) in filters {
        text = regex::Regex::new(pattern)
            .expect("filter")
            .replace_all(&text, replacement)
            .into_owned();
    }
    text
}

#[test]
fn snapshot_json_of_the_supervisor_verbs() {
    let sb = Sandbox::new();
    let spawned = sb.cmd("spawn --name j1 --json").success();
    insta::assert_snapshot!("spawn_json", redacted(&sb, &spawned));
    let sent = sb.cmd("send j1 hello --json").run();
    insta::assert_snapshot!("send_json", redacted(&sb, &sent));
    let waited = sb.umbel(["wait", "j1", "--json"]).run();
    insta::assert_snapshot!("wait_json", redacted(&sb, &waited));
    let status = sb.umbel(["status", "j1", "--json"]).run();
    insta::assert_snapshot!("status_json", redacted(&sb, &status));
    let read = sb.umbel(["read", "j1", "--json"]).run();
    insta::assert_snapshot!("read_json", redacted(&sb, &read));
    let ls = sb.umbel(["ls", "--json"]).run();
    insta::assert_snapshot!("ls_json", redacted(&sb, &ls));
    let missing = sb.umbel(["wait", "nobody", "--json"]).run();
    insta::assert_snapshot!("error_json", redacted(&sb, &missing));
}

#[test]
fn snapshot_json_of_print_mode_per_provider() {
    let sb = Sandbox::new();
    for provider in PROVIDERS {
        let out = sb
            .cmd(&format!("-p hi --provider {provider} --output-format json"))
            .success();
        insta::assert_snapshot!(format!("print_json_{provider}"), redacted(&sb, &out));
    }
}

#[test]
fn snapshot_json_of_doctor() {
    let sb = Sandbox::new();
    for dir in [".claude", ".codex", ".gemini"] {
        std::fs::create_dir_all(sb.home.join(dir)).expect("mkdir");
    }
    let out = sb.umbel(["doctor", "--json"]).success();
    insta::assert_snapshot!("doctor_json", redacted(&sb, &out));
}
