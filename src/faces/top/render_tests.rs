//! The view drawn on ratatui's test backend, one snapshot per state of the view: the fleet
//! with a worker in every state at 80×24 and at 200 columns, an empty fleet, the filter, the
//! send line, the kill confirmation and the pager; and the colours `NO_COLOR` takes away.

use super::*;
use crate::faces::top::model::samples::view;
use ratatui::Terminal;

fn screen(view: &mut View, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| draw(frame, view)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            let line: String = (0..width).map(|x| buffer[(x, y)].symbol()).collect();
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_state_at_80_by_24() {
    insta::assert_snapshot!(screen(&mut view(), 80, 24));
}

#[test]
fn every_state_at_200_columns() {
    insta::assert_snapshot!(screen(&mut view(), 200, 10));
}

#[test]
fn an_empty_fleet_says_how_to_start_one() {
    let mut view = View::new(false);
    insta::assert_snapshot!(screen(&mut view, 80, 6));
}

#[test]
fn the_filter_narrows_the_table_as_it_is_typed() {
    let mut view = view();
    view.filter = "wri".into();
    view.mode = Mode::Input {
        purpose: Purpose::Filter,
        text: "wri".into(),
    };
    view.keep_selection();
    insta::assert_snapshot!(screen(&mut view, 80, 8));
    view.filter = "nobody".into();
    view.keep_selection();
    assert!(screen(&mut view, 80, 8).contains("no worker matches the filter"));
}

#[test]
fn the_send_line_and_the_kill_confirmation() {
    let mut view = view();
    view.mode = Mode::Input {
        purpose: Purpose::Send("builder".into()),
        text: "Run the tests".into(),
    };
    insta::assert_snapshot!("send", screen(&mut view, 80, 9));
    view.mode = Mode::ConfirmKill("builder".into());
    insta::assert_snapshot!("confirm_kill", screen(&mut view, 80, 9));
    view.mode = Mode::ConfirmPark("writer".into());
    insta::assert_snapshot!("confirm_park", screen(&mut view, 80, 9));
}

#[test]
fn the_pager_shows_the_answer_over_the_table() {
    let mut view = view();
    view.mode = Mode::Pager {
        title: " writer: last answer ".into(),
        lines: (1..=20).map(|n| format!("line {n}")).collect(),
        scroll: 3,
    };
    insta::assert_snapshot!(screen(&mut view, 60, 10));
}

#[test]
fn a_note_shows_under_the_table() {
    let mut view = view();
    view.note = Some("sent to builder (position 7)".into());
    assert!(screen(&mut view, 80, 9).contains("sent to builder (position 7)"));
}

#[test]
fn states_are_coloured_unless_no_color() {
    let style_of = |colour: bool| {
        let mut view = view();
        view.colour = colour;
        let mut terminal = Terminal::new(TestBackend::new(80, 8)).unwrap();
        terminal.draw(|frame| draw(frame, &mut view)).unwrap();
        let buffer = terminal.backend().buffer().clone();
        // Row 2 is the first worker (needs-input); its STATE cell starts after NAME and PROVIDER.
        let x = (0..80u16)
            .find(|x| buffer[(*x, 2)].symbol() == "n" && buffer[(*x + 1, 2)].symbol() == "e")
            .unwrap();
        buffer[(x, 2)].fg
    };
    assert_eq!(style_of(true), Color::Yellow);
    assert_eq!(style_of(false), Color::Reset);
}

#[test]
fn the_once_frame_is_as_tall_as_the_fleet() {
    let text = frame_text(&mut view(), 100);
    assert_eq!(text.lines().count(), 6 + 4);
    assert!(text.lines().all(|l| l.chars().count() <= 100));
    insta::assert_snapshot!(text);
}

#[test]
fn a_host_column_once_a_worker_runs_on_another_host() {
    let mut view = view();
    assert!(!screen(&mut view, 120, 10).contains("HOST"));
    let mut rows = crate::faces::top::model::samples::fleet();
    for row in &mut rows {
        match row.status.name.as_str() {
            "builder" => row.status.host = Some("gpu-box".into()),
            "reviewer" => {
                row.status.host = Some("build".into());
                row.status.state = crate::core::status::ListedState::Unreadable(
                    crate::core::status::Unreadable::Unreachable,
                );
                row.shown = Shown::of(&row.status, &row.turn);
            }
            _ => {}
        }
    }
    view.set_rows(rows);
    let text = screen(&mut view, 120, 10);
    let header = text.lines().find(|l| l.contains("NAME")).unwrap_or("");
    assert!(header.contains("HOST"), "{text}");
    let line = |name: &str| {
        text.lines()
            .find(|l| l.contains(name))
            .unwrap_or("")
            .to_string()
    };
    assert!(line("builder").contains("gpu-box"), "{text}");
    assert!(
        line("reviewer").contains("build") && line("reviewer").contains("unreachable"),
        "{text}"
    );
    assert!(line("writer").contains("local"), "{text}");
}

#[test]
fn a_budget_column_once_a_worker_has_limits() {
    use crate::core::budget::{BudgetState, Limits, Used, reached};
    let mut view = view();
    assert!(!screen(&mut view, 140, 10).contains("BUDGET"));
    let mut rows = crate::faces::top::model::samples::fleet();
    let limits = Limits {
        max_tokens: Some(1000),
        ..Limits::default()
    };
    let used = Used {
        tokens: 1200,
        ..Used::default()
    };
    rows[0].status.budget = Some(BudgetState {
        reached: reached(&limits, &used),
        limits,
        used,
    });
    let name = rows[0].status.name.clone();
    view.set_rows(rows);
    let text = screen(&mut view, 140, 10);
    let header = text.lines().find(|l| l.contains("NAME")).unwrap_or("");
    assert!(header.contains("BUDGET"), "{text}");
    let line = text.lines().find(|l| l.contains(&name)).unwrap_or("");
    assert!(line.contains("stopped: tokens"), "{text}");
}
