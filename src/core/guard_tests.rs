use super::*;
use serde_json::json;

#[test]
fn a_command_line_splits_like_a_shell_and_runs_without_one() {
    let cmd = CheckCommand::Line("python3 'my check.py' --strict".into());
    assert_eq!(
        cmd.argv(false).unwrap(),
        ["python3", "my check.py", "--strict"]
    );
    assert_eq!(
        cmd.argv(true).unwrap(),
        ["sh", "-c", "python3 'my check.py' --strict"]
    );
}

#[test]
fn bad_command_lines_are_refused_with_the_reason() {
    let unbalanced = CheckCommand::Line("grep 'oops".into());
    assert!(unbalanced.argv(false).unwrap_err().contains("unbalanced"));
    assert!(
        CheckCommand::Line("  ".into())
            .argv(false)
            .unwrap_err()
            .contains("empty")
    );
    let list = CheckCommand::Argv(vec!["a".into()]);
    assert!(list.argv(true).unwrap_err().contains("one command line"));
}

#[test]
fn an_argv_list_is_taken_as_is_and_displayed_quoted() {
    let cmd: CheckCommand = serde_json::from_value(json!(["jq", "-e", ".ok == true"])).unwrap();
    assert_eq!(cmd.argv(false).unwrap(), ["jq", "-e", ".ok == true"]);
    assert_eq!(cmd.to_string(), "jq -e '.ok == true'");
    let line: CheckCommand = serde_json::from_value(json!("make check")).unwrap();
    assert_eq!(line, CheckCommand::Line("make check".into()));
}

#[test]
fn json_is_the_whole_answer_or_its_last_fenced_block() {
    assert_eq!(extract_json(" {\"a\": 1}\n").unwrap(), json!({"a": 1}));
    let fenced = "Here you go:\n\n```json\n{\"a\": 2}\n```\n";
    assert_eq!(extract_json(fenced).unwrap(), json!({"a": 2}));
    let corrected = "```json\n{\"a\": 1,}\n```\nSorry, fixed:\n~~~\n[1, 2]\n~~~";
    assert_eq!(extract_json(corrected).unwrap(), json!([1, 2]));
}

#[test]
fn prose_and_broken_blocks_say_what_is_wrong() {
    let prose = extract_json("The answer is forty-two.").unwrap_err();
    assert!(
        prose.contains("not JSON") && prose.contains("no fenced"),
        "{prose}"
    );
    let broken = extract_json("```json\n{\"a\": }\n```").unwrap_err();
    assert!(
        broken.contains("fenced block is not valid JSON"),
        "{broken}"
    );
}

#[cfg(feature = "schema")]
#[test]
fn schema_problems_are_located() {
    let schema = Schema::compile(&json!({
        "type": "object",
        "required": ["items"],
        "properties": {"items": {"type": "array", "items": {
            "type": "object", "properties": {"price": {"type": "number"}}}}}
    }))
    .unwrap();
    assert!(
        schema
            .problems(&json!({"items": [{"price": 3}]}))
            .is_empty()
    );
    let problems = schema.problems(&json!({"items": [{"price": "x"}]}));
    assert_eq!(problems, [r#"/items/0/price: "x" is not of type "number""#]);
    let missing = schema.problems(&json!({}));
    assert_eq!(missing, [r#"(root): "items" is a required property"#]);
}

#[cfg(feature = "schema")]
#[test]
fn a_broken_schema_is_refused() {
    let err = Schema::compile(&json!({"type": "no-such-type"}))
        .err()
        .unwrap();
    assert!(err.contains("no-such-type"), "{err}");
}

#[cfg(not(feature = "schema"))]
#[test]
fn without_the_schema_feature_every_schema_is_refused() {
    let Err(err) = Schema::compile(&json!({}));
    assert!(err.contains("feature `schema`"), "{err}");
}

#[test]
fn the_feedback_wording_is_fixed() {
    let check = Rejection {
        attempt: 1,
        max_attempts: 3,
        kind: CheckKind::Accept,
        subject: "./check.sh",
        status: Some("exit status 1"),
        details: "missing: tests\n",
        details_dropped: 0,
    };
    assert_eq!(
        check.feedback(),
        "[umbel] Your answer was rejected (attempt 1 of 3) by the check `./check.sh` (exit \
         status 1). Its output:\nmissing: tests\n\nFix what it reports and answer again."
    );
    let schema = Rejection {
        attempt: 2,
        max_attempts: 2,
        kind: CheckKind::Schema,
        subject: "s.json",
        status: None,
        details: &problem_lines(&["(root): \"a\" is a required property".into()]),
        details_dropped: 0,
    };
    assert_eq!(
        schema.feedback(),
        "[umbel] Your answer was rejected (attempt 2 of 2): it must be a JSON value valid \
         against the schema s.json. Problems:\n- (root): \"a\" is a required property\n\n\
         Answer again with the corrected JSON only."
    );
}

#[test]
fn long_output_keeps_its_end() {
    let text = format!("{}END", "é".repeat(10));
    let cut = tail(&text, 6);
    assert!(cut.ends_with("éEND") || cut.ends_with("END"), "{cut}");
    assert!(cut.starts_with("[… "), "{cut}");
    assert_eq!(tail("short", 10), "short");
}

#[test]
fn check_kinds_print_as_they_serialise() {
    for kind in [CheckKind::Schema, CheckKind::Accept] {
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
    }
}

#[test]
fn a_tail_counts_the_bytes_cut_before_it_too() {
    assert_eq!(tail_after("abcdef", 4, 0), "[… 2 bytes cut …]\ncdef");
    assert_eq!(tail_after("abcdef", 4, 100), "[… 102 bytes cut …]\ncdef");
    assert_eq!(tail_after("abc", 4, 7), "[… 7 bytes cut …]\nabc");
    assert_eq!(tail_after("abc", 4, 0), "abc");
}
