use super::*;
use crate::core::providers::Provider;

fn screen(path: &str) -> String {
    let path = format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A stage titled `title`, its cursor `cursor`.
fn rows(screen: &str, title: &'static str, cursor: &'static str) -> Vec<Row> {
    let stage = Stage {
        title,
        cursor,
        choose: Choose::Model,
        key: "Enter",
        session_only: None,
    };
    stage.rows(screen)
}

fn labels(rows: &[Row]) -> Vec<&str> {
    rows.iter().map(|r| r.label.as_str()).collect()
}

fn at_cursor(rows: &[Row]) -> Vec<&str> {
    rows.iter()
        .filter(|r| r.cursor)
        .map(|r| r.label.as_str())
        .collect()
}

#[test]
fn claudes_picker_lists_its_models_and_the_row_under_the_cursor() {
    let opened = rows(
        &screen("claude/claude-2.1.332-model-picker-after-enter.txt"),
        "Select model",
        "❯",
    );
    assert_eq!(
        labels(&opened),
        ["Default (recommended)", "Opus", "Fable", "Sonnet", "Haiku"]
    );
    assert_eq!(at_cursor(&opened), ["Default (recommended)"]);
    let down = rows(
        &screen("claude/claude-2.1.332-model-picker-down.txt"),
        "Select model",
        "❯",
    );
    assert_eq!(at_cursor(&down), ["Opus"]);
    assert_eq!(
        down[3].detail,
        "Sonnet 5.5 · Efficient for routine tasks · $2/$10 per Mtok"
    );
    // The prompt's own `❯ /model` and the screen without a picker list nothing.
    assert!(
        rows(
            &screen("claude/claude-2.1.332-model-switched.txt"),
            "Select model",
            "❯"
        )
        .is_empty()
    );
}

#[test]
fn codex_and_gemini_pickers_read_the_same_way() {
    let codex = rows(
        &screen("codex/codex-0.171.0-model-picker-down.txt"),
        "Select Model and Effort",
        "›",
    );
    assert_eq!(codex.len(), 8, "{codex:?}");
    assert_eq!(at_cursor(&codex), ["GPT-6.2-Astra"]);
    assert_eq!(codex[2].label, "GPT-6.1 Terra");
    let effort = rows(
        &screen("codex/codex-0.171.0-model-picker-effort.txt"),
        "Select Reasoning Level",
        "›",
    );
    assert_eq!(at_cursor(&effort), ["Low (default)"]);
    let first = rows(
        &screen("gemini/gemini-0.61.0-model-picker-after-enter.txt"),
        "Select Model",
        "●",
    );
    assert_eq!(labels(&first), ["Auto", "Manual"]);
    assert_eq!(at_cursor(&first), ["Auto"]);
    let manual = rows(
        &screen("gemini/gemini-0.61.0-model-picker-manual.txt"),
        "Select Model",
        "●",
    );
    assert_eq!(manual.len(), 7);
    assert_eq!(manual[1].label, "gemini-3-flash-preview");
    // Gemini's tips are numbered too, but no picker is up: the tips are not models.
    assert!(
        rows(
            &screen("gemini/gemini-0.61.0-model-switched.txt"),
            "Select Model",
            "●"
        )
        .is_empty()
    );
}

/// Gemini notes a model next to `Manual` once one was looked at in its list (seen on 0.61.0
/// after a walk through the list): the row is still `Manual`, and not that model.
#[test]
fn a_noted_row_is_known_by_its_bare_label() {
    let noted = rows(
        &screen("gemini/gemini-0.61.0-model-picker-manual-noted.txt"),
        "Select Model",
        "●",
    );
    assert_eq!(labels(&noted), ["Auto", "Manual (gemini-3-flash-preview)"]);
    assert_eq!(noted[1].bare(), "Manual");
    assert!(!noted[1].is("gemini-3-flash-preview"));
}

/// Codex numbers rows 1–9 only: scrolled down, the tenth row has its name in the others'
/// column and no number; the scroll marks are not rows.
#[test]
fn rows_past_the_ninth_are_read_without_their_number() {
    let scrolled = rows(
        &screen("codex/codex-0.171.0-model-picker-scrolled.txt"),
        "Select Model and Effort",
        "›",
    );
    assert_eq!(scrolled.len(), 8, "{scrolled:?}");
    assert_eq!(scrolled[0].label, "GPT-6.1 Terra");
    assert_eq!(scrolled[7].label, "GPT-5.6-Luna");
    assert_eq!(at_cursor(&scrolled), ["GPT-5.6-Luna"]);
    assert_eq!(scrolled[7].detail, "Legacy fast model for simpler tasks.");
}

#[test]
fn a_row_answers_to_any_spelling_of_its_names() {
    let claude = rows(
        &screen("claude/claude-2.1.332-model-picker-after-enter.txt"),
        "Select model",
        "❯",
    );
    let sonnet = &claude[3];
    for name in [
        "sonnet",
        "Sonnet",
        "Sonnet 5.5",
        "sonnet-5.5",
        "claude-sonnet-5-5",
    ] {
        assert!(sonnet.is(name), "{name}");
    }
    for name in ["opus", "son", "haiku", "claude-opus-5-5"] {
        assert!(!sonnet.is(name), "{name}");
    }
    assert!(claude[0].is("default"));
    let codex = rows(
        &screen("codex/codex-0.171.0-model-picker-after-enter.txt"),
        "Select Model and Effort",
        "›",
    );
    assert!(codex[1].is("gpt-6.2-astra"));
    assert!(!codex[0].is("gpt-6.2-astra"));
    assert!(codex[2].is("gpt-6.1-terra"));
}

/// Each provider's switch names screens its recordings show: the picker's stages and the
/// confirmation, or the typed command's.
#[test]
fn each_switch_matches_its_recorded_screens() {
    let cases: &[(Provider, &[&str], &str)] = &[
        (
            Provider::Claude,
            &["claude/claude-2.1.332-model-picker-after-enter.txt"],
            "claude/claude-2.1.332-model-switched.txt",
        ),
        (
            Provider::Codex,
            &[
                "codex/codex-0.171.0-model-picker-after-enter.txt",
                "codex/codex-0.171.0-model-picker-effort.txt",
            ],
            "codex/codex-0.171.0-model-switched.txt",
        ),
        (
            Provider::Gemini,
            &[
                "gemini/gemini-0.61.0-model-picker-after-enter.txt",
                "gemini/gemini-0.61.0-model-picker-manual.txt",
            ],
            "gemini/gemini-0.61.0-model-switched.txt",
        ),
        (
            Provider::Copilot,
            &[],
            "copilot/1.0.102/copilot-1.0.102-model-switched.txt",
        ),
    ];
    for (provider, stages, switched) in cases {
        let switch = provider.module().identity().models.expect("a model switch");
        let switched = screen(switched);
        match switch {
            ModelSwitch::Picker {
                stages: steps,
                done,
                typed,
                ..
            } => {
                if let Some(typed) = typed {
                    let dir = stages[0].rsplit_once("-after-enter").map_or("", |(d, _)| d);
                    let at = screen(&format!("{dir}-typed.txt"));
                    assert!(at.contains(typed), "{provider}: {typed}");
                }
                assert_eq!(steps.len(), stages.len(), "{provider}");
                for (step, path) in steps.iter().zip(*stages) {
                    let shown = screen(path);
                    assert!(shown.contains(step.title), "{path}: {}", step.title);
                    assert_eq!(at_cursor(&step.rows(&shown)).len(), 1, "{path}");
                    assert!(!switched.contains(step.title), "{provider}: still up");
                }
                if let Some(done) = done {
                    assert!(switched.contains(done), "{provider}: {done}");
                }
            }
            ModelSwitch::Typed { done, .. } => assert!(switched.contains(done), "{provider}"),
        }
    }
}
