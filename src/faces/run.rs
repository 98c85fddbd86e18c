//! `umbel run`: the workflow face. Loads and checks the file (exit 2 with every problem at its
//! `file:line:col` when it is wrong, nothing created), runs it with a progress display on
//! stderr, prints what its final steps ended with (or `--json`: the run record) on stdout, the
//! run id and how it ended on stderr, and exits with the failed
//! step's code (an outcome's 121–126, or 1), 130 on Ctrl-C (or SIGTERM/SIGHUP: the run is
//! interrupted the same way), 0 when every step finished. `umbel run -` reads the workflow from
//! standard input.

use super::output::{out_json, outln};
use super::run_progress::Progress;
use crate::adapters::runs::RunStore;
use crate::core::args::RunArgs;
use crate::core::errors::Result;
use crate::core::workflow::Plan;
use crate::core::workflow::record::{FinalResult, RunRecord, RunStatus};
use crate::operations::Ctx;
use crate::operations::run::{self, prepare_new, prepare_resume};
use std::path::{Path, PathBuf};

/// Runs `umbel run` and returns its exit code.
pub fn run(ctx: &Ctx, args: &RunArgs, json: bool, quiet: bool) -> Result<u8> {
    let store = match &args.resume {
        Some(id) => Some(RunStore::open(ctx.state.path(), id)?),
        None => None,
    };
    if let Some(store) = &store {
        let record = store.read_record()?;
        if record.status == RunStatus::Completed {
            // Nothing to do: neither its variables nor a new attempt are asked for.
            print_result(&record, json);
            errln!(
                "umbel: run {} already completed; nothing to resume",
                record.run_id
            );
            return Ok(0);
        }
    }
    // A resume without a file runs the kept copy, with paths resolved where the original was.
    let (file, base) = match (&args.file, &store) {
        (Some(file), _) => (file.clone(), None),
        (None, Some(store)) => (
            store.workflow_copy(),
            store.read_record()?.base.map(PathBuf::from),
        ),
        (None, None) => return Err(crate::core::errors::Error::usage("name a workflow file")),
    };
    let (file, (plan, text)) = if file.as_os_str() == "-" {
        let file = PathBuf::from(STDIN_NAME);
        let loaded = run::load_from(ctx, &file, workflow_stdin()?, base.as_deref())?;
        (file, loaded)
    } else {
        let loaded = run::load(ctx, &file, base.as_deref())?;
        (file, loaded)
    };
    if args.check {
        print_check(&plan, &file, json);
        return Ok(0);
    }
    // SIGTERM and SIGHUP end the run as Ctrl-C does (registered for every verb in faces/cli.rs):
    // workers killed, the run recorded as interrupted; a second one exits.
    let prepared = match store {
        Some(store) => prepare_resume(ctx, store, &plan)?,
        None => prepare_new(ctx, &plan, &file, &text)?,
    };
    let (mode, no_colour) = super::run_progress::from_env(ctx, quiet);
    let mut progress = Progress::new(mode, no_colour);
    let dir = prepared.store.dir().to_path_buf();
    let record = run::execute(ctx, &plan, prepared, args.keep, &mut |r| progress.update(r))?;
    print_result(&record, json);
    print_summary(&record, &dir);
    Ok(record.exit_code())
}

/// stdout: the record (`--json`), or what the final steps ended with (nothing unless the run
/// completed).
fn print_result(record: &RunRecord, json: bool) {
    if json {
        out_json(record);
    } else if !record.results.is_empty() {
        super::output::out(&render_results(&record.results));
    }
}

/// The final steps' results for people: one final step's answer as it is; else each answer
/// and output under a `== step ==` / `== step.output ==` line.
fn render_results(results: &[FinalResult]) -> String {
    let mut out = String::new();
    let mut push = |text: &str| {
        out.push_str(text);
        if !text.ends_with('\n') {
            out.push('\n');
        }
    };
    if let [only] = results
        && only.outputs.is_empty()
    {
        push(&only.answer);
        return out;
    }
    for r in results {
        push(&format!("== {} ==", r.step));
        push(&r.answer);
        for (key, value) in &r.outputs {
            push(&format!("== {}.{key} ==", r.step));
            push(value);
        }
    }
    out
}

/// `--check`: the waves (with `--json`, as JSON), and a one-line verdict on stderr.
fn print_check(plan: &Plan, file: &Path, json: bool) {
    if json {
        let waves = plan
            .waves
            .iter()
            .map(|w| w.iter().map(|&i| plan.steps[i].id.clone()).collect())
            .collect();
        out_json(&super::json_schema::RunCheck { valid: true, waves });
        return;
    }
    for (n, wave) in plan.waves.iter().enumerate() {
        let ids: Vec<String> = wave
            .iter()
            .map(|&i| {
                let s = &plan.steps[i];
                format!("{} ({})", s.id, s.worker)
            })
            .collect();
        outln(&format!("wave {}: {}", n + 1, ids.join(", ")));
    }
    errln!(
        "umbel: {}: ok ({}, {}, {})",
        file.display(),
        count(plan.workers.len(), "worker"),
        count(plan.steps.len(), "step"),
        count(plan.waves.len(), "wave")
    );
}

/// How the run ended, on stderr: how long it took, or which step failed and how to resume.
fn print_summary(record: &RunRecord, dir: &Path) {
    let took = record
        .ended_at
        .unwrap_or(0)
        .saturating_sub(record.started_at) as f64
        / 1000.0;
    match (&record.status, &record.failed) {
        (RunStatus::Completed, _) => errln!(
            "umbel: run {} completed in {took:.1}s ({} steps); record in {}",
            record.run_id,
            record.steps.len(),
            dir.display()
        ),
        (_, Some(failed)) => errln!(
            "umbel: run {} failed at step `{}`: {}\numbel: fix it and resume with `umbel run --resume {}`",
            record.run_id,
            failed.step,
            failed.message,
            record.run_id
        ),
        _ => errln!(
            "umbel: run {} interrupted; resume with `umbel run --resume {}`",
            record.run_id,
            record.run_id
        ),
    }
}

/// How `umbel run -`'s workflow is named in messages and its record (relative paths in it
/// resolve against the current directory).
const STDIN_NAME: &str = "<stdin>";

/// Standard input, for `umbel run -`; refused when it is a terminal (nothing would end it).
fn workflow_stdin() -> Result<std::io::Stdin> {
    let stdin = std::io::stdin();
    if std::io::IsTerminal::is_terminal(&stdin) {
        return Err(crate::core::errors::Error::usage(
            "`umbel run -` reads the workflow from standard input, which is a terminal here: pipe \
             it in (`umbel run - < wf.yaml`) or name the file",
        ));
    }
    Ok(stdin)
}

/// `1 worker`, `2 workers`.
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(step: &str, answer: &str, outputs: &[(&str, &str)]) -> FinalResult {
        FinalResult {
            step: step.into(),
            answer: answer.into(),
            value: None,
            outputs: outputs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn one_final_answer_is_printed_as_it_is_and_several_under_their_step() {
        assert_eq!(render_results(&[result("merge", "done", &[])]), "done\n");
        assert_eq!(
            render_results(&[
                result("a", "A\n", &[]),
                result("b", "B", &[("patch", "diff --git")])
            ]),
            "== a ==\nA\n== b ==\nB\n== b.patch ==\ndiff --git\n"
        );
    }
}
