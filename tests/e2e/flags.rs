//! The agent-CLI flags umbel passes through: per provider, each flag reaches the fake as the
//! provider's own flag (its recorded `argv.json`) or setting (the settings file umbel wrote), or
//! is refused before anything starts with a message naming the flag and the provider; the raw
//! `--` tail goes last and untouched, on `spawn` and on `-p`.

use crate::harness::*;
use serde_json::Value;

/// What one flag must become.
enum Expect {
    /// These arguments appear in this order on the CLI's command line.
    Argv(&'static [&'static str]),
    /// The settings file umbel writes holds this string at this JSON pointer.
    Setting(&'static str, &'static str),
    /// Refused with a usage error (exit 2).
    Refused,
    /// Changes the launch itself, not a flag: proven by its own scenario (codex `--resume`:
    /// `tiers::*::codex::resume_continues_a_codex_thread_run_outside_umbel`).
    Launch,
    /// Not handed to the CLI: one of umbel's rules (the worker's `rules.json`, this list and
    /// value), answered on its permission hook.
    Rule(&'static str, &'static str),
    /// Not handed to the CLI: umbel's own limit, kept in the worker's file of this name (with
    /// this value); the flag's value is on no CLI's command line.
    Held(&'static str, &'static str),
}

use Expect::*;

/// Per flag: umbel's arguments and what each provider must receive.
#[allow(clippy::type_complexity)]
const CASES: &[(&[&str], [Expect; 6])] = &[
    (
        &["-m", "big"],
        [
            Argv(&["--model", "big"]),
            Argv(&["-m", "big"]),
            Argv(&["-m", "big"]),
            Argv(&["-m", "big"]),
            Argv(&["-m", "big"]),
            Argv(&["--model", "big"]),
        ],
    ),
    (
        &["--permission-mode", "plan"],
        [
            Setting("/permissions/defaultMode", "plan"),
            Refused,
            Argv(&["--approval-mode", "plan"]),
            Argv(&["--approval-mode", "plan"]),
            Refused,
            Refused,
        ],
    ),
    (
        &["--allowedTools", "Bash", "--allowed-tools", "Edit"],
        [
            Argv(&["--allowedTools", "Bash", "--allowedTools", "Edit"]),
            Rule("allow", "Edit"),
            Rule("allow", "Edit"),
            Rule("allow", "Edit"),
            Rule("allow", "Edit"),
            Rule("allow", "Edit"),
        ],
    ),
    (
        &["--disallowedTools", "web_fetch"],
        [
            Argv(&["--disallowedTools", "web_fetch"]),
            Rule("deny", "web_fetch"),
            Rule("deny", "web_fetch"),
            Rule("deny", "web_fetch"),
            Rule("deny", "web_fetch"),
            Rule("deny", "web_fetch"),
        ],
    ),
    (
        &["--append-system-prompt", "Be brief."],
        [
            Argv(&["--append-system-prompt", "Be brief."]),
            Argv(&["-c", "developer_instructions=\"Be brief.\""]),
            Refused,
            Argv(&["--append-system-prompt", "Be brief."]),
            Refused,
            Refused,
        ],
    ),
    (
        &["--system-prompt", "You are terse."],
        [
            Argv(&["--system-prompt", "You are terse."]),
            Refused,
            Refused,
            Argv(&["--system-prompt", "You are terse."]),
            Refused,
            Refused,
        ],
    ),
    (
        &["--max-turns", "3"],
        [
            Held("max-turns.json", "3"),
            Held("max-turns.json", "3"),
            Held("max-turns.json", "3"),
            Held("max-turns.json", "3"),
            Held("max-turns.json", "3"),
            Held("max-turns.json", "3"),
        ],
    ),
    (
        &["--mcp-config", "mcp.json"],
        [
            Argv(&["--mcp-config", "mcp.json"]),
            Refused,
            Refused,
            Argv(&["--mcp-config", "mcp.json"]),
            Refused,
            Refused,
        ],
    ),
    (
        &["--add-dir", "/srv/a", "--add-dir", "/srv/b"],
        [
            Setting("/permissions/additionalDirectories/1", "/srv/b"),
            Argv(&["--add-dir", "/srv/a", "--add-dir", "/srv/b"]),
            Argv(&[
                "--include-directories",
                "/srv/a",
                "--include-directories",
                "/srv/b",
            ]),
            Argv(&[
                "--include-directories",
                "/srv/a",
                "--include-directories",
                "/srv/b",
            ]),
            Refused,
            Argv(&["--add-dir", "/srv/a", "--add-dir", "/srv/b"]),
        ],
    ),
    (
        &["--resume", "0d9c2a4e-1111-4222-8333-444455556666"],
        [
            Argv(&[
                "--fork-session",
                "--resume",
                "0d9c2a4e-1111-4222-8333-444455556666",
            ]),
            Launch,
            Refused,
            Refused,
            Refused,
            Refused,
        ],
    ),
    (
        &["--continue"],
        [
            Argv(&["--fork-session", "--continue"]),
            Refused,
            Refused,
            Refused,
            Refused,
            Refused,
        ],
    ),
];

const PROVIDERS: [&str; 6] = ["claude", "codex", "gemini", "qwen", "opencode", "copilot"];

fn argv(sb: &Sandbox) -> Vec<String> {
    let text = std::fs::read_to_string(sb.record.join("argv.json")).expect("argv.json");
    serde_json::from_str(&text).expect("argv list")
}

fn contains(haystack: &[String], needle: &[&str]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn settings(sb: &Sandbox, provider: &str, worker: &str) -> Value {
    let dir = sb.session_dir(worker);
    let path = match provider {
        "claude" => dir.join("claude-settings.json"),
        "qwen" => dir.join("qwen-home/settings.json"),
        _ => dir.join("gemini-home/.gemini/settings.json"),
    };
    serde_json::from_str(&std::fs::read_to_string(path).expect("settings")).expect("json")
}

/// Every flag a provider maps, in one spawn; every flag it lacks, refused on its own.
fn flags_reach_the_cli_or_are_refused(index: usize) {
    let provider = PROVIDERS[index];
    let sb = Sandbox::new();
    let mut mapped: Vec<&str> = vec!["--provider", provider];
    let record = sb.record_env();
    mapped.extend(["--env", record.as_str()]);
    for (args, expect) in CASES {
        if let Refused = expect[index] {
            let mut refused = vec!["spawn", "--name", "r", "--provider", provider];
            refused.extend_from_slice(args);
            let out = sb.umbel(&refused).status(2);
            let err = out.stderr();
            let flag = match args[0] {
                "-m" => "--model",
                "--allowedTools" => "--allowed-tools",
                "--disallowedTools" => "--disallowed-tools",
                other => other,
            };
            assert!(
                err.contains(&format!("`{flag}` is not available with {provider}")),
                "{args:?}: {err}"
            );
        } else if args[0] != "--continue" && !matches!(expect[index], Launch) {
            mapped.extend_from_slice(args);
        }
    }
    assert!(sb.worker_dirs().is_empty(), "a refusal creates nothing");
    if provider == "claude" {
        // The session `--resume` names (claude refuses an unknown one).
        let project = std::fs::canonicalize(&sb.project).expect("project");
        let encoded: String = project
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let dir = sb.home.join(".claude/projects").join(encoded);
        std::fs::create_dir_all(&dir).expect("mkdir");
        let file = dir.join("0d9c2a4e-1111-4222-8333-444455556666.jsonl");
        sb.write(file, "{}\n");
    }
    // Something the CLI takes that umbel has no flag for.
    let tail = match provider {
        "gemini" | "qwen" => ["--include-directories", "/from/the/tail"],
        "opencode" => ["--agent", "/from/the/tail"],
        _ => ["--add-dir", "/from/the/tail"],
    };
    mapped.push("--");
    mapped.extend(tail);
    sb.spawn("f", &mapped);
    let got = argv(&sb);
    assert_eq!(got[got.len() - 2..], tail, "{got:?}");
    for (args, expect) in CASES {
        if args[0] == "--continue" && !matches!(expect[index], Refused) {
            // `--continue` excludes `--resume`: a worker of its own.
            sb.spawn(
                "c",
                &["--provider", provider, "--env", &record, "--continue"],
            );
        }
        let got = argv(&sb);
        match &expect[index] {
            Argv(want) => assert!(contains(&got, want), "{args:?}: {want:?} in {got:?}"),
            Setting(pointer, want) => {
                let settings = settings(&sb, provider, "f");
                assert_eq!(
                    settings.pointer(pointer),
                    Some(&Value::from(*want)),
                    "{args:?}"
                );
            }
            Rule(list, want) => {
                let path = sb.session_dir("f").join("rules.json");
                let text = std::fs::read_to_string(path).expect("rules.json");
                let rules: Value = serde_json::from_str(&text).expect("json");
                let listed = rules[*list].as_array().expect("list");
                assert!(listed.iter().any(|r| r == want), "{args:?}: {rules}");
                assert!(!got.iter().any(|a| a == want), "{args:?}: {got:?}");
            }
            Held(file, want) => {
                let path = sb.session_dir("f").join(file);
                let text = std::fs::read_to_string(path).expect("held limit");
                assert_eq!(text.trim(), *want, "{args:?}");
                assert!(!got.iter().any(|a| a == args[0]), "{args:?}: {got:?}");
            }
            Refused | Launch => {}
        }
    }
}

#[test]
fn claude_flags_reach_the_cli_or_are_refused() {
    flags_reach_the_cli_or_are_refused(0);
}

#[test]
fn codex_flags_reach_the_cli_or_are_refused() {
    flags_reach_the_cli_or_are_refused(1);
}

#[test]
fn gemini_flags_reach_the_cli_or_are_refused() {
    flags_reach_the_cli_or_are_refused(2);
}

#[test]
fn qwen_flags_reach_the_cli_or_are_refused() {
    flags_reach_the_cli_or_are_refused(3);
}

/// opencode maps `--model` alone: its other settings live in its opencode.json.
#[test]
fn opencode_flags_reach_the_cli_or_are_refused() {
    flags_reach_the_cli_or_are_refused(4);
}

/// `-p` passes the same flags and the `--` tail; `--permission-mode` replaces its default
/// `--on-permission deny`, and may not be given next to `--on-permission`.
#[test]
fn print_mode_passes_flags_and_the_tail() {
    let sb = Sandbox::new();
    let scenario = sb.scenario("s", sim::reply("ok"));
    let record = sb.record_env();
    let base = ["-p", "hi", "--env", &scenario, "--env", &record];
    sb.umbel(
        [
            &base[..],
            &[
                "--append-system-prompt",
                "Be brief.",
                "--",
                "--add-dir",
                "/t",
            ],
        ]
        .concat(),
    )
    .success();
    let got = argv(&sb);
    assert!(
        contains(&got, &["--append-system-prompt", "Be brief."]),
        "{got:?}"
    );
    assert_eq!(got[got.len() - 2..], ["--add-dir", "/t"], "{got:?}");
    // codex: `-p`'s `deny` default is `codex exec`'s approval and sandbox.
    sb.umbel([&base[..], &["--provider", "codex"]].concat())
        .success();
    let got = argv(&sb);
    let deny = ["--ask-for-approval", "never", "--sandbox", "read-only"];
    assert!(contains(&got, &deny), "{got:?}");
    let args = ["--provider", "codex", "--on-permission", "stop"];
    sb.umbel([&base[..], &args[..]].concat()).success();
    assert!(!contains(&argv(&sb), &deny), "{:?}", argv(&sb));
    // gemini: a mode of the user's own reaches the CLI (and is no conflict with the default).
    let args = ["--provider", "gemini", "--permission-mode", "auto_edit"];
    sb.umbel([&base[..], &args[..]].concat()).success();
    assert!(
        contains(&argv(&sb), &["--approval-mode", "auto_edit"]),
        "{:?}",
        argv(&sb)
    );
    let args = ["--permission-mode", "plan", "--on-permission", "deny"];
    sb.umbel([&base[..], &args[..]].concat())
        .stderr_has("give only one")
        .status(2);
}

#[test]
fn copilot_flags_reach_the_cli_or_are_refused() {
    flags_reach_the_cli_or_are_refused(5);
}
