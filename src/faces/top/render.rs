//! Drawing the view with ratatui: a title with the counts, the table (what needs a person
//! first), a line for input and notes, and the keys in a footer as htop shows them. The same
//! drawing, on a buffer, is `top --once`'s plain-text frame.

use super::model::{Mode, Purpose, View, short_cost, short_duration, short_tokens};
use crate::core::fleet::Shown;
use crate::core::worktree::status_words;
use crate::operations::fleet::FleetRow;
use ratatui::Frame;
use ratatui::backend::TestBackend;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell, Clear, HighlightSpacing, Paragraph, Row, Table, Wrap,
};

/// The keys of the table, as the footer lists them.
const TABLE_KEYS: &[(&str, &str)] = &[
    ("↑↓", "move"),
    ("Enter", "attach"),
    ("s", "send"),
    ("k", "kill"),
    ("p", "park"),
    ("r", "read"),
    ("l", "logs"),
    ("/", "filter"),
    ("q", "quit"),
];

/// The table's keys on a row that waits on a tool's approval: answering it comes first (it
/// takes no prompt meanwhile).
const ASKING_KEYS: &[(&str, &str)] = &[
    ("y", "approve"),
    ("n", "deny"),
    ("↑↓", "move"),
    ("Enter", "attach"),
    ("k", "kill"),
    ("r", "read"),
    ("/", "filter"),
    ("q", "quit"),
];

const PAGER_KEYS: &[(&str, &str)] = &[("↑↓ PgUp PgDn", "scroll"), ("q Esc", "back")];
const INPUT_KEYS: &[(&str, &str)] = &[("Enter", "done"), ("Esc", "cancel")];
const CONFIRM_KEYS: &[(&str, &str)] = &[("y", "kill"), ("n Esc", "keep")];
const CONFIRM_PARK_KEYS: &[(&str, &str)] = &[("y", "park"), ("n Esc", "keep running")];

/// Draws the whole view on `frame`.
pub fn draw(frame: &mut Frame, view: &mut View) {
    let [title, table, input, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(Paragraph::new(title_line(view)), title);
    draw_table(frame, table, view);
    frame.render_widget(Paragraph::new(input_line(view)), input);
    let asking = view.current().is_some_and(|r| r.status.asks_approval());
    let keys = match &view.mode {
        Mode::Table if asking => ASKING_KEYS,
        Mode::Table => TABLE_KEYS,
        Mode::Pager { .. } => PAGER_KEYS,
        Mode::Input { .. } => INPUT_KEYS,
        Mode::ConfirmKill(_) => CONFIRM_KEYS,
        Mode::ConfirmPark(_) => CONFIRM_PARK_KEYS,
    };
    frame.render_widget(Paragraph::new(footer_line(keys, view.colour)), footer);
    if let Mode::Pager {
        title,
        lines,
        scroll,
    } = &view.mode
    {
        frame.render_widget(Clear, table);
        let text: Vec<Line> = lines.iter().map(|l| Line::raw(l.as_str())).collect();
        let pager = Paragraph::new(text)
            .block(Block::default().borders(Borders::ALL).title(title.as_str()))
            .wrap(Wrap { trim: false })
            .scroll((*scroll, 0));
        frame.render_widget(pager, table);
    }
}

/// One frame as plain text, `width` wide and as tall as the fleet needs (for `--once`).
pub fn frame_text(view: &mut View, width: u16) -> String {
    let height = (view.visible().len() as u16).saturating_add(4).max(5);
    let mut terminal = match ratatui::Terminal::new(TestBackend::new(width, height)) {
        Ok(terminal) => terminal,
        Err(never) => match never {},
    };
    if terminal.draw(|frame| draw(frame, view)).is_err() {
        return String::new();
    }
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut line = String::new();
        for x in 0..buffer.area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn title_line(view: &View) -> Line<'static> {
    let workers = match view.rows.len() {
        1 => "1 worker".to_string(),
        n => format!("{n} workers"),
    };
    let mut spans = vec![
        Span::styled("umbel top", Style::new().add_modifier(Modifier::BOLD)),
        Span::raw(format!("  {workers}")),
    ];
    for (i, (shown, n)) in view.counts().into_iter().enumerate() {
        spans.push(Span::raw(if i == 0 { ": " } else { ", " }));
        spans.push(Span::styled(
            format!("{n} {}", shown.label()),
            state_style(shown, view.colour),
        ));
    }
    let asking = view
        .rows
        .iter()
        .filter(|r| r.status.asks_approval())
        .count();
    if asking > 0 {
        let approvals = if asking == 1 { "approval" } else { "approvals" };
        spans.push(Span::styled(
            format!("  {asking} {approvals} pending (y/n)"),
            colour(Color::Yellow, view.colour),
        ));
    }
    if !view.filter.is_empty() {
        spans.push(Span::raw(format!("  filter: {}", view.filter)));
    }
    if let Some(problem) = &view.problem {
        spans.push(Span::styled(
            format!("  {problem}"),
            colour(Color::Red, view.colour),
        ));
    }
    Line::from(spans)
}

// long: the columns, then the table and its empty-fleet line
fn draw_table(frame: &mut Frame, area: Rect, view: &mut View) {
    let visible = view.visible();
    let name_width = visible
        .iter()
        .map(|r| r.status.name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(4, 24) as u16;
    // A HOST column once any worker runs on another host.
    let hosts = view.rows.iter().any(|r| r.status.host.is_some());
    let mut titles = vec!["NAME"];
    let mut widths = vec![Constraint::Length(name_width)];
    if hosts {
        let host_width = visible
            .iter()
            .map(|r| r.status.host.as_deref().unwrap_or("local").chars().count())
            .max()
            .unwrap_or(0)
            .clamp(4, 16) as u16;
        titles.push("HOST");
        widths.push(Constraint::Length(host_width));
    }
    titles.extend(["PROVIDER", "STATE", "TURN", "TOKENS", "COST"]);
    widths.extend([
        Constraint::Length(8),
        Constraint::Length(11),
        Constraint::Length(6),
        Constraint::Length(6),
        Constraint::Length(7),
    ]);
    // A BUDGET column once any worker has limits.
    let budgets = view.rows.iter().any(|r| r.status.budget.is_some());
    if budgets {
        titles.push("BUDGET");
        widths.push(Constraint::Length(15));
    }
    let branch_width = branch_column(view, &visible);
    let branches = branch_width.is_some();
    if let Some(width) = branch_width {
        titles.push("BRANCH");
        widths.push(Constraint::Length(width));
    }
    titles.push("DOING");
    widths.push(Constraint::Fill(1));
    let header = Row::new(titles).style(Style::new().add_modifier(Modifier::BOLD));
    let rows: Vec<Row> = visible
        .iter()
        .map(|r| table_row(r, view.now_ms, view.colour, (hosts, budgets, branches)))
        .collect();
    let empty = rows.is_empty();
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ")
        .highlight_spacing(HighlightSpacing::Always);
    frame.render_stateful_widget(table, area, &mut view.table);
    if empty {
        let text = if view.rows.is_empty() {
            "no workers: `umbel spawn --name w1` starts one"
        } else {
            "no worker matches the filter (/ to change it)"
        };
        let below_header = Rect {
            y: area.y.saturating_add(1),
            height: area.height.saturating_sub(1),
            ..area
        };
        frame.render_widget(Paragraph::new(text), below_header);
    }
}

/// The BRANCH column's width (branch, +commits ahead, ~files changed), once any worker has a
/// worktree.
fn branch_column(view: &View, visible: &[&FleetRow]) -> Option<u16> {
    if !view.rows.iter().any(|r| r.status.worktree.is_some()) {
        return None;
    }
    let widest = visible
        .iter()
        .map(|r| {
            r.status
                .worktree
                .as_ref()
                .map_or(1, |w| status_words(w).chars().count())
        })
        .max()
        .unwrap_or(0);
    Some(widest.clamp(6, 28) as u16)
}

/// One worker's row; `columns` says whether the HOST, BUDGET and BRANCH columns are shown.
fn table_row(
    row: &FleetRow,
    now_ms: u64,
    colour: bool,
    columns: (bool, bool, bool),
) -> Row<'static> {
    let (hosts, budgets, branches) = columns;
    let turn = match row.shown {
        Shown::Working | Shown::NeedsInput | Shown::Done => row.turn.age_ms(now_ms),
        _ => None,
    };
    let dash = || "-".to_string();
    let mut cells = vec![Cell::from(row.status.name.clone())];
    if hosts {
        cells.push(Cell::from(
            row.status.host.clone().unwrap_or_else(|| "local".into()),
        ));
    }
    cells.extend([
        Cell::from(row.status.provider.clone()),
        Cell::from(row.shown.label()).style(state_style(row.shown, colour)),
        Cell::from(turn.map_or_else(dash, short_duration)),
        Cell::from(row.usage.map_or_else(dash, |u| short_tokens(u.tokens))),
        Cell::from(
            row.usage
                .and_then(|u| u.cost_usd)
                .map_or_else(dash, short_cost),
        ),
    ]);
    if budgets {
        let brief = row.status.budget.as_ref().map_or_else(dash, |b| b.brief());
        let reached = row
            .status
            .budget
            .as_ref()
            .is_some_and(|b| b.reached.is_some());
        let style = if reached {
            self::colour(Color::Red, colour)
        } else {
            Style::new()
        };
        cells.push(Cell::from(brief).style(style));
    }
    if branches {
        cells.push(Cell::from(
            row.status.worktree.as_ref().map_or_else(dash, status_words),
        ));
    }
    cells.push(Cell::from(row.line.clone()));
    Row::new(cells)
}

fn state_style(shown: Shown, on: bool) -> Style {
    match shown {
        Shown::NeedsInput => colour(Color::Yellow, on).add_modifier(Modifier::BOLD),
        Shown::Dead | Shown::Corrupt | Shown::Unreachable => colour(Color::Red, on),
        Shown::Done => colour(Color::Cyan, on),
        Shown::Working => colour(Color::Green, on),
        Shown::Starting | Shown::Idle | Shown::Parked => Style::new(),
    }
}

/// A foreground colour, unless colour is off (`NO_COLOR`).
fn colour(c: Color, on: bool) -> Style {
    if on { Style::new().fg(c) } else { Style::new() }
}

fn input_line(view: &View) -> Line<'static> {
    match &view.mode {
        Mode::Input {
            purpose: Purpose::Send(name),
            text,
        } => Line::raw(format!("send to {name}: {text}▏")),
        Mode::Input {
            purpose: Purpose::Filter,
            text,
        } => Line::raw(format!("filter: {text}▏")),
        Mode::ConfirmKill(name) => Line::styled(
            format!("kill {name}? (y/n)"),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Mode::ConfirmPark(name) => Line::styled(
            format!("park {name}? its CLI ends, the next send resumes it (y/n)"),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Mode::Table | Mode::Pager { .. } => Line::raw(view.note.clone().unwrap_or_default()),
    }
}

fn footer_line(keys: &[(&'static str, &'static str)], colour: bool) -> Line<'static> {
    let key_style = if colour {
        Style::new().fg(Color::Black).bg(Color::Cyan)
    } else {
        Style::new().add_modifier(Modifier::REVERSED)
    };
    let mut spans = Vec::new();
    for (key, label) in keys {
        spans.push(Span::styled(*key, key_style));
        spans.push(Span::raw(format!(" {label}  ")));
    }
    Line::from(spans)
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
