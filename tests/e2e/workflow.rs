//! `umbel run`: workflows on the fakes — mixed providers in parallel waves, outputs flowing
//! between steps, failure stopping dependants with every worker torn down, Ctrl-C, `--resume`,
//! `--keep`, and a battery of broken files refused with a location and nothing created.

use crate::harness::{Ran, Sandbox, Test, sim};
use serde_json::{Value, json};
use std::path::PathBuf;

/// Writes `yaml` as `wf.yaml` in the sandbox's project and returns its path.
pub(crate) fn workflow(sb: &Sandbox, yaml: &str) -> PathBuf {
    let path = sb.project.join("wf.yaml");
    sb.write(&path, yaml);
    path
}

pub(crate) fn run_record(sb: &Sandbox, run_id: &str) -> Value {
    let path = sb.state.join("workflows").join(run_id).join("run.json");
    serde_json::from_slice(&std::fs::read(&path).expect("run.json")).expect("run.json is JSON")
}

fn step<'a>(record: &'a Value, id: &str) -> &'a Value {
    record["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["id"] == id))
        .unwrap_or_else(|| panic!("no step {id} in {record:#}"))
}

/// Workers of the sandbox still alive (not dead, not gone).
pub(crate) fn alive(sb: &Sandbox) -> Vec<String> {
    sb.ls()
        .into_iter()
        .filter(|w| w["state"] != "dead")
        .map(|w| w["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Asserts that no process of the sandbox (worker CLIs, shells, umbel) outlives the run; the
/// killed process groups get a few seconds to exit.
pub(crate) fn no_orphans(sb: &Sandbox) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left = crate::load::worker_processes(sb);
        if left.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "processes left: {left:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// `umbel run ARGS` with plain progress lines.
pub(crate) fn run<'a>(sb: &'a Sandbox, args: &[&str]) -> Test<'a> {
    sb.umbel(["run"]).env("UMBEL_PROGRESS", "plain").args(args)
}

fn interval(s: &Value) -> (u64, u64) {
    (
        s["startedAt"].as_u64().expect("startedAt"),
        s["endedAt"].as_u64().expect("endedAt"),
    )
}

#[test]
fn mixed_providers_run_in_parallel_waves_and_outputs_flow() {
    let sb = Sandbox::new();
    let slow = |reply: &str| json!({ "default": { "reply": reply, "delay_ms": 1500 } });
    let codex = sb.scenario_file("codex", slow("CODEX-NOTES"));
    let gemini = sb.scenario_file("gemini", slow("GEMINI-NOTES"));
    let claude = sb.scenario_file("claude", sim::reply("CLAUDE-SAYS"));
    let path = workflow(
        &sb,
        &format!(
            r#"
name: mixed
workers:
  writer: {{provider: claude, env: {{UMBEL_SIM_SCENARIO: "{claude}"}}}}
  cx: {{provider: codex, env: {{UMBEL_SIM_SCENARIO: "{codex}"}}}}
  gm: {{provider: gemini, env: {{UMBEL_SIM_SCENARIO: "{gemini}"}}}}
steps:
  - id: draft
    worker: writer
    prompt: "Draft about {{{{ env.TOPIC }}}}"
    outputs: {{text: answer}}
  - id: by-codex
    worker: cx
    needs: [draft]
    prompt: "Review {{{{ steps.draft.outputs.text }}}} as {{{{ $session }}}}"
    outputs: {{notes: answer}}
  - id: by-gemini
    worker: gm
    needs: [draft]
    prompt: "Review {{{{ steps.draft.answer }}}}"
    outputs: {{notes: answer}}
  - id: merge
    worker: writer
    needs: [by-codex, by-gemini]
    prompt: "Merge [{{{{ steps.by-codex.outputs.notes }}}}] and [{{{{ steps.by-gemini.outputs.notes }}}}]"
"#
        ),
    );
    let out = run(&sb, &["--json", path.to_str().unwrap()])
        .env("TOPIC", "owls")
        .stderr_has("by-gemini (gm, gemini): done in")
        .success();
    let result = out.json();
    assert_eq!(result["status"], "completed", "{result:#}");
    let run_id = result["runId"].as_str().unwrap().to_string();
    assert_eq!(run_record(&sb, &run_id), result, "--json prints the record");
    // The final step (the one nothing needs) and what it ended with.
    assert_eq!(
        result["results"],
        json!([{ "step": "merge", "answer": "CLAUDE-SAYS" }]),
        "{result:#}"
    );
    for id in ["draft", "by-codex", "by-gemini", "merge"] {
        assert_eq!(step(&result, id)["status"], "done", "{result:#}");
    }
    assert_eq!(step(&result, "by-codex")["provider"], "codex");
    assert_eq!(step(&result, "by-gemini")["provider"], "gemini");
    // The two reviews ran side by side: each started before the other ended.
    let (c0, c1) = interval(step(&result, "by-codex"));
    let (g0, g1) = interval(step(&result, "by-gemini"));
    assert!(c0 < g1 && g0 < c1, "codex {c0}..{c1}, gemini {g0}..{g1}");
    // Outputs flowed: templates rendered with env, answers, outputs and the session name.
    let prompt = |id: &str| {
        std::fs::read_to_string(
            sb.state
                .join("workflows")
                .join(&run_id)
                .join("steps")
                .join(id)
                .join("prompt"),
        )
        .unwrap()
    };
    assert_eq!(prompt("draft"), "Draft about owls");
    assert_eq!(
        prompt("by-codex"),
        format!("Review CLAUDE-SAYS as {run_id}-cx")
    );
    assert_eq!(prompt("merge"), "Merge [CODEX-NOTES] and [GEMINI-NOTES]");
    let kept = sb
        .state
        .join("workflows")
        .join(&run_id)
        .join("steps/by-gemini/outputs/notes");
    assert_eq!(std::fs::read_to_string(kept).unwrap(), "GEMINI-NOTES");
    // Every worker the run started is stopped; progress went to stderr as plain lines.
    assert_eq!(alive(&sb), Vec::<String>::new());
    no_orphans(&sb);
    assert_eq!(sb.ls().len(), 3);
}

fn failing_pipeline(sb: &Sandbox) -> PathBuf {
    let wedge = sb.scenario_file("wedge", sim::wedge());
    let slow = sb.scenario_file(
        "slow",
        json!({ "default": { "reply": "late", "delay_ms": 20000 } }),
    );
    workflow(
        sb,
        &format!(
            r#"
workers:
  a: {{}}
  b: {{provider: gemini, env: {{UMBEL_SIM_SCENARIO: "{wedge}"}}}}
  c: {{provider: codex, env: {{UMBEL_SIM_SCENARIO: "{slow}"}}}}
steps:
  - {{id: first, worker: a, prompt: "{{{{ env.GREETING }}}}", outputs: {{text: answer}}}}
  - id: stuck
    worker: b
    needs: [first]
    prompt: "go on from {{{{ steps.first.outputs.text }}}}"
    wait: {{timeout: 2s}}
  - {{id: sibling, worker: c, needs: [first], prompt: take your time}}
  - {{id: after, worker: a, needs: [stuck], prompt: finish}}
"#
        ),
    )
}

/// Runs the failing pipeline: it must time out (124). Its output and run id.
fn failed_run(sb: &Sandbox) -> (Ran, String) {
    let path = failing_pipeline(sb);
    let out = run(sb, &[path.to_str().unwrap()])
        .env("GREETING", "hello")
        .status(124);
    assert_eq!(out.stdout(), "", "a failed run has no result to print");
    let run_id = run_id_of(&out);
    (out, run_id)
}

/// The run id `umbel run` names on stderr (`umbel: run ID completed …` / `… failed …`).
pub(crate) fn run_id_of(out: &Ran) -> String {
    let err = out.stderr();
    err.lines()
        .rev()
        .find_map(|l| l.strip_prefix("umbel: run ")?.split(' ').next())
        .unwrap_or_else(|| panic!("no run id in {err}"))
        .to_string()
}

#[test]
fn a_failed_step_stops_its_dependants_and_tears_everything_down() {
    let sb = Sandbox::new();
    let (out, run_id) = failed_run(&sb);
    let record = run_record(&sb, &run_id);
    assert_eq!(record["status"], "failed");
    assert_eq!(record["failed"]["step"], "stuck");
    assert_eq!(step(&record, "first")["status"], "done");
    assert_eq!(step(&record, "stuck")["status"], "failed");
    assert_eq!(step(&record, "stuck")["outcome"], "timeout");
    assert_eq!(
        step(&record, "sibling")["status"],
        "cancelled",
        "{record:#}"
    );
    let after = step(&record, "after");
    assert_eq!(after["status"], "skipped");
    assert_eq!(after["message"], "needs `stuck`, which failed");
    assert_eq!(
        alive(&sb),
        Vec::<String>::new(),
        "no worker is left running"
    );
    no_orphans(&sb);
    let err = out.stderr();
    assert!(err.contains("failed at step `stuck`: timeout"), "{err}");
    assert!(
        err.contains(&format!("umbel run --resume {run_id}")),
        "{err}"
    );
}

#[test]
fn resume_reruns_only_what_did_not_finish() {
    let sb = Sandbox::new();
    let (_, run_id) = failed_run(&sb);
    let first = step(&run_record(&sb, &run_id), "first").clone();
    // Fix the cause (the wedged worker now answers, the slow one is quick) and resume.
    sb.write(
        sb.root.join("wedge.json"),
        sim::reply("unstuck").to_string(),
    );
    sb.write(sb.root.join("slow.json"), sim::reply("quick").to_string());
    let out = run(&sb, &["--resume", &run_id])
        .env("GREETING", "hello")
        .success();
    // The final steps' answers: `sibling` and `after` are what nothing needs.
    let printed = out.stdout();
    assert!(
        printed.starts_with("== sibling ==\nquick\n== after ==\n"),
        "{printed}"
    );
    let record = run_record(&sb, &run_id);
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(record["attempt"], 2);
    assert_eq!(
        step(&record, "first"),
        &first,
        "a finished step is not rerun"
    );
    for id in ["stuck", "sibling", "after"] {
        assert_eq!(step(&record, id)["status"], "done", "{record:#}");
        assert_eq!(step(&record, id)["attempt"], 2);
    }
    // The rerun step saw the first attempt's output.
    let prompt = sb
        .state
        .join("workflows")
        .join(&run_id)
        .join("steps/stuck/prompt");
    assert!(
        std::fs::read_to_string(prompt)
            .unwrap()
            .starts_with("go on from ")
    );
    assert_eq!(alive(&sb), Vec::<String>::new());
    no_orphans(&sb);
    // A finished run has nothing left to do: resuming it says so, asks for no variable, starts
    // no attempt, and prints its results again.
    let again = run(&sb, &["--resume", &run_id])
        .stderr_has(format!("umbel: run {run_id} already completed"))
        .success();
    assert_eq!(again.stdout(), printed);
    assert!(
        !again.stderr().contains("completed in"),
        "{}",
        again.stderr()
    );
    assert_eq!(run_record(&sb, &run_id)["attempt"], 2);
}

#[test]
fn ctrl_c_interrupts_the_run_and_stops_its_workers() {
    let sb = Sandbox::new();
    let slow = sb.scenario_file(
        "slow",
        json!({ "default": { "reply": "late", "delay_ms": 30000 } }),
    );
    let path = workflow(
        &sb,
        &format!(
            "workers:\n  a: {{env: {{UMBEL_SIM_SCENARIO: \"{slow}\"}}}}\nsteps:\n  - {{id: long, worker: a, prompt: hi}}\n  - {{id: next, worker: a, prompt: more}}\n"
        ),
    );
    let child = run(&sb, &[path.to_str().unwrap()]).start();
    // Wait until the step runs (its prompt is written just before it is sent).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let prompt_written = || {
        std::fs::read_dir(sb.state.join("workflows"))
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .is_some_and(|e| e.path().join("steps/long/prompt").exists())
    };
    while !prompt_written() {
        assert!(
            std::time::Instant::now() < deadline,
            "the step never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.interrupt();
    let out = child.status(130);
    let run_id = run_id_of(&out);
    let record = run_record(&sb, &run_id);
    assert_eq!(record["status"], "interrupted", "{record:#}");
    assert_eq!(step(&record, "long")["status"], "cancelled");
    assert_eq!(step(&record, "next")["status"], "skipped");
    assert_eq!(alive(&sb), Vec::<String>::new());
    no_orphans(&sb);
}

#[test]
fn keep_leaves_the_workers_running_after_success() {
    let sb = Sandbox::new();
    let path = workflow(
        &sb,
        "workers:\n  a: {}\nsteps:\n  - {id: s, worker: a, prompt: hi}\n",
    );
    let out = run(&sb, &["--keep", path.to_str().unwrap()]).success();
    let run_id = run_id_of(&out);
    assert_eq!(alive(&sb), vec![format!("{run_id}-a")]);
    // The worker is an ordinary worker now.
    sb.umbel(["read", &format!("{run_id}-a")]).success();
}

#[test]
fn check_validates_and_creates_nothing() {
    let sb = Sandbox::new();
    let path = workflow(
        &sb,
        "workers:\n  a: {}\n  b: {provider: codex}\nsteps:\n  - {id: one, worker: a, prompt: x}\n  - {id: two, worker: b, prompt: y}\n  - {id: three, worker: a, needs: [two], prompt: z}\n",
    );
    let out = run(&sb, &["--check", path.to_str().unwrap()])
        .stdout("wave 1: one (a), two (b)\nwave 2: three (a)\n")
        .success();
    assert!(
        out.stderr()
            .ends_with(": ok (2 workers, 3 steps, 2 waves)\n"),
        "{}",
        out.stderr()
    );
    let one = sb.project.join("one.yaml");
    sb.write(
        &one,
        "workers:\n  a: {}\nsteps:\n  - {id: s, worker: a, prompt: hi}\n",
    );
    let out = run(&sb, &["--check", one.to_str().unwrap()]).run();
    assert!(
        out.stderr().ends_with(": ok (1 worker, 1 step, 1 wave)\n"),
        "{}",
        out.stderr()
    );
    let out = run(&sb, &["--check", "--json", path.to_str().unwrap()]).run();
    assert_eq!(
        out.json(),
        json!({ "valid": true, "waves": [["one", "two"], ["three"]] })
    );
    assert!(sb.worker_dirs().is_empty());
    assert!(!sb.state.join("workflows").exists());
}

/// Each broken file: exit 2, `wf.yaml:LINE:COL: …` on stderr, no worker, no run folder.
fn refused(sb: &Sandbox, yaml: &str, line: u64, expected: &str) {
    let path = workflow(sb, yaml);
    let out = run(sb, &["--json", path.to_str().unwrap()]).status(2);
    let err = out.stderr();
    let located = format!("umbel: {}:{line}:", path.display());
    assert!(err.contains(&located), "expected {located:?} in:\n{err}");
    assert!(err.contains(expected), "expected {expected:?} in:\n{err}");
    let json = out.json();
    assert_eq!(json["error"]["code"], "invalid_workflow");
    assert_eq!(json["error"]["problems"][0]["line"], line, "{json:#}");
    assert!(sb.worker_dirs().is_empty(), "nothing spawned");
    assert!(!sb.state.join("workflows").exists(), "no run folder");
}

#[test]
fn broken_files_are_refused_with_a_location_and_nothing_runs() {
    let sb = Sandbox::new();
    let good = "workers:\n  a: {}\nsteps:\n  - id: s\n    worker: a\n    prompt: hi\n";
    let edit = |from: &str, to: &str| good.replace(from, to);
    let cycle = "workers:\n  a: {}\nsteps:\n  - {id: x, worker: a, needs: [y], prompt: p}\n  - {id: y, worker: a, needs: [x], prompt: p}\n";
    let not_set = "a: {env: {T: {fromEnv: NOT_SET_ANYWHERE}}}";
    // One variable past the kernel's 128 KiB: the CLI would exit 126 at its start.
    let too_big = format!("a: {{env: {{BIG: {}}}}}", "x".repeat(140_000));
    #[rustfmt::skip]
    let cases = [
        (edit("prompt:", "promt:"), 6, "unknown field `promt`"),
        (cycle.to_string(), 4, "cycle: x → y → x"),
        (edit("prompt: hi", "prompt: \"hi {{ nope }}\""), 6, "unknown template `{{ nope }}`"),
        (edit("prompt: hi", "prompt: {{ env.HOME }}"), 6, "must be quoted"),
        (edit("worker: a", "worker: b"), 5, "unknown worker `b`"),
        (edit("a: {}", not_set), 2, "NOT_SET_ANYWHERE, which is not set"),
        (edit("prompt: hi", "prompt: \"{{ steps.s.answer }}\""), 6, "a step cannot use its own answer"),
        (edit("a: {}", &too_big), 2, "env BIG: its value is 140000 bytes, and one environment variable may take at most 131072 bytes"),
    ];
    for (yaml, line, expected) in cases {
        refused(&sb, &yaml, line, expected);
    }
    let huge = format!("{good}# {}\n", "x".repeat(10 * 1024 * 1024));
    refused(&sb, &huge, 1, "larger than 1048576 bytes");
    // A billion laughs where serde buffers a value whole (the env map's untagged values).
    let mut bomb =
        String::from("workers:\n  a:\n    env:\n      X: [&a0 [x, x, x, x, x, x, x, x, x, x]");
    for i in 1..9 {
        let alias = format!("*a{}", i - 1);
        bomb.push_str(&format!(", &a{i} [{}]", vec![alias; 10].join(", ")));
    }
    bomb.push_str("]\nsteps: [{id: s, worker: a, prompt: hi}]\n");
    refused(&sb, &bomb, 4, "alias replay limit exceeded");
}

#[test]
fn a_missing_file_and_a_bad_run_id_are_usage_errors() {
    let sb = Sandbox::new();
    run(&sb, &["nope.yaml"]).stderr_has("nope.yaml").status(1);
    run(&sb, &["--resume", "wf-zzzzzz"])
        .stderr_has("no such run")
        .status(2);
    run(&sb, &[]).status(2);
}

#[test]
fn live_progress_redraws_in_place_and_honours_no_color() {
    let sb = Sandbox::new();
    let path = workflow(
        &sb,
        "workers:\n  a: {}\nsteps:\n  - {id: s, worker: a, prompt: hi}\n",
    );
    let live = |no_color: bool| {
        let test = sb
            .umbel(["run", path.to_str().unwrap()])
            .env("UMBEL_PROGRESS", "live");
        if no_color {
            test.env("NO_COLOR", "1")
        } else {
            test
        }
    };
    let err = live(false).success().stderr();
    assert!(
        err.contains("\x1b[2K") && err.contains("A\x1b[2K"),
        "redraws: {err:?}"
    );
    assert!(err.contains("\x1b[32m"), "colour: {err:?}");
    let err = live(true).run().stderr();
    assert!(err.contains("\x1b[2K"), "{err:?}");
    assert!(!err.contains("\x1b[3"), "no colour with NO_COLOR: {err:?}");
    // Quiet: nothing but the final line.
    let err = sb
        .umbel(["run", "-q", path.to_str().unwrap()])
        .run()
        .stderr();
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A `file:` output that is a FIFO (or any non-regular file) fails its step at once with why;
/// reading it would wait for a writer that never comes.
#[test]
fn a_file_output_that_is_not_a_regular_file_fails_the_step_instead_of_hanging() {
    let sb = Sandbox::new();
    let fifo = sb.project.join("out.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let path = workflow(
        &sb,
        "workers:\n  a: {}\nsteps:\n  - {id: s, worker: a, prompt: hi, outputs: {kept: \"file:out.fifo\"}}\n",
    );
    // Before, the run never ended (nextest's slow-timeout ends the test).
    run(&sb, &[path.to_str().unwrap()])
        .stderr_has("not a regular file")
        .status(1);
}

#[test]
fn the_example_workflow_without_topic_names_the_variable_and_how_to_set_it() {
    let sb = Sandbox::new();
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/review.yaml");
    let file = file.to_string_lossy().into_owned();
    let err = sb.umbel(["run", &file, "--check"]).status(2).stderr();
    assert!(err.contains("the variable TOPIC is not set"), "{err}");
    assert!(err.contains("`TOPIC=… umbel run FILE`"), "{err}");
    let text = std::fs::read_to_string(&file).expect("the example");
    assert!(
        text.contains("TOPIC=owls umbel run examples/review.yaml"),
        "the file says so"
    );
    sb.umbel(["run", &file, "--check"])
        .env("TOPIC", "owls")
        .success();
}

/// A `file:` output is read inside its worker's folder, as a host reads a remote worker's: a
/// symbolic link in the folder leading out of it fails the step naming the output, and nothing
/// of the file it points at reaches the run; an absolute path or one with `..` is refused by
/// `run --check` at its line. A link that stays inside is read. (Before, each was read.)
#[test]
fn a_file_output_cannot_leave_its_workers_folder() {
    let sb = Sandbox::new();
    let secret = sb.home.join("secret.txt");
    sb.write(&secret, "NOT YOURS\n");
    std::os::unix::fs::symlink(&secret, sb.project.join("link.txt")).unwrap();
    sb.write("sub/notes.txt", "NOTES\n");
    std::os::unix::fs::symlink("sub/notes.txt", sb.project.join("inside.txt")).unwrap();
    let with_output = |path: &str| {
        workflow(
            &sb,
            &format!(
                "workers:\n  a: {{}}\nsteps:\n  - id: s\n    worker: a\n    prompt: hi\n    outputs: {{kept: \"file:{path}\"}}\n"
            ),
        )
    };
    let path = with_output("inside.txt");
    let out = run(&sb, &[path.to_str().unwrap()]).success();
    assert!(
        out.stdout().ends_with("== s.kept ==\nNOTES\n"),
        "{}",
        out.stdout()
    );
    let run_id = run_id_of(&out);
    let kept = sb
        .state
        .join("workflows")
        .join(&run_id)
        .join("steps/s/outputs/kept");
    assert_eq!(std::fs::read_to_string(kept).unwrap(), "NOTES\n");

    let path = with_output("link.txt");
    let out = run(&sb, &[path.to_str().unwrap()])
        .stderr_has("output `kept`: `file:link.txt` leads outside worker")
        .status(1);
    let run_id = run_id_of(&out);
    let record = run_record(&sb, &run_id);
    assert_eq!(step(&record, "s")["status"], "failed", "{record:#}");
    let run_dir = sb.state.join("workflows").join(run_id);
    let grep = std::process::Command::new("grep")
        .args(["-r", "NOT YOURS"])
        .arg(&run_dir)
        .output()
        .unwrap();
    assert!(
        grep.stdout.is_empty(),
        "the file leaked into the run: {grep:?}"
    );

    for (written, column) in [("../outside.txt", 21), ("/etc/hostname", 21)] {
        let path = with_output(written);
        let err = run(&sb, &["--check", path.to_str().unwrap()])
            .status(2)
            .stderr();
        let expected = format!(
            "wf.yaml:7:{column}: output `kept: file:{written}`: a `file:` output is read inside worker `a`'s folder"
        );
        assert!(err.contains(&expected), "expected {expected:?} in:\n{err}");
    }
}
