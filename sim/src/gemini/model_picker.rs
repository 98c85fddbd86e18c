//! fake-gemini's `/model` (0.61.0): "Select Model" with `Auto` and `Manual`, then Manual's list
//! of models; Enter takes one for this session while "Remember model for future sessions" reads
//! false (Tab toggles it), Esc goes back a screen, the arrows wrap round; the footer then names the model
//! (`tests/data/gemini/gemini-0.61.0-model-picker-*.txt`, `…-model-switched.txt`).

use super::boxes::rounded;
use crate::engine::picker::{Picked, Picker};
use crate::keys::Key;

/// The completion line typing `/model` shows.
pub const COMPLETION: &str = " model   Manage model configuration";

const MODES: &[(&str, &str)] = &[
    (
        "Auto",
        "Let Gemini CLI decide the best model for the task: gemini-3.1-pro-preview, gemini-3.8-flash",
    ),
    ("Manual", "Manually select a model"),
];

const MODELS: &[&str] = &[
    "gemini-3.1-pro-preview",
    "gemini-3-flash-preview",
    "gemini-2.5-pro",
    "gemini-3.5-flash-lite",
    "gemini-3.8-flash",
    "gemma-4-31b-it",
    "gemma-4-26b-a4b-it",
];

/// `/model`'s picker and its "Remember" toggle.
pub struct ModelPicker {
    pub picker: Picker,
    pub remember: bool,
}

/// The first screen, the cursor on `Auto` (or on `Manual` when a model is named).
pub fn open(auto: bool) -> ModelPicker {
    let rows: Vec<(&str, &str)> = MODES.iter().map(|(n, _)| (*n, "")).collect();
    let picker = Picker::new(0, &rows, usize::from(!auto)).wrapping();
    ModelPicker {
        picker,
        remember: false,
    }
}

/// The picker's box, `width` columns wide.
pub fn lines(p: &ModelPicker, width: usize) -> Vec<String> {
    let mut rows = vec![String::new(), "Select Model".to_string(), String::new()];
    for (i, line) in p.picker.lines("", "●").into_iter().enumerate() {
        rows.push(line);
        if p.picker.stage == 0 {
            rows.push(format!("     {}", MODES[i].1));
        }
    }
    rows.extend([
        String::new(),
        format!(
            "Remember model for future sessions: {} (Press Tab to toggle)",
            p.remember
        ),
        "> To use a specific Gemini model on startup, use the --model flag.".to_string(),
        String::new(),
        "(Press Esc to close)".to_string(),
        String::new(),
    ]);
    rounded(&rows, width, 0, 1)
}

/// What a key does: the picker as it is now (`None`: closed) and the model taken, if one was
/// (`auto` for Auto).
pub fn key(mut p: ModelPicker, key: &Key) -> (Option<ModelPicker>, Option<String>) {
    if *key == Key::Tab {
        p.remember = !p.remember;
        return (Some(p), None);
    }
    match (p.picker.key(key, &[Key::Enter]), p.picker.stage) {
        (Picked::Nothing, _) => (Some(p), None),
        (Picked::Left, 0) => (None, None),
        (Picked::Left, _) => {
            p.picker = Picker::new(0, &[("Auto", ""), ("Manual", "")], 1).wrapping();
            (Some(p), None)
        }
        (Picked::Took(0, _), 0) => (None, Some("auto".to_string())),
        (Picked::Took(_, _), 0) => {
            let rows: Vec<(&str, &str)> = MODELS.iter().map(|m| (*m, "")).collect();
            p.picker = Picker::new(1, &rows, 0).wrapping();
            (Some(p), None)
        }
        (Picked::Took(row, _), _) => (None, Some(MODELS[row].to_string())),
    }
}
