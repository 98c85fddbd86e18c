//! Reading a workflow file and checking it against the world as it is now (the runner's
//! environment, the cwds on disk). Creates nothing.

use super::Ctx;
use crate::adapters::{files, host};
use crate::core::errors::{Error, Result};
use crate::core::workflow::model::{self, MAX_FILE_BYTES};
use crate::core::workflow::validate::{Context, validate};
use crate::core::workflow::{Plan, Problem};
use crate::operations::guard::Guard;
use crate::operations::remote;
use std::io::Read;
use std::path::Path;

/// The checked plan of `file`, and the file's text. Relative paths in it resolve against
/// `base` when given (a resumed run's original folder: `file` is then the run's copy), else
/// against the file's own folder.
pub fn load(ctx: &Ctx, file: &Path, base: Option<&Path>) -> Result<(Plan, String)> {
    // Read one byte past the limit so a huge file is refused without reading all of it.
    let bytes = files::read_capped(file, MAX_FILE_BYTES as u64 + 1)
        .map_err(|e| Error::io("cannot read", file, e))?;
    load_bytes(ctx, file, bytes, base)
}

/// As [`load`], reading the workflow from `source` (standard input for `umbel run -`); `file`
/// names it in messages, and relative paths resolve against `file`'s folder unless `base`.
pub fn load_from(
    ctx: &Ctx,
    file: &Path,
    source: impl Read,
    base: Option<&Path>,
) -> Result<(Plan, String)> {
    // Read one byte past the limit so a huge file is refused without reading all of it.
    let mut bytes = Vec::new();
    source
        .take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read", file, e))?;
    load_bytes(ctx, file, bytes, base)
}

/// The checked plan of a workflow read as `bytes` (at most one past the limit).
fn load_bytes(
    ctx: &Ctx,
    file: &Path,
    bytes: Vec<u8>,
    base: Option<&Path>,
) -> Result<(Plan, String)> {
    let text = text_of(file, bytes)?;
    let parsed = model::parse(file, &text)?;
    let base = match base {
        Some(base) => base.to_path_buf(),
        None => host::absolute(file)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
    };
    let cx = Context {
        text: &text,
        base: &base,
        env: &ctx.env,
        is_dir: &|p: &Path| p.is_dir(),
    };
    let plan = validate(parsed, &cx).map_err(|problems| Error::InvalidWorkflow {
        file: file.to_path_buf(),
        problems,
    })?;
    check_guards(ctx, &plan, file)?;
    check_budget(&plan, file, &text)?;
    Ok((plan, text))
}

/// A run's `budget:` counts what its workers' transcripts say: a dollar limit needs each
/// worker's model priced, and a worker on another host (whose transcript is there) cannot be
/// counted here yet.
fn check_budget(plan: &Plan, file: &Path, text: &str) -> Result<()> {
    if plan.budget.is_empty() {
        return Ok(());
    }
    let line = text
        .lines()
        .position(|l| l.starts_with("budget:"))
        .map_or(1, |i| i as u64 + 1);
    let problems: Vec<Problem> = plan
        .workers
        .values()
        .filter_map(|w| {
            let why = if w.spawn.host.is_some() {
                "runs on another host, whose use a run's budget cannot count yet"
            } else if plan.budget.max_budget_usd.is_some()
                && (w.spawn.model.as_deref())
                    .and_then(|m| crate::core::providers::price_of(w.spawn.provider, m))
                    .is_none()
            {
                "has no `model:` with a known list price, so the run's maxBudgetUsd could not count its cost (maxTokens can)"
            } else {
                return None;
            };
            Some(Problem::at(line, 1, format!("budget: worker `{}` {why}", w.key)))
        })
        .collect();
    refuse(file, problems)
}

/// The workflow's text: at most [`MAX_FILE_BYTES`] (`bytes` holds one more when it is longer:
/// a huge file is refused without reading all of it), UTF-8.
fn text_of(file: &Path, bytes: Vec<u8>) -> Result<String> {
    let invalid = |problem: Problem| Error::InvalidWorkflow {
        file: file.to_path_buf(),
        problems: vec![problem],
    };
    if bytes.len() > MAX_FILE_BYTES {
        return Err(invalid(Problem::at(
            1,
            1,
            format!("the file is larger than {MAX_FILE_BYTES} bytes, the most a workflow may be"),
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        invalid(Problem::at(line, 1, "the file is not UTF-8 text"))
    })
}

/// Guardrails are checked against the disk and PATH as they are now: schema files compile,
/// check programs exist (a remote worker's, on its host, when its step runs).
fn check_guards(ctx: &Ctx, plan: &Plan, file: &Path) -> Result<()> {
    let problems: Vec<Problem> = plan
        .steps
        .iter()
        .filter_map(|step| {
            let on_host = plan
                .workers
                .get(&step.worker)
                .and_then(|w| w.spawn.host.as_ref());
            // A remote worker's check runs on its host: only the rest can be checked here.
            let e = match on_host {
                Some(_) => remote::guard::flags(&step.guard, &plan.base).err()?,
                None => Guard::prepare(ctx, &step.guard, &plan.base).err()?,
            };
            let (line, column) = step.guard_at.unwrap_or((1, 1));
            Some(Problem::at(
                line,
                column,
                format!("step `{}`: guard: {e}", step.id),
            ))
        })
        .collect();
    refuse(file, problems)
}

/// The file refused for `problems`, when there are any.
fn refuse(file: &Path, problems: Vec<Problem>) -> Result<()> {
    if problems.is_empty() {
        return Ok(());
    }
    Err(Error::InvalidWorkflow {
        file: file.to_path_buf(),
        problems,
    })
}
