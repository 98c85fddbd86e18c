use super::*;
use serde_json::json;

const GEMINI: ToolNames = &[
    ("Bash", &["run_shell_command"]),
    ("Edit", &["replace", "write_file"]),
    ("Write", &["write_file"]),
    ("WebFetch", &["web_fetch"]),
];

fn rules(allow: &[&str], deny: &[&str]) -> RuleSet {
    RuleSet {
        allow: allow.iter().map(|s| s.to_string()).collect(),
        deny: deny.iter().map(|s| s.to_string()).collect(),
    }
}

fn place() -> Place<'static> {
    Place {
        cwd: Path::new("/work/proj"),
        home: Some(Path::new("/home/me")),
    }
}

fn bash(set: &RuleSet, command: &str) -> Verdict {
    set.verdict(&[], "Bash", &json!({ "command": command }), place())
}

#[test]
fn a_command_rule_allows_what_it_covers_and_leaves_the_rest_to_a_person() {
    let set = rules(&["Bash(echo *)"], &[]);
    let allow = Verdict::Allow("Bash(echo *)".into());
    assert_eq!(bash(&set, "echo hi > umbel-tool.txt"), allow);
    assert_eq!(bash(&set, "echo"), allow);
    assert_eq!(bash(&set, "rm -rf x"), Verdict::Ask);
    assert_eq!(bash(&set, "echoes"), Verdict::Ask);
}

#[test]
fn every_part_of_a_compound_command_must_be_allowed_and_any_part_denies() {
    let set = rules(&["Bash(echo *)", "Bash(git status)"], &["Bash(rm *)"]);
    assert_eq!(
        bash(&set, "echo a && git status"),
        Verdict::Allow("Bash(echo *)".into())
    );
    assert_eq!(bash(&set, "echo a; curl x | sh"), Verdict::Ask);
    assert_eq!(
        bash(&set, "echo a || rm -rf /"),
        Verdict::Deny("Bash(rm *)".into())
    );
    // Quoted operators are text, not operators.
    assert_eq!(
        bash(&set, "echo 'a && rm b'"),
        Verdict::Allow("Bash(echo *)".into())
    );
    // A command that builds a command is never allowed by a rule.
    assert_eq!(bash(&set, "echo $(rm -rf x)"), Verdict::Ask);
    assert_eq!(bash(&set, "echo `id`"), Verdict::Ask);
}

#[test]
fn the_older_prefix_spelling_and_a_bare_tool_name_work() {
    let set = rules(&["Bash(npm test:*)"], &[]);
    assert_eq!(
        bash(&set, "npm test --watch"),
        Verdict::Allow("Bash(npm test:*)".into())
    );
    assert_eq!(bash(&set, "npm install"), Verdict::Ask);
    let any = rules(&[], &["Bash"]);
    assert_eq!(bash(&any, "ls"), Verdict::Deny("Bash".into()));
}

#[test]
fn a_refusal_wins_over_an_allowance() {
    let set = rules(&["Bash"], &["Bash(rm *)"]);
    assert_eq!(bash(&set, "rm x"), Verdict::Deny("Bash(rm *)".into()));
    assert_eq!(bash(&set, "ls"), Verdict::Allow("Bash".into()));
}

#[test]
fn each_cli_s_own_tool_names_are_matched_by_claude_s() {
    let set = rules(&["Bash(echo *)"], &["Edit"]);
    let shell = json!({ "command": "echo hi", "description": "x" });
    assert_eq!(
        set.verdict(GEMINI, "run_shell_command", &shell, place()),
        Verdict::Allow("Bash(echo *)".into())
    );
    let write = json!({ "file_path": "a.txt" });
    assert_eq!(
        set.verdict(GEMINI, "write_file", &write, place()),
        Verdict::Deny("Edit".into())
    );
    let only_writes = rules(&["Write"], &[]);
    assert_eq!(
        only_writes.verdict(GEMINI, "write_file", &write, place()),
        Verdict::Allow("Write".into())
    );
    assert_eq!(
        only_writes.verdict(GEMINI, "replace", &write, place()),
        Verdict::Ask
    );
    // A tool the table does not name is matched by name, ignoring case.
    let mcp = rules(&["mcp__docs__search"], &[]);
    assert_eq!(
        mcp.verdict(GEMINI, "mcp__docs__search", &json!({}), place()),
        Verdict::Allow("mcp__docs__search".into())
    );
}

#[test]
fn path_rules_resolve_from_the_worker_s_folder_home_and_root() {
    let set = rules(
        &["Edit(src/**)", "Edit(~/notes/*)", "Edit(//tmp/*.log)"],
        &[],
    );
    let edit = |path: &str| set.verdict(&[], "Edit", &json!({ "file_path": path }), place());
    assert_eq!(edit("src/a/b.rs"), Verdict::Allow("Edit(src/**)".into()));
    assert_eq!(
        edit("/work/proj/src/x.rs"),
        Verdict::Allow("Edit(src/**)".into())
    );
    assert_eq!(edit("README.md"), Verdict::Ask);
    assert_eq!(edit("src/../../etc/passwd"), Verdict::Ask);
    assert_eq!(
        edit("/home/me/notes/today.md"),
        Verdict::Allow("Edit(~/notes/*)".into())
    );
    assert_eq!(
        edit("/tmp/x.log"),
        Verdict::Allow("Edit(//tmp/*.log)".into())
    );
    let any_depth = rules(&["Edit(*.md)"], &[]);
    assert_eq!(
        any_depth.verdict(&[], "Edit", &json!({ "filePath": "docs/a.md" }), place()),
        Verdict::Allow("Edit(*.md)".into())
    );
}

#[test]
fn domain_rules_cover_the_host_and_its_subdomains_only() {
    let set = rules(&["WebFetch(domain:docs.rs)"], &[]);
    let fetch = |url: &str| set.verdict(&[], "WebFetch", &json!({ "url": url }), place());
    let allow = Verdict::Allow("WebFetch(domain:docs.rs)".into());
    assert_eq!(fetch("https://docs.rs/serde"), allow);
    assert_eq!(fetch("https://www.docs.rs:443/x"), allow);
    assert_eq!(fetch("https://evildocs.rs/"), Verdict::Ask);
    assert_eq!(fetch("https://docs.rs.evil.com/"), Verdict::Ask);
}

#[test]
fn a_malformed_rule_is_a_usage_error_naming_it_and_its_flag() {
    for (bad, why) in [
        ("Bash(echo", "does not end with `)`"),
        ("Bash()", "is empty"),
        ("(echo)", "tool's name"),
        ("Bash echo", "tool's name"),
        ("WebFetch(docs.rs)", "domain:"),
        ("Glob(src/*)", "name `Glob` alone"),
        ("Edit(src/[)", "not a path pattern"),
    ] {
        let err = rules(&[], &[bad]).check().expect_err(bad).to_string();
        assert!(
            err.contains(&format!("`--disallowed-tools {bad}`")),
            "{err}"
        );
        assert!(err.contains(why), "{bad}: {err}");
    }
    assert!(
        rules(&["Bash(echo *)", "Edit(src/**)", "Read"], &[])
            .check()
            .is_ok()
    );
}
