//! What a key does in `umbel top`: it changes the view (selection, input line, filter,
//! pager), and may ask the event loop for something with a side effect (attach, send, kill,
//! read, logs, quit). Pure, so every key is tested without a terminal.

use super::model::{Mode, Purpose, View};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What the event loop must do after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    None,
    Quit,
    Attach(String),
    Send(String, String),
    Kill(String),
    /// End its CLI and keep its conversation (`umbel park NAME`).
    Park(String),
    /// Open the last answer in the pager.
    Read(String),
    /// Open the event log in the pager.
    Logs(String),
    /// Approve the tool the worker waits on (`umbel approve NAME --expect ID`).
    Approve(String, Option<String>),
    /// Deny it (`umbel deny NAME --expect ID`).
    Deny(String, Option<String>),
}

/// Lines a page key scrolls the pager.
const PAGE: u16 = 10;

/// Applies `key` to the view.
pub fn on_key(view: &mut View, key: KeyEvent) -> Effect {
    if key.kind == KeyEventKind::Release {
        return Effect::None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Effect::Quit;
    }
    match std::mem::replace(&mut view.mode, Mode::Table) {
        Mode::Table => table_key(view, key.code),
        Mode::Input { purpose, text } => input_key(view, purpose, text, key.code),
        Mode::ConfirmKill(name) => match key.code {
            KeyCode::Char('y' | 'Y') => Effect::Kill(name),
            _ => Effect::None,
        },
        Mode::ConfirmPark(name) => match key.code {
            KeyCode::Char('y' | 'Y') => Effect::Park(name),
            _ => Effect::None,
        },
        Mode::Pager {
            title,
            lines,
            scroll,
        } => {
            let last = lines.len().saturating_sub(1) as u16;
            let scroll = match key.code {
                KeyCode::Char('q') | KeyCode::Esc => return Effect::None,
                KeyCode::Down | KeyCode::Char('j') => scroll.saturating_add(1),
                KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
                KeyCode::PageDown | KeyCode::Char(' ') => scroll.saturating_add(PAGE),
                KeyCode::PageUp => scroll.saturating_sub(PAGE),
                KeyCode::Home | KeyCode::Char('g') => 0,
                KeyCode::End | KeyCode::Char('G') => last,
                _ => scroll,
            };
            view.mode = Mode::Pager {
                title,
                lines,
                scroll: scroll.min(last),
            };
            Effect::None
        }
    }
}

fn table_key(view: &mut View, code: KeyCode) -> Effect {
    let selected = view.current().map(|r| r.status.name.clone());
    // A tool's approval: `y`/`n` answer it, for the approval the row shows.
    let asked = view
        .current()
        .filter(|r| r.status.asks_approval())
        .map(|r| (r.status.name.clone(), r.status.approval_id.clone()));
    match code {
        KeyCode::Char('q') => return Effect::Quit,
        KeyCode::Esc if !view.filter.is_empty() => {
            view.filter.clear();
            view.keep_selection();
        }
        KeyCode::Up => view.move_selection(-1),
        KeyCode::Down => view.move_selection(1),
        KeyCode::PageUp => view.move_selection(-10),
        KeyCode::PageDown => view.move_selection(10),
        KeyCode::Home => view.move_selection(-isize::MAX / 2),
        KeyCode::End => view.move_selection(isize::MAX / 2),
        KeyCode::Char('/') => {
            view.mode = Mode::Input {
                purpose: Purpose::Filter,
                text: view.filter.clone(),
            }
        }
        _ => {
            let Some(name) = selected else {
                return Effect::None;
            };
            view.note = None;
            match code {
                KeyCode::Enter => return Effect::Attach(name),
                KeyCode::Char('s') => {
                    view.mode = Mode::Input {
                        purpose: Purpose::Send(name),
                        text: String::new(),
                    }
                }
                KeyCode::Char('k') => view.mode = Mode::ConfirmKill(name),
                KeyCode::Char('p') => view.mode = Mode::ConfirmPark(name),
                KeyCode::Char('r') => return Effect::Read(name),
                KeyCode::Char('l') => return Effect::Logs(name),
                KeyCode::Char('y' | 'n') if asked.is_none() => {
                    view.note = Some(format!("{name} waits on no tool's approval"));
                }
                KeyCode::Char('y') => {
                    return asked.map_or(Effect::None, |(n, id)| Effect::Approve(n, id));
                }
                KeyCode::Char('n') => {
                    return asked.map_or(Effect::None, |(n, id)| Effect::Deny(n, id));
                }
                _ => {}
            }
        }
    }
    Effect::None
}

fn input_key(view: &mut View, purpose: Purpose, mut text: String, code: KeyCode) -> Effect {
    match code {
        KeyCode::Esc => {
            if purpose == Purpose::Filter {
                view.filter.clear();
                view.keep_selection();
            }
            return Effect::None;
        }
        KeyCode::Enter => {
            return match purpose {
                Purpose::Send(_) if text.trim().is_empty() => Effect::None,
                Purpose::Send(name) => Effect::Send(name, text),
                Purpose::Filter => Effect::None,
            };
        }
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Char(c) => text.push(c),
        _ => {}
    }
    if purpose == Purpose::Filter {
        view.filter = text.clone();
        view.keep_selection();
    }
    view.mode = Mode::Input { purpose, text };
    Effect::None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faces::top::model::samples::view;

    fn press(view: &mut View, code: KeyCode) -> Effect {
        on_key(view, KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn typed(view: &mut View, text: &str) {
        for c in text.chars() {
            assert_eq!(press(view, KeyCode::Char(c)), Effect::None);
        }
    }

    #[test]
    fn arrows_select_and_enter_attaches_the_selected_worker() {
        let mut view = view();
        press(&mut view, KeyCode::Down);
        press(&mut view, KeyCode::Down);
        assert_eq!(press(&mut view, KeyCode::Up), Effect::None);
        assert_eq!(
            press(&mut view, KeyCode::Enter),
            Effect::Attach("crashed".into())
        );
        assert_eq!(press(&mut view, KeyCode::Char('q')), Effect::Quit);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(on_key(&mut view, ctrl_c), Effect::Quit);
    }

    #[test]
    fn y_and_n_answer_the_approval_the_selected_row_shows_and_nothing_else() {
        let mut view = view();
        // The fleet sorts the worker that needs a person first.
        assert_eq!(
            press(&mut view, KeyCode::Char('y')),
            Effect::Approve("reviewer".into(), Some("7".into()))
        );
        assert_eq!(
            press(&mut view, KeyCode::Char('n')),
            Effect::Deny("reviewer".into(), Some("7".into()))
        );
        press(&mut view, KeyCode::Down);
        assert_eq!(press(&mut view, KeyCode::Char('y')), Effect::None);
        let note = view.note.clone().unwrap_or_default();
        assert!(note.contains("waits on no tool's approval"), "{note}");
    }

    #[test]
    fn s_opens_a_prompt_line_that_enter_sends_and_esc_drops() {
        let mut view = view();
        press(&mut view, KeyCode::Char('s'));
        typed(&mut view, "Run itx");
        press(&mut view, KeyCode::Backspace);
        assert_eq!(
            press(&mut view, KeyCode::Enter),
            Effect::Send("reviewer".into(), "Run it".into())
        );
        assert_eq!(view.mode, Mode::Table);
        press(&mut view, KeyCode::Char('s'));
        press(&mut view, KeyCode::Enter);
        assert_eq!(view.mode, Mode::Table, "an empty prompt is not sent");
        press(&mut view, KeyCode::Char('s'));
        typed(&mut view, "q");
        assert_eq!(press(&mut view, KeyCode::Esc), Effect::None);
        assert_eq!(view.mode, Mode::Table);
    }

    #[test]
    fn k_kills_only_after_y() {
        let mut view = view();
        press(&mut view, KeyCode::Char('k'));
        assert_eq!(view.mode, Mode::ConfirmKill("reviewer".into()));
        assert_eq!(press(&mut view, KeyCode::Char('n')), Effect::None);
        assert_eq!(view.mode, Mode::Table);
        press(&mut view, KeyCode::Char('k'));
        assert_eq!(
            press(&mut view, KeyCode::Char('y')),
            Effect::Kill("reviewer".into())
        );
    }

    #[test]
    fn p_parks_only_after_y() {
        let mut view = view();
        press(&mut view, KeyCode::Char('p'));
        assert_eq!(view.mode, Mode::ConfirmPark("reviewer".into()));
        assert_eq!(press(&mut view, KeyCode::Esc), Effect::None);
        assert_eq!(view.mode, Mode::Table);
        press(&mut view, KeyCode::Char('p'));
        assert_eq!(
            press(&mut view, KeyCode::Char('y')),
            Effect::Park("reviewer".into())
        );
    }

    #[test]
    fn slash_filters_as_typed_and_esc_clears_it() {
        let mut view = view();
        press(&mut view, KeyCode::Char('/'));
        typed(&mut view, "gem");
        assert_eq!(view.filter, "gem");
        assert_eq!(view.selected.as_deref(), Some("writer"));
        press(&mut view, KeyCode::Enter);
        assert_eq!(view.mode, Mode::Table);
        assert_eq!(view.filter, "gem", "Enter keeps the filter");
        assert_eq!(
            press(&mut view, KeyCode::Char('r')),
            Effect::Read("writer".into())
        );
        press(&mut view, KeyCode::Esc);
        assert_eq!(view.filter, "");
        assert_eq!(view.visible().len(), 6);
    }

    #[test]
    fn r_and_l_ask_for_the_pager_which_scrolls_and_closes() {
        let mut view = view();
        assert_eq!(
            press(&mut view, KeyCode::Char('l')),
            Effect::Logs("reviewer".into())
        );
        view.mode = Mode::Pager {
            title: "t".into(),
            lines: vec!["a".into(); 30],
            scroll: 0,
        };
        press(&mut view, KeyCode::PageDown);
        press(&mut view, KeyCode::Down);
        press(&mut view, KeyCode::Up);
        press(&mut view, KeyCode::Up);
        assert!(matches!(view.mode, Mode::Pager { scroll: 9, .. }));
        press(&mut view, KeyCode::End);
        assert!(matches!(view.mode, Mode::Pager { scroll: 29, .. }));
        press(&mut view, KeyCode::Char('q'));
        assert_eq!(view.mode, Mode::Table, "q closes the pager, not top");
    }

    #[test]
    fn keys_that_act_on_a_worker_do_nothing_without_one() {
        let mut view = View::new(false);
        for key in ['s', 'k', 'p', 'r', 'l'] {
            assert_eq!(press(&mut view, KeyCode::Char(key)), Effect::None);
            assert_eq!(view.mode, Mode::Table);
        }
        assert_eq!(press(&mut view, KeyCode::Enter), Effect::None);
    }
}
