//! fake-codex's `/model` (0.171.0): "Select Model and Effort", then the model's "Select Reasoning
//! Level", where `s` takes it for this session only and Enter as the default; Esc goes back a
//! screen. The arrows wrap round the list, eight rows show at once, numbered up to 9
//! (`tests/data/codex/codex-0.171.0-model-picker-*.txt`, `…-model-switched.txt`).

use super::session::Model;
use crate::engine::picker::{Picked, Picker};
use crate::keys::Key;

const MODELS: &[(&str, &str)] = &[
    (
        "GPT-6.2-Sol",
        "Fast, go-to model for coding and everyday work.",
    ),
    (
        "GPT-6.2-Astra",
        "Our most capable model for complex coding and professional work.",
    ),
    (
        "GPT-6.1 Terra",
        "Efficient model that excels at visual understanding and computer use.",
    ),
    (
        "GPT-6.1-Sol",
        "Previous generation model for coding and everyday work.",
    ),
    (
        "GPT-6-Astra",
        "Previous generation model for complex coding and professional work.",
    ),
    ("GPT-6-Sol", "Legacy model for coding and everyday work."),
    ("GPT-6-Luna", "Fast and affordable model for easier tasks."),
    ("GPT-5.6-Sol", "Legacy model for coding and everyday work."),
    ("GPT-5.6-Terra", "Legacy balanced model for agentic coding."),
    ("GPT-5.6-Luna", "Legacy fast model for simpler tasks."),
    ("GPT-5.5-Sol", "Legacy model for coding and everyday work."),
];

/// Rows shown at once, and the last one numbered (its hotkeys are 1–9).
const WINDOW: (usize, usize) = (8, 9);

const LEVELS: &[(&str, &str)] = &[
    ("Low (default)", "Fast responses with lighter reasoning"),
    (
        "Medium",
        "Balances speed and reasoning depth for everyday tasks",
    ),
    ("High", "Greater reasoning depth for complex problems"),
    (
        "Extra high",
        "Extra high reasoning depth for complex problems",
    ),
    (
        "More reasoning…",
        "Max and Ultra consume usage limits faster",
    ),
];

/// The first screen, the cursor on the first model.
pub fn open() -> Picker {
    Picker::new(0, MODELS, 0)
        .scrolling(WINDOW.0, WINDOW.1)
        .wrapping()
}

/// The picker's lines above the composer.
pub fn lines(picker: &Picker) -> Vec<String> {
    let (title, keys) = match picker.stage {
        0 => (
            "Select Model and Effort".to_string(),
            "enter select · esc back",
        ),
        _ => (
            format!("Select Reasoning Level for {}", MODELS[chosen(picker)].0),
            "enter default · s session · esc back",
        ),
    };
    let (above, below) = picker.hidden();
    let mut lines = vec![format!("  {title}"), String::new()];
    lines.extend(above.then(|| "↑".to_string()));
    lines.extend(picker.lines("", "›"));
    lines.extend(below.then(|| "↓".to_string()));
    lines.extend([String::new(), format!("  {keys}")]);
    lines
}

/// The model row the reasoning screen is for (kept in the stage number: 1 + its row).
fn chosen(picker: &Picker) -> usize {
    picker.stage.saturating_sub(1)
}

/// What a key does: the picker as it is now (`None`: closed), and when a model was taken, the
/// model, its effort and the history line.
pub fn key(mut picker: Picker, key: &Key) -> (Option<Picker>, Option<(Model, String, String)>) {
    let session = Key::Text("s".into());
    let takes = if picker.stage == 0 {
        vec![Key::Enter]
    } else {
        vec![Key::Enter, session.clone()]
    };
    match (picker.key(key, &takes), picker.stage) {
        (Picked::Nothing, _) => (Some(picker), None),
        (Picked::Left, 0) => (None, None),
        (Picked::Left, stage) => {
            let back = Picker::new(0, MODELS, stage - 1)
                .scrolling(WINDOW.0, WINDOW.1)
                .wrapping();
            (Some(back), None)
        }
        (Picked::Took(row, _), 0) => (Some(Picker::new(row + 1, LEVELS, 0)), None),
        (Picked::Took(level, how), stage) => {
            let display = MODELS[stage - 1].0.to_string();
            let id = display.to_lowercase().replace(' ', "-");
            let effort = LEVELS[level]
                .0
                .split(' ')
                .next()
                .unwrap_or("")
                .to_lowercase();
            let scope = if how == session {
                " for this session only"
            } else {
                ""
            };
            let line = format!("• Model changed to {id} {effort}{scope}");
            (None, Some((Model { id, display }, effort, line)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_then_s_takes_it_for_this_session() {
        let (p, _) = key(open(), &Key::Down);
        let (p, taken) = key(p.expect("up"), &Key::Enter);
        assert!(taken.is_none());
        let p = p.expect("levels");
        assert!(lines(&p)[0].contains("Select Reasoning Level for GPT-6.2-Astra"));
        let (p, taken) = key(p, &Key::Text("s".into()));
        assert!(p.is_none());
        let (model, effort, line) = taken.expect("taken");
        assert_eq!(
            (model.id.as_str(), effort.as_str()),
            ("gpt-6.2-astra", "low")
        );
        assert_eq!(
            line,
            "• Model changed to gpt-6.2-astra low for this session only"
        );
    }
}
