//! fake-claude's `/model` (2.1.332): "Select model", its five rows with `✔` on the model in
//! use, the arrows wrapping round, `s` taking the row for this session only, Enter saving it as
//! the default, Esc keeping the model (`tests/data/claude/claude-2.1.332-model-picker-*.txt`,
//! `…-model-switched.txt`).

use super::session::{Model, resolve_model};
use crate::engine::picker::{Picked, Picker};
use crate::keys::Key;
use crate::screen::rule;

/// The rows, each with the alias `--model` takes for it.
const ROWS: &[(&str, &str, &str)] = &[
    (
        "Default (recommended)",
        "default",
        "Use the default model (currently Opus 5.5) · $4/$20 per Mtok",
    ),
    (
        "Opus",
        "opus",
        "Opus 5.5 · Best for everyday, complex tasks · $4/$20 per Mtok",
    ),
    (
        "Fable",
        "fable",
        "Fable 5.2 · Most capable for your hardest and longest-running tasks · $8/$40 per Mtok",
    ),
    (
        "Sonnet",
        "sonnet",
        "Sonnet 5.5 · Efficient for routine tasks · $2/$10 per Mtok",
    ),
    (
        "Haiku",
        "haiku",
        "Haiku 5.5 · Fastest for quick answers · $0.10/$0.50 per Mtok",
    ),
];

/// The picker as `/model` opens it: the cursor and `✔` on the model in use.
pub fn open(model: &Model) -> Picker {
    let current = ROWS
        .iter()
        .position(|(_, alias, _)| resolve_model(Some(alias)) == *model)
        .unwrap_or(0);
    let rows: Vec<(String, &str)> = (ROWS.iter().enumerate())
        .map(|(i, (name, _, detail))| {
            let mark = if i == current { " ✔" } else { "" };
            (format!("{name}{mark}"), *detail)
        })
        .collect();
    let rows: Vec<(&str, &str)> = rows.iter().map(|(n, d)| (n.as_str(), *d)).collect();
    Picker::new(0, &rows, current).wrapping()
}

/// The picker's lines under the prompt.
pub fn lines(picker: &Picker, width: usize) -> Vec<String> {
    let mut lines = vec![
        rule('─', width),
        "  Select model".to_string(),
        "  Your pick is the default for new sessions. For other models, use --model.".to_string(),
        String::new(),
    ];
    lines.extend(picker.lines("  ", "❯"));
    lines.extend([
        String::new(),
        "  ◐ Medium effort (default) ←/→ to adjust".to_string(),
        String::new(),
        "  s to use this session only · Enter to save · Esc to cancel".to_string(),
    ]);
    lines
}

/// What a key does: `None` while the picker stays up; else the model now in use and the line
/// the CLI writes under `/model`.
pub fn key(picker: &mut Picker, key: &Key, model: &Model) -> Option<(Model, String)> {
    let session = Key::Text("s".into());
    match picker.key(key, &[session.clone(), Key::Enter]) {
        Picked::Nothing => None,
        Picked::Left => Some((
            model.clone(),
            format!("  ⎿  Kept model as {}", model.display),
        )),
        Picked::Took(row, how) => {
            let chosen = resolve_model(Some(ROWS[row].1));
            let scope = if how == session {
                " for this session only"
            } else {
                ""
            };
            let line = format!("  ⎿  Set model to {}{scope}", chosen.display);
            Some((chosen, line))
        }
    }
}
