//! Checks a whole workflow before anything runs and turns it into a [`Plan`]. Every problem is
//! collected (not only the first), each at its line and column with the offending text:
//! unknown worker or step ids, duplicate ids, cycles (`cycle: a → b → a`), a `{fromEnv}` or
//! `{{ env.X }}` that is not set, templates that are not one of the four forms or refer to a step
//! that is not (transitively) needed, bad durations and patterns, cwds that do not exist.
//!
//! Steps on the same worker run in file order (a worker holds one conversation): each step
//! implicitly needs the previous step of its worker.

use super::graph::{self, Deps};
use super::model::{OutputSource, Step, WorkflowFile};
use super::template::{self, Ref};
use crate::core::args::{GuardArgs, SpawnArgs, WaitUntil};
use crate::core::duration::parse_duration;
use crate::core::worker_env::{self, EnvSpec};
use serde_saphyr::{Location, Spanned};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// Longest worker key: the worker's umbel name is `<run id>-<key>` (at most 63 characters).
pub const MAX_WORKER_KEY: usize = 50;

pub use super::problem::Problem;

impl Problem {
    fn located(loc: Location, message: impl Into<String>) -> Self {
        Problem::at(loc.line(), loc.column(), message)
    }
}

/// A worker ready to spawn: `spawn.cwd` is absolute, `spawn.name` unset (the runner names it).
#[derive(Debug, Clone)]
pub struct PlannedWorker {
    pub key: String,
    pub spawn: SpawnArgs,
}

/// A step ready to run.
#[derive(Debug, Clone)]
pub struct PlannedStep {
    pub id: String,
    pub worker: String,
    /// The prompt as written (templates are rendered when the step starts).
    pub prompt: String,
    /// Every step this one needs directly, explicit or implied by its worker (indices).
    pub needs: BTreeSet<usize>,
    pub wait: WaitUntil,
    /// The step's guardrails (unset when none), with where they are written.
    pub guard: GuardArgs,
    pub guard_at: Option<(u64, u64)>,
    pub outputs: Vec<(String, OutputSource)>,
}

/// A checked workflow.
#[derive(Debug, Clone)]
pub struct Plan {
    pub name: Option<String>,
    pub workers: BTreeMap<String, PlannedWorker>,
    pub steps: Vec<PlannedStep>,
    /// Step indices in dependency waves.
    pub waves: Vec<Vec<usize>>,
    /// The workflow file's folder: relative paths and guardrail checks start there.
    pub base: PathBuf,
    /// The limits over all its steps (none set: no budget).
    pub budget: crate::core::budget::Limits,
}

impl Plan {
    /// The index of step `id`.
    pub fn step_index(&self, id: &str) -> Option<usize> {
        self.steps.iter().position(|s| s.id == id)
    }
}

/// What validation may consult about the world, injected so it stays pure.
pub struct Context<'a> {
    /// The workflow file's text (to place templates precisely).
    pub text: &'a str,
    /// Relative cwds are resolved against this (the file's folder).
    pub base: &'a Path,
    /// The runner's environment.
    pub env: &'a [(String, String)],
    /// Whether a path is an existing directory.
    pub is_dir: &'a dyn Fn(&Path) -> bool,
}

/// Checks `file` and plans it, or says everything that is wrong.
pub fn validate(file: WorkflowFile, cx: &Context) -> Result<Plan, Vec<Problem>> {
    let mut problems = Vec::new();
    let workers = check_workers(&file, cx, &mut problems);
    let ids = check_step_ids(&file, &mut problems);
    let deps = dependencies(&file, &ids, &mut problems);
    let waves = plan_waves(&file, &deps, &mut problems);
    let known = Known {
        file: &file,
        ids: &ids,
        deps: &deps,
        reach: (!waves.is_empty()).then(|| RefCell::new(graph::Reach::new(&deps, &waves))),
        lines: Lines::new(cx.text),
    };
    let steps = (0..file.steps.len())
        .map(|i| plan_step(i, &known, cx, &mut problems))
        .collect();
    if problems.is_empty() {
        Ok(Plan {
            name: file.name,
            workers,
            steps,
            waves,
            base: cx.base.to_path_buf(),
            budget: file.budget.unwrap_or_default(),
        })
    } else {
        problems.sort_by_key(|p| (p.line, p.column));
        problems.dedup();
        Err(problems)
    }
}

/// What the checks of one step consult about the others.
struct Known<'a> {
    file: &'a WorkflowFile,
    ids: &'a BTreeMap<String, usize>,
    deps: &'a Deps,
    /// Which step needs which; unset when the steps' dependencies form a cycle (already
    /// reported), so references to steps are not judged.
    reach: Option<RefCell<graph::Reach<'a>>>,
    /// Where the file's lines start, to place a template.
    lines: Lines,
}

/// The byte offset where each line of a text starts: a place in the file is found in
/// O(log lines), not by counting newlines from the top (which made checking quadratic).
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines { starts }
    }

    /// The byte offset of a 1-based line and character column.
    fn offset(&self, text: &str, loc: Location) -> Option<usize> {
        let line = usize::try_from(loc.line()).ok()?.checked_sub(1)?;
        let column = usize::try_from(loc.column()).ok()?.checked_sub(1)?;
        let line_start = *self.starts.get(line)?;
        let rest = text.get(line_start..)?;
        let within = rest
            .char_indices()
            .nth(column)
            .map_or(rest.len(), |(b, _)| b);
        Some(line_start + within)
    }

    /// The 1-based line and character column of byte `at`.
    fn place(&self, text: &str, at: usize) -> (u64, u64) {
        let line = self.starts.partition_point(|&s| s <= at).max(1);
        let line_start = self.starts[line - 1];
        let column = text.get(line_start..at).map_or(0, |t| t.chars().count());
        (line as u64, column as u64 + 1)
    }
}

/// Each step's id, valid and unique, with its index; at least one step.
fn check_step_ids(file: &WorkflowFile, problems: &mut Vec<Problem>) -> BTreeMap<String, usize> {
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    for (i, step) in file.steps.iter().enumerate() {
        let id = &step.value.id;
        if !valid_id(&id.value) {
            problems.push(Problem::located(
                id.referenced,
                format!(
                    "step id `{}` must be letters, digits, `-` and `_`, starting with a letter or digit",
                    id.value
                ),
            ));
        } else if ids.insert(id.value.clone(), i).is_some() {
            problems.push(Problem::located(
                id.referenced,
                format!("step id `{}` is used twice", id.value),
            ));
        }
    }
    if file.steps.is_empty() {
        problems.push(Problem::at(
            1,
            1,
            "`steps:` is empty: a workflow needs at least one step",
        ));
    }
    ids
}

/// The steps in dependency waves; none (and a problem) when they form a cycle.
fn plan_waves(file: &WorkflowFile, deps: &Deps, problems: &mut Vec<Problem>) -> Vec<Vec<usize>> {
    match graph::waves(deps) {
        Ok(waves) => waves,
        Err(cycle) => {
            let names: Vec<&str> = cycle
                .iter()
                .map(|&i| file.steps[i].value.id.value.as_str())
                .collect();
            let at = cycle.first().map(|&i| file.steps[i].referenced);
            problems.push(Problem::located(
                at.unwrap_or(Location::UNKNOWN),
                format!(
                    "cycle: {} (steps on one worker also run in file order)",
                    names.join(" → ")
                ),
            ));
            Vec::new()
        }
    }
}

/// Step `i` checked (prompt, templates, wait, outputs) and planned.
fn plan_step(i: usize, known: &Known, cx: &Context, problems: &mut Vec<Problem>) -> PlannedStep {
    let step = &known.file.steps[i];
    let s = &step.value;
    if s.prompt.value.trim().is_empty() {
        problems.push(Problem::located(
            s.prompt.referenced,
            format!(
                "step `{}`: `prompt:` is empty; a step sends its prompt to the worker, so write one",
                s.id.value
            ),
        ));
    }
    check_templates(&s.prompt, i, known, cx, problems);
    let wait = s.wait.as_ref().map(|w| check_wait(w, problems));
    PlannedStep {
        id: s.id.value.clone(),
        worker: s.worker.value.clone(),
        prompt: s.prompt.value.clone(),
        needs: known.deps.get(i).cloned().unwrap_or_default(),
        wait: wait.unwrap_or_default(),
        guard: s
            .guard
            .as_ref()
            .map(|g| g.value.clone())
            .unwrap_or_default(),
        guard_at: s
            .guard
            .as_ref()
            .map(|g| (g.referenced.line(), g.referenced.column())),
        outputs: check_outputs(
            s,
            (
                host_of(known.file, &s.worker.value),
                has_worktree(known.file, &s.worker.value),
            ),
            problems,
        ),
    }
}

/// The host worker `key` runs on, if it is a remote one.
fn host_of<'a>(file: &'a WorkflowFile, key: &str) -> Option<&'a str> {
    file.workers.get(key).and_then(|w| w.value.host.as_deref())
}

/// Whether the worker of that key has `worktree:`.
fn has_worktree(file: &WorkflowFile, key: &str) -> bool {
    file.workers
        .get(key)
        .is_some_and(|w| w.value.worktree.is_some())
}

/// A step's `outputs:`, each named well and `answer`, `diff` (its worker has `worktree:`, on
/// this machine) or `file:PATH`, PATH relative and
/// without `..`: it is read inside the worker's folder (by the host's umbel for a worker on
/// another host, `host`), and a symbolic link out of it is refused when it is read.
fn check_outputs(
    step: &Step,
    (host, has_worktree): (Option<&str>, bool),
    problems: &mut Vec<Problem>,
) -> Vec<(String, OutputSource)> {
    step.outputs
        .iter()
        .filter_map(|(key, source)| {
            if !valid_id(key) {
                problems.push(Problem::located(
                    source.referenced,
                    format!("output name `{key}` must be letters, digits, `-` and `_`"),
                ));
                return None;
            }
            match OutputSource::parse(&source.value) {
                Some(OutputSource::File(path)) if leaves_folder(&path) => {
                    let worker = &step.worker.value;
                    let reader = match host {
                        Some(host) => format!("worker `{worker}` runs on host `{host}`, whose umbel reads a `file:` output inside the worker's folder there"),
                        None => format!("a `file:` output is read inside worker `{worker}`'s folder (its cwd)"),
                    };
                    problems.push(Problem::located(
                        source.referenced,
                        format!(
                            "output `{key}: file:{path}`: {reader}: give a relative path without `..` that stays inside it"
                        ),
                    ));
                    None
                }
                Some(OutputSource::Diff) if host.is_some() || !has_worktree => {
                    let worker = &step.worker.value;
                    let why = match host {
                        Some(host) => format!("worker `{worker}` runs on host `{host}`, and a `diff` output is read on this machine only (for now)"),
                        None => format!("worker `{worker}` has no `worktree:` (give it `worktree: true`)"),
                    };
                    problems.push(Problem::located(
                        source.referenced,
                        format!("output `{key}: diff` is the worker's git worktree changes, but {why}"),
                    ));
                    None
                }
                Some(parsed) => Some((key.clone(), parsed)),
                None => {
                    problems.push(Problem::located(
                        source.referenced,
                        format!(
                            "output `{key}: {}` must be `answer`, `diff` or `file:PATH`",
                            source.value
                        ),
                    ));
                    None
                }
            }
        })
        .collect()
}

/// An absolute path, or one with a `..` in it.
fn leaves_folder(path: &str) -> bool {
    Path::new(path)
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
}

fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && id.len() <= 64
}

/// Every worker checked and planned (its cwd made absolute); at least one worker.
fn check_workers(
    file: &WorkflowFile,
    cx: &Context,
    problems: &mut Vec<Problem>,
) -> BTreeMap<String, PlannedWorker> {
    if file.workers.is_empty() {
        problems.push(Problem::at(
            1,
            1,
            "`workers:` is empty: a workflow needs at least one worker",
        ));
    }
    file.workers
        .iter()
        .map(|(key, spanned)| {
            let worker = check_worker(key, spanned, cx, problems);
            (key.clone(), worker)
        })
        .collect()
}

/// One worker: its key, no `name`, an existing cwd, its `fromEnv` variables set, a valid
/// startup timeout and pass-through flags its provider has.
fn check_worker(
    key: &str,
    spanned: &Spanned<SpawnArgs>,
    cx: &Context,
    problems: &mut Vec<Problem>,
) -> PlannedWorker {
    let at = spanned.referenced;
    let spawn = &spanned.value;
    let mut problem = |message: String| problems.push(Problem::located(at, message));
    if !valid_worker_key(key) {
        problem(format!(
            "worker key `{key}` must be lower-case letters, digits and `-` (at most {MAX_WORKER_KEY})"
        ));
    }
    if spawn.name.is_some() {
        problem(format!(
            "worker `{key}`: `name` is not allowed here; the runner names workers `<run id>-{key}`"
        ));
    }
    let cwd = match &spawn.cwd {
        Some(dir) if dir.is_absolute() => dir.clone(),
        Some(dir) => cx.base.join(dir),
        None => cx.base.to_path_buf(),
    };
    if let Some(message) = cwd_problem(key, spawn, &cwd, cx) {
        problem(message);
    }
    for spec in &spawn.env {
        match spec {
            EnvSpec::FromEnv { name, source } if !cx.env.iter().any(|(k, _)| k == source) => {
                problem(format!(
                    "worker `{key}`: env {name} takes ${source}, which is not set"
                ));
            }
            EnvSpec::Literal { name, value } => {
                if let Some(message) = worker_env::too_long(name, value) {
                    problem(format!("worker `{key}`: env {name}: {message}"));
                }
            }
            EnvSpec::FromEnv { .. } => {}
        }
    }
    if let Some(text) = &spawn.startup_timeout
        && let Err(e) = parse_duration(text, "startupTimeout")
    {
        problem(format!("worker `{key}`: {e}"));
    }
    if let Err(e) = crate::core::providers::flags::check(spawn.provider, &spawn.passthrough()) {
        problem(format!("worker `{key}`: {e}"));
    }
    let mut spawn = spawn.clone();
    if spawn.host.is_none() {
        spawn.cwd = Some(normalise(&cwd));
    }
    PlannedWorker {
        key: key.to_string(),
        spawn,
    }
}

/// What is wrong with a worker's cwd: a local one must exist; one on another host (`host:`)
/// is a path there, which must be absolute and is not checked here.
fn cwd_problem(key: &str, spawn: &SpawnArgs, cwd: &Path, cx: &Context) -> Option<String> {
    match &spawn.host {
        Some(host) if spawn.cwd.as_ref().is_some_and(|d| !d.is_absolute()) => Some(format!(
            "worker `{key}` runs on host `{host}`: its cwd must be an absolute path on that host"
        )),
        Some(_) => None,
        None if !(cx.is_dir)(cwd) => Some(format!(
            "worker `{key}`: cwd {} is not a directory",
            cwd.display()
        )),
        None => None,
    }
}

/// A worker key: lower-case letters, digits and `-`, at most [`MAX_WORKER_KEY`].
fn valid_worker_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= MAX_WORKER_KEY
        && key.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn dependencies(
    file: &WorkflowFile,
    ids: &BTreeMap<String, usize>,
    problems: &mut Vec<Problem>,
) -> Deps {
    let mut last_on_worker: BTreeMap<&str, usize> = BTreeMap::new();
    let mut deps = Deps::new();
    for (i, step) in file.steps.iter().enumerate() {
        let s = &step.value;
        let mut mine = BTreeSet::new();
        if !file.workers.contains_key(&s.worker.value) {
            let known: Vec<&str> = file.workers.keys().map(String::as_str).collect();
            problems.push(Problem::located(
                s.worker.referenced,
                format!(
                    "step `{}`: unknown worker `{}` (workers: {})",
                    s.id.value,
                    s.worker.value,
                    known.join(", ")
                ),
            ));
        }
        if let Some(&previous) = last_on_worker.get(s.worker.value.as_str()) {
            mine.insert(previous);
        }
        last_on_worker.insert(&s.worker.value, i);
        for need in &s.needs {
            match ids.get(&need.value) {
                Some(&j) if j == i => problems.push(Problem::located(
                    need.referenced,
                    format!(
                        "step `{}` needs itself: a step cannot wait for its own end",
                        s.id.value
                    ),
                )),
                Some(&j) => {
                    mine.insert(j);
                }
                None => problems.push(Problem::located(
                    need.referenced,
                    format!("step `{}` needs unknown step `{}`", s.id.value, need.value),
                )),
            }
        }
        deps.push(mine);
    }
    deps
}

#[allow(clippy::too_many_arguments)]
/// The `{{ … }}` references of step `i`'s prompt: each names a set variable, or a step this one
/// needs (and an output it declares).
fn check_templates(
    prompt: &Spanned<String>,
    i: usize,
    known: &Known,
    cx: &Context,
    problems: &mut Vec<Problem>,
) {
    let step_id = &known.file.steps[i].value.id.value;
    let refs = match template::parse(&prompt.value) {
        Ok(refs) => refs,
        Err(e) => {
            let (line, column) = place(cx.text, &known.lines, prompt, e.offset, "{{");
            problems.push(Problem::at(
                line,
                column,
                format!("step `{step_id}`: {}", e.message),
            ));
            return;
        }
    };
    for placed in refs {
        if let Some(message) = reference_problem(&placed, i, known, cx) {
            let (line, column) = place(cx.text, &known.lines, prompt, placed.offset, &placed.text);
            problems.push(Problem::at(
                line,
                column,
                format!("step `{step_id}`: {message}"),
            ));
        }
    }
}

/// What is wrong with one template reference of step `i`, if anything.
fn reference_problem(
    placed: &template::Placed,
    i: usize,
    known: &Known,
    cx: &Context,
) -> Option<String> {
    let text = &placed.text;
    match &placed.reference {
        Ref::Env(name) if !cx.env.iter().any(|(k, _)| k == name) => Some(format!(
            "`{text}`: the variable {name} is not set in umbel's environment; set it for the run, e.g. `{name}=… umbel run FILE`"
        )),
        Ref::Output { step, .. } | Ref::Answer { step } => {
            let Some(&j) = known.ids.get(step) else {
                return Some(format!("`{text}`: there is no step `{step}`"));
            };
            let what = match &placed.reference {
                Ref::Output { key, .. } => format!("output `{key}`"),
                _ => "answer".to_string(),
            };
            if j == i {
                return Some(format!(
                    "`{text}`: a step cannot use its own {what}: it exists only once the step has ended"
                ));
            }
            // With a cycle (reported already) who needs whom is not known: that is not judged.
            let mut reach = known.reach.as_ref().map(RefCell::borrow_mut);
            if let Some(reach) = reach.as_mut()
                && !reach.needs(i, j)
            {
                return Some(match reach.path(j, i) {
                    Some(path) => format!(
                        "`{text}`: step `{step}` runs after this one, so its {what} does not exist yet: needing it would make a cycle: {} (steps on one worker run in file order)",
                        std::iter::once(i)
                            .chain(path)
                            .map(|k| known.file.steps[k].value.id.value.as_str())
                            .collect::<Vec<_>>()
                            .join(" → ")
                    ),
                    None => format!(
                        "`{text}`: step `{step}` is not among this step's needs (add it to `needs:`)"
                    ),
                });
            }
            match &placed.reference {
                Ref::Output { key, .. } if !known.file.steps[j].value.outputs.contains_key(key) => {
                    Some(format!(
                        "`{text}`: step `{step}` declares no output `{key}`"
                    ))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn check_wait(wait: &Spanned<WaitUntil>, problems: &mut Vec<Problem>) -> WaitUntil {
    let w = &wait.value;
    for (text, what) in [(&w.timeout, "timeout"), (&w.idle_timeout, "idleTimeout")] {
        if let Some(text) = text
            && let Err(e) = parse_duration(text, what)
        {
            problems.push(Problem::located(wait.referenced, format!("wait: {e}")));
        }
    }
    if let Some(pattern) = &w.pattern
        && let Err(e) = regex::Regex::new(pattern)
    {
        problems.push(Problem::located(
            wait.referenced,
            format!("wait: pattern `{pattern}` is not a regular expression: {e}"),
        ));
    }
    w.clone()
}

/// Line and column of `needle`, found at byte `offset` of a string value, in the source text.
/// Searches from the value's own position for the same occurrence of the needle; falls back to
/// the value's position (e.g. when escapes make the source differ from the value).
fn place(
    text: &str,
    lines: &Lines,
    value: &Spanned<String>,
    offset: usize,
    needle: &str,
) -> (u64, u64) {
    let fallback = (value.referenced.line(), value.referenced.column());
    let nth = value.value[..offset].matches(needle).count();
    let Some(start) = lines.offset(text, value.referenced) else {
        return fallback;
    };
    let Some((found, _)) = text[start..].match_indices(needle).nth(nth) else {
        return fallback;
    };
    lines.place(text, start + found)
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
