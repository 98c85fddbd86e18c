//! `status` and `ls` as text: one worker as `key: value` lines, the fleet as an aligned table.
//! The state is said in `top`'s words (`idle`, `done`, `working`, …: [`Shown::word`]), one
//! vocabulary for a person; `--json` keeps `state` as `status` defines it, for programs.

use super::output::outln;
use crate::core::duration::whole_seconds;
use crate::core::fleet::Shown;
use crate::core::status::WorkerStatus;
use crate::core::worktree::status_words;

/// One worker in detail.
pub fn print_one(s: &WorkerStatus) {
    let mut lines = vec![
        format!("name:      {}", s.name),
        format!("provider:  {}", s.provider),
        format!(
            "state:     {}",
            state_word(s, crate::adapters::host::now_ms())
        ),
    ];
    if let Some(problem) = &s.problem {
        lines.push(format!("problem:   {problem}"));
    }
    if let Some(degraded) = &s.degraded {
        lines.push(format!("degraded:  {degraded}"));
    }
    if let Some(reason) = &s.needs_input {
        lines.push(format!("needs:     {reason}"));
    }
    if let Some(command) = &s.resume_with {
        lines.push(format!("resume:    {command}"));
    }
    if let Some(exit) = &s.exit {
        lines.push(format!("exit:      {}", exit.describe()));
    }
    if let Some(model) = &s.model {
        lines.push(format!("model:     {model}"));
    }
    lines.push(format!("cwd:       {}", s.cwd));
    if let Some(wt) = &s.worktree {
        let count = |n: Option<u64>, one: &str, many: &str| match n {
            Some(1) => format!("1 {one}"),
            Some(n) => format!("{n} {many}"),
            None => format!("? {many}"),
        };
        lines.push(format!(
            "worktree:  {} (branch {}, from {}): {} ahead, {} changed",
            wt.path,
            wt.branch,
            crate::core::worktree::short(&wt.base),
            count(wt.ahead, "commit", "commits"),
            count(wt.changed, "file", "files")
        ));
    }
    lines.push(format!("position:  {}", s.position));
    lines.push(format!("session:   {}", s.session_id));
    if let Some(t) = &s.transcript_path {
        lines.push(format!("transcript: {t}"));
    }
    outln(&lines.join("\n"));
}

/// Warns on stderr about each worker whose files umbel cannot read (the row alone is easy to
/// miss, and `--json` output is read by programs).
pub fn warn_problems(list: &[WorkerStatus]) {
    for s in list {
        if let Some(problem) = &s.problem {
            errln!("umbel: warning: worker `{}`: {problem}", s.name);
        }
    }
}

/// The fleet, one row per worker (an empty fleet says so on stderr); a HOST column once any
/// worker runs on another host (`local` for this machine's), a BUDGET column once any has
/// limits (the nearest one's share).
pub fn print_table(list: &[WorkerStatus]) {
    if list.is_empty() {
        errln!("umbel: no workers");
        return;
    }
    let now = crate::adapters::host::now_ms();
    let hosts = list.iter().any(|s| s.host.is_some());
    let worktrees = list.iter().any(|s| s.worktree.is_some());
    let budgets = list.iter().any(|s| s.budget.is_some());
    let mut header = vec!["NAME"];
    if hosts {
        header.push("HOST");
    }
    header.extend(["PROVIDER", "STATE", "AGE"]);
    if worktrees {
        header.push("BRANCH +AHEAD ~CHANGED");
    }
    if budgets {
        header.push("BUDGET");
    }
    header.push("CWD");
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|s| {
            let mut row = vec![s.name.clone()];
            if hosts {
                row.push(s.host.clone().unwrap_or_else(|| "local".into()));
            }
            row.extend([
                s.provider.clone(),
                state_word(s, now),
                age(s.created_at, now),
            ]);
            if worktrees {
                row.push(s.worktree.as_ref().map_or("-".into(), status_words));
            }
            if budgets {
                row.push(s.budget.as_ref().map_or("-".into(), |b| b.brief()));
            }
            row.push(s.cwd.clone());
            row
        })
        .collect();
    let header: Vec<String> = header.into_iter().map(String::from).collect();
    print_aligned(&header, &rows);
}

/// The state as a person reads it: `top`'s word, for a warm worker still waiting for its
/// `-p`, `warm` and the time it has left (`warm 9m 58s left`), and for a parked one how long
/// it has been parked (`parked 2h 5m 3s`).
pub fn state_word(s: &WorkerStatus, now: u64) -> String {
    let word = Shown::word(s);
    match (&s.warm, s.parked_at) {
        (Some(warm), _) if word == "idle" => {
            format!(
                "warm {} left",
                whole_seconds(warm.expires_at.saturating_sub(now))
            )
        }
        (_, Some(at)) if word == "parked" => {
            format!("parked {}", whole_seconds(now.saturating_sub(at)))
        }
        _ => word.to_string(),
    }
}

/// How long ago `created_at` was (`-` when unknown), as the AGE column shows it.
pub fn age(created_at: u64, now: u64) -> String {
    match created_at {
        0 => "-".to_string(),
        _ => whole_seconds(now.saturating_sub(created_at)),
    }
}

/// Prints `header` and `rows` as columns two spaces apart (the `ls` look).
pub fn print_aligned(header: &[String], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |row: &[String]| {
        row.iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut text = vec![line(header)];
    text.extend(rows.iter().map(|r| line(r)));
    outln(&text.join("\n"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::fleet::sample_status;

    #[test]
    fn a_parked_worker_says_for_how_long_and_a_ready_one_does_not() {
        let mut parked = sample_status("p", "parked");
        assert_eq!(state_word(&parked, 10_000), "parked");
        parked.parked_at = Some(4_000);
        assert_eq!(state_word(&parked, 4_000 + 7_505_000), "parked 2h 5m 5s");
        let mut ready = sample_status("r", "ready");
        ready.parked_at = Some(4_000);
        assert_eq!(state_word(&ready, 10_000), "idle");
    }
}
