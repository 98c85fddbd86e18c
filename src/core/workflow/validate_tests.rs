//! The validator on whole files: one valid pipeline, then a battery of broken ones, each
//! refused with the right line and column.

use super::*;
use crate::core::errors::Error;
use crate::core::workflow::model;

fn check(yaml: &str) -> Result<Plan, Vec<Problem>> {
    let file = match model::parse(Path::new("wf.yaml"), yaml) {
        Ok(file) => file,
        Err(Error::InvalidWorkflow { problems, .. }) => return Err(problems),
        Err(e) => panic!("unexpected error {e}"),
    };
    let env = vec![("TOPIC".to_string(), "owls".to_string())];
    let cx = Context {
        text: yaml,
        base: Path::new("/base"),
        env: &env,
        is_dir: &|p: &Path| p.starts_with("/base") && !p.ends_with("missing"),
    };
    validate(file, &cx)
}

/// Asserts the one problem in `yaml` is at `(line, column)` and says `says`.
#[track_caller]
fn assert_problem(yaml: &str, at: (u64, u64), says: &str) {
    let p = problem_saying(yaml, says);
    assert_eq!((p.line, p.column), at, "{p:?}");
}

/// The one problem in `yaml`, asserted to say `says` (for more checks on where it is).
#[track_caller]
fn problem_saying(yaml: &str, says: &str) -> Problem {
    let p = only_problem(yaml);
    assert!(p.message.contains(says), "{p:?}");
    p
}

/// `GOOD` with `from` (which must be in it, so a stale edit cannot pass unseen) replaced by `to`.
#[track_caller]
fn good_with(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "GOOD has no {from:?}");
    GOOD.replace(from, to)
}

#[track_caller]
fn only_problem(yaml: &str) -> Problem {
    let problems = check(yaml).expect_err("should be refused");
    assert_eq!(problems.len(), 1, "{problems:#?}");
    problems.into_iter().next().unwrap()
}

const GOOD: &str = "\
name: review
workers:
  writer: {provider: claude, cwd: ./proj}
  critic:
    provider: gemini
    env: {MODE: strict, T: {fromEnv: TOPIC}}
steps:
  - id: draft
    worker: writer
    prompt: 'Write about {{ env.TOPIC }}'
    outputs: {text: answer, file: 'file:out.md'}
  - id: review
    worker: critic
    needs: [draft]
    prompt: |
      Review this:
      {{ steps.draft.outputs.text }}
    wait: {timeout: 5m, pattern: 'LGTM|NACK'}
  - id: polish
    worker: writer
    prompt: 'Apply {{ steps.review.answer }} as {{ $session }}'
    needs: [review]
  - id: side
    worker: critic
    prompt: independent
";

#[test]
fn a_good_file_plans_waves_with_worker_order() {
    let plan = check(GOOD).unwrap();
    assert_eq!(plan.name.as_deref(), Some("review"));
    let ids = |wave: &Vec<usize>| -> Vec<&str> {
        wave.iter().map(|&i| plan.steps[i].id.as_str()).collect()
    };
    let waves: Vec<Vec<&str>> = plan.waves.iter().map(ids).collect();
    // `side` runs on critic after `review` (file order on one worker).
    assert_eq!(
        waves,
        vec![vec!["draft"], vec!["review"], vec!["polish", "side"]]
    );
    assert_eq!(
        plan.workers["writer"].spawn.cwd.as_deref(),
        Some(Path::new("/base/proj"))
    );
    assert_eq!(
        plan.workers["critic"].spawn.cwd.as_deref(),
        Some(Path::new("/base"))
    );
    assert_eq!(plan.steps[1].wait.timeout.as_deref(), Some("5m"));
    assert_eq!(
        plan.steps[0].outputs,
        vec![
            ("file".to_string(), OutputSource::File("out.md".into())),
            ("text".to_string(), OutputSource::Answer)
        ]
    );
}

#[test]
fn a_typo_field_is_named_where_it_is() {
    assert_problem(
        &good_with("    needs: [draft]", "    neds: [draft]"),
        (14, 5),
        "unknown field `neds`",
    );
    let p = problem_saying(
        &good_with("{provider: claude,", "{provder: claude,"),
        "provder",
    );
    assert_eq!(p.line, 3, "{p:?}");
}

#[test]
fn a_cycle_is_named_step_by_step() {
    let yaml = GOOD.replace("    needs: [draft]", "    needs: [draft, polish]");
    let p = only_problem(&yaml);
    assert!(p.message.starts_with("cycle: "), "{p:?}");
    assert!(p.message.contains("review → polish → review"), "{p:?}");
}

#[test]
fn unknown_templates_and_references_point_at_the_template() {
    assert_problem(
        &good_with("{{ env.TOPIC }}", "{{ env.TOPIC | upper }}"),
        (10, 26),
        "unknown template `{{ env.TOPIC | upper }}`",
    );
    // In a block scalar the template is found on its own line.
    assert_problem(
        &good_with("outputs.text }}", "outputs.nope }}"),
        (17, 7),
        "declares no output `nope`",
    );
    problem_saying(
        &good_with("    needs: [review]\n", ""),
        "not among this step's needs",
    );
    problem_saying(
        &good_with("{{ env.TOPIC }}", "{{ env.NOT_SET }}"),
        "NOT_SET is not set",
    );
    problem_saying(&good_with("{{ $session }}", "{{ $session"), "never closed");
}

/// A template naming its own step, or a step that runs after it, says what is wrong instead of
/// advising a `needs:` that would be a self-need or a cycle.
#[test]
fn a_template_on_its_own_or_a_later_step_says_why_it_cannot_be() {
    let p = problem_saying(
        &good_with("{{ env.TOPIC }}", "{{ steps.draft.outputs.text }}"),
        "a step cannot use its own output `text`",
    );
    assert_eq!((p.line, p.column), (10, 26), "{p:?}");
    assert!(!p.message.contains("needs:"), "{p:?}");
    problem_saying(
        &good_with("{{ $session }}", "{{ steps.polish.answer }}"),
        "a step cannot use its own answer",
    );
    // `polish` runs on draft's worker after it: needing it would close a circle.
    let p = problem_saying(
        &good_with("{{ env.TOPIC }}", "{{ steps.polish.answer }}"),
        "step `polish` runs after this one, so its answer does not exist yet: needing it would make a cycle: draft → polish → draft",
    );
    assert!(!p.message.contains("add it"), "{p:?}");
    // Through another worker's steps: review ← side (critic's next step).
    problem_saying(
        &good_with("{{ steps.draft.outputs.text }}", "{{ steps.side.answer }}"),
        "cycle: review → side → review",
    );
    // A step that needs itself in `needs:` is told so, not shown a one-step cycle.
    problem_saying(
        &good_with("    needs: [draft]", "    needs: [draft, review]"),
        "step `review` needs itself",
    );
}

#[test]
fn an_unquoted_template_gets_a_quoting_hint() {
    let yaml = GOOD.replace(
        "'Apply {{ steps.review.answer }} as {{ $session }}'",
        "{{ steps.review.answer }}",
    );
    let p = only_problem(&yaml);
    assert_eq!(p.line, 21, "{p:?}");
    assert!(p.message.contains("must be quoted"), "{p:?}");
}

#[test]
fn unknown_ids_duplicates_and_bad_values_are_all_reported() {
    let yaml = GOOD
        .replace(
            "worker: critic\n    needs: [draft]",
            "worker: critc\n    needs: [draf]",
        )
        .replace("id: side", "id: draft")
        .replace("timeout: 5m", "timeout: soon")
        .replace("T: {fromEnv: TOPIC}", "T: {fromEnv: NOPE}")
        .replace("cwd: ./proj", "cwd: ./missing")
        .replace("file: 'file:out.md'", "file: 'blob:out.md'");
    let problems = check(&yaml).unwrap_err();
    let text: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
    let all = text.join("\n");
    for expected in [
        "unknown worker `critc`",
        "needs unknown step `draf`",
        "step id `draft` is used twice",
        "soon",
        "NOPE, which is not set",
        "is not a directory",
        "must be `answer`, `diff` or `file:PATH`",
    ] {
        assert!(all.contains(expected), "missing {expected:?} in:\n{all}");
    }
    assert!(problems.iter().all(|p| p.line > 0), "{problems:#?}");
}

/// Agent-CLI flags are a worker's too: mapped ones plan, one the provider lacks is refused by
/// `run --check`, naming the worker, the flag and the provider.
#[test]
fn a_worker_s_cli_flags_are_checked_against_its_provider() {
    let plan = check(&GOOD.replace(
        "{provider: claude,",
        "{provider: claude, allowedTools: [Read], maxTurns: 4, continue: true, cliArgs: [--verbose],",
    ))
    .expect("valid");
    let flags = plan.workers["writer"].spawn.passthrough();
    assert_eq!(flags.len(), 3, "{flags:?}");
    assert_eq!(plan.workers["writer"].spawn.cli_args, ["--verbose"]);
    problem_saying(
        &good_with(
            "provider: gemini",
            "provider: gemini\n    mcpConfig: m.json",
        ),
        "worker `critic`: `--mcp-config` is not available with gemini",
    );
    problem_saying(
        &good_with("provider: gemini", "provider: gemini\n    maxTurns: 0"),
        "worker `critic`: `--max-turns` is 1 or more",
    );
}

#[test]
fn worker_names_are_the_runners_business() {
    problem_saying(
        &good_with("{provider: claude,", "{name: w1, provider: claude,"),
        "`name` is not allowed",
    );
    problem_saying(
        &GOOD
            .replace("  writer:", "  Writer:")
            .replace("worker: writer", "worker: Writer"),
        "worker key `Writer`",
    );
}

#[test]
fn a_huge_file_is_refused_before_parsing() {
    let yaml = format!("{GOOD}# {}\n", "x".repeat(10 * 1024 * 1024));
    problem_saying(&yaml, "at most 1048576 bytes");
}

/// A billion laughs inside a value serde buffers whole (the untagged env value): without a
/// replay limit it would expand to 10^9 nodes.
fn alias_bomb() -> String {
    let mut yaml =
        String::from("workers:\n  a:\n    env:\n      X: [&a0 [x, x, x, x, x, x, x, x, x, x]");
    for i in 1..9 {
        let alias = format!("*a{}", i - 1);
        yaml.push_str(&format!(", &a{i} [{}]", vec![alias; 10].join(", ")));
    }
    yaml.push_str("]\nsteps: [{id: s, worker: a, prompt: hi}]\n");
    yaml
}

#[test]
fn an_alias_bomb_is_refused_by_the_replay_limit() {
    let p = problem_saying(&alias_bomb(), "alias replay limit exceeded");
    assert_eq!(p.line, 4, "{p:?}");
}

#[test]
fn empty_sections_are_refused() {
    let problems = check("workers: {}\nsteps: []\n").unwrap_err();
    let all: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
    assert!(
        all.iter().any(|m| m.contains("`workers:` is empty")),
        "{all:?}"
    );
    assert!(
        all.iter().any(|m| m.contains("`steps:` is empty")),
        "{all:?}"
    );
}

#[test]
fn an_empty_prompt_is_refused_where_it_is_written() {
    assert_problem(
        &good_with("    prompt: independent", "    prompt: \"\""),
        (25, 13),
        "step `side`: `prompt:` is empty",
    );
    problem_saying(
        &good_with("    prompt: independent", "    prompt: '  '"),
        "is empty",
    );
}

#[test]
fn yaml_errors_speak_plain_words_not_the_parsers_options() {
    let p = only_problem(&good_with(
        "    prompt: independent",
        "    prompt: a\n    prompt: b",
    ));
    assert_eq!((p.line, p.column), (26, 5), "{p:?}");
    assert_eq!(
        p.message,
        "`prompt` is given twice in the same map; keep one"
    );
    let p = only_problem(&good_with("    prompt: independent", "    prompt: [1, 2]"));
    assert_eq!(p.message, "expected text here, not a list or a map");
    let p = only_problem("workers: 5\nsteps: []\n");
    assert!(p.message.starts_with("expected a map here"), "{p:?}");
}

#[test]
fn a_worker_on_another_host_has_its_cwd_there_absolute_and_unchecked() {
    let remote = GOOD.replace(
        "writer: {provider: claude, cwd: ./proj}",
        "writer: {provider: claude, host: box, cwd: /srv/missing}",
    );
    let plan = check(&remote).unwrap();
    let writer = &plan.workers["writer"].spawn;
    assert_eq!(writer.host.as_deref(), Some("box"));
    assert_eq!(writer.cwd.as_deref(), Some(Path::new("/srv/missing")));
    let relative = GOOD.replace(
        "writer: {provider: claude, cwd: ./proj}",
        "writer: {provider: claude, host: box, cwd: ./proj}",
    );
    let problem = only_problem(&relative);
    assert!(
        problem.message.contains("absolute path on that host"),
        "{}",
        problem.message
    );
}

#[test]
fn a_file_output_must_stay_in_its_workers_folder() {
    let remote = good_with(
        "writer: {provider: claude, cwd: ./proj}",
        "writer: {provider: claude, host: box, cwd: /srv/w}",
    );
    check(&remote).expect("a relative path in the folder is fine");
    for path in ["../out.md", "/etc/out.md", "sub/../../out.md"] {
        let yaml = remote.replace("file:out.md", &format!("file:{path}"));
        let p = problem_saying(&yaml, "runs on host `box`");
        assert_eq!((p.line, p.column), (11, 35), "{p:?}");
        assert!(p.message.contains(&format!("file:{path}")), "{p:?}");
    }
    // A local worker's too: it is read inside the worker's folder, here as on a host.
    for path in ["../out.md", "/etc/hostname", "sub/../../out.md"] {
        let yaml = GOOD.replace("file:out.md", &format!("file:{path}"));
        let p = problem_saying(&yaml, "is read inside worker `writer`'s folder (its cwd)");
        assert_eq!((p.line, p.column), (11, 35), "{p:?}");
        assert!(p.message.contains(&format!("file:{path}")), "{p:?}");
    }
}
